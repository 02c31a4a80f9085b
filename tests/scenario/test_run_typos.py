"""`workbench run` shows the typos it loads: warnings once each, errors in --ci, --lenient to relax."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXIST_TYPO = "name: exist-typo\ntimeline:\n  - assert:\n      fs:\n        exist: [missing.txt]\n"
COMAND_TYPO = "name: comand-typo\ncomand: [python3, -q]\ntimeline:\n  - log: hi\n"
EVENT_TYPO = "name: event-typo\ntimeline:\n  - screnshot: a\n"


def run(tmp_path: Path, text: str, *flags: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "s.yaml").write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "workbench", "run", "s.yaml", "--out", "out", "--goldens", "goldens", *flags],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_nested_typo_fails_ci_with_exit_2(tmp_path: Path) -> None:
    done = run(tmp_path, EXIST_TYPO, "--ci")
    assert done.returncode == 2, done.stdout + done.stderr
    output = done.stdout + done.stderr
    assert (
        output.count("s.yaml:5:9: validation: unknown key `exist` in `assert.fs`; did you mean `exists`?")
        == 1
    )
    assert "Traceback" not in output


def test_lenient_turns_the_error_back_into_a_warning(tmp_path: Path) -> None:
    done = run(tmp_path, EXIST_TYPO, "--ci", "--lenient")
    assert done.returncode == 0, done.stdout + done.stderr
    warning = "s.yaml:5:9: warning: unknown key `exist` in `assert.fs` ignored; did you mean `exists`?"
    assert done.stderr.count(warning) == 1, done.stderr


def test_without_ci_the_typo_is_printed_once(tmp_path: Path) -> None:
    done = run(tmp_path, EXIST_TYPO)
    assert done.stderr.count("unknown key `exist`") == 1, done.stderr


def test_a_top_level_typo_is_a_warning_printed_by_run_even_in_ci(tmp_path: Path) -> None:
    """`comand:` switched to the mock agent without a word; now run says so, with the fix."""
    done = run(tmp_path, COMAND_TYPO, "--ci")
    assert done.returncode == 0, done.stdout + done.stderr
    warning = "s.yaml:2:1: warning: unknown key `comand` in the scenario ignored; did you mean `command`?"
    assert done.stderr.count(warning) == 1, done.stderr


def test_an_unknown_event_gets_one_suggestion_printed_once(tmp_path: Path) -> None:
    done = run(tmp_path, EVENT_TYPO, "--ci")
    assert done.returncode == 2
    output = done.stdout + done.stderr
    assert output.count("unknown event `screnshot`; did you mean `screenshot`?") == 1, output
    assert "allowed events" not in output
    assert "1 error," in done.stdout and "1 errors" not in done.stdout
