"""A program that prints nothing until it is typed to (`cat`) still gets its input, after a bounded wait."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import write


def test_a_silent_program_is_typed_to_after_its_start_allowance(tmp_path: Path) -> None:
    write(
        tmp_path, "cat.yaml",
        'name: cat\ncommand: [cat]\ntimeline:\n  - userInputs: [[0, "hello<Enter>"]]\n'
        "  - advanceMs: 100\n  - screenshot: typed\n",
    )  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", "cat.yaml", "--timeout", "60"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    rows = (tmp_path / "screenshots/cat/80x24/typed.golden").read_text().splitlines()
    assert [r.rstrip() for r in rows[:2]] == ["hello", "hello"]  # the tty's echo, then cat's copy
