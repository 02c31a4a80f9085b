"""A program that prints nothing until it is typed to still gets its input: at once when it reads a line (`cat`),
else after a bounded wait."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import write


def run_with_allowance(folder: Path, scenario: str, seconds: float) -> subprocess.CompletedProcess[str]:
    """`workbench run --timeout 60 SCENARIO` in ``folder`` with a start allowance of ``seconds``."""
    code = (
        "import sys, workbench.engine.drivers.program as p\n"
        f"p.SILENT_START_S = {seconds!r}\n"
        "from workbench.cli import main\n"
        f"sys.exit(main(['run', {scenario!r}, '--timeout', '60']))\n"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, check=False,
                          timeout=120)  # fmt: skip


RAW_SILENT = """\
import os, tty
tty.setraw(0)  # raw mode, and nothing drawn: not ready as far as anyone can tell
data = b""
while len(data) < 5:  # typed a key per read, as a person types into a TUI
    data += os.read(0, 100)
os.write(1, b"got " + data + b"\\r\\n")
"""


def test_a_program_that_neither_shows_nor_reads_a_line_is_typed_to_after_its_start_allowance(
    tmp_path: Path,
) -> None:
    """A program in raw mode that has drawn nothing (a TUI still starting, as far as anyone can tell) is
    given the start allowance, then typed to anyway."""
    program = write(tmp_path, "raw.py", RAW_SILENT)
    write(
        tmp_path, "raw.yaml",
        f"name: raw\ncommand: [{sys.executable}, {program}]\ntimeline:\n"
        '  - userInputs: [[0, "hello"]]\n  - waitFor: got hello\n',
    )  # fmt: skip
    done = run_with_allowance(tmp_path, "raw.yaml", 0.5)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_silent_program_that_reads_its_terminal_is_typed_to_at_once(tmp_path: Path) -> None:
    """`cat` shows nothing until it is typed to, but the kernel shows it blocked reading a line: it is ready
    then, not after the start allowance. With an allowance longer than the run's --timeout, a run that
    waited for it would time out; this one does not wait."""
    write(
        tmp_path, "cat.yaml",
        'name: cat\ncommand: [cat]\ntimeline:\n  - userInputs: [[0, "hello<Enter>"]]\n'
        "  - waitFor: hello\n  - userInputs: [[0, \"<C-d>\"]]\nexpect:\n  exitCode: 0\n",
    )  # fmt: skip
    done = run_with_allowance(tmp_path, "cat.yaml", 3600.0)
    assert done.returncode == 0, done.stdout + done.stderr
