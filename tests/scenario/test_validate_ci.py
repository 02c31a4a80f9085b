"""`validate` and `run --ci` agree: `validate --ci` refuses what `run --ci` refuses, plain `validate` says
which warnings those are, and both flag a file that cannot pass though every key in it is known."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import write

CANNOT_PASS = """\
timeline:
  - runCmd: {cmd: "echo hi", timeout: fast}
  - screenshot: one
  - llmResponse:
      - assistant: [[0, hi]]
      - agentToolUse: {toolName: runCmd, args: {cmd: "true", timeout: -5}}
  - screenshot: one
  - screenshot: one
  - assert: {fs: {exist: [a]}}
"""


def workbench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=120)  # fmt: skip


def test_validate_says_what_ci_refuses_and_validate_ci_refuses_it_like_run_ci(tmp_path: Path) -> None:
    write(tmp_path, "s.yaml", CANNOT_PASS)
    plain = workbench("validate", "s.yaml", cwd=tmp_path)
    assert plain.returncode == 0
    assert (
        plain.stderr.splitlines()
        == [  # in file order, the loader's and the checks' of the loaded scenario
            "s.yaml:2:5: warning: `runCmd` has `timeout: fast`; a timeout is a positive number of milliseconds, "
            "so the tool would refuse it (an error with --ci)",
            "s.yaml:6:9: warning: `runCmd` has `timeout: -5`; a timeout is a positive number of milliseconds, "
            "so the tool would refuse it (an error with --ci)",
            "s.yaml:7:5: warning: screenshot `one` is also taken at line 3, at another moment: both compare against "
            "one golden; give each moment its own label (an error with --ci)",
            "s.yaml:9:19: warning: unknown key `exist` in `assert.fs` ignored; did you mean `exists`? "
            "(an error with --ci)",
        ]
    )
    lines = plain.stderr.splitlines()
    assert len(lines) == 4 and all(line.endswith("(an error with --ci)") for line in lines)
    assert not any(":8:" in line for line in lines), "the same moment twice (nothing between) is fine"
    assert plain.stdout.strip() == (
        "1 valid, 0 invalid, 4 warnings (1 file); `run --ci` and `validate --ci` refuse 4 of the warnings"
    )
    strict = workbench("validate", "--ci", "s.yaml", cwd=tmp_path)
    run = workbench("run", "--ci", "s.yaml", "--report", "r.json", cwd=tmp_path)
    assert strict.returncode == run.returncode == 2
    assert "s.yaml:9:19: error: unknown key `exist` in `assert.fs`; did you mean `exists`?" in strict.stderr
    assert strict.stderr.count(": error: ") == 4, "every one, not only the loader's"
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert entry["status"] == "error" and entry["failures"][0]["kind"] == "validation"
    lenient = workbench("validate", "--ci", "--lenient", "s.yaml", cwd=tmp_path)
    assert lenient.returncode == 0 and "(an error with --ci)" not in lenient.stderr


def test_a_file_that_cannot_pass_but_has_no_unknown_key_is_refused_by_both_ci_commands(
    tmp_path: Path,
) -> None:
    write(tmp_path, "s.yaml", "timeline:\n  - screenshot: a\n  - assistant: [[0, hi]]\n  - screenshot: a\n")
    strict = workbench("validate", "--ci", "s.yaml", cwd=tmp_path)
    assert strict.returncode == 2
    assert strict.stderr.strip() == (
        "s.yaml:4:5: error: screenshot `a` is also taken at line 2, at another moment: both compare against "
        "one golden; give each moment its own label"
    )
    run = workbench("run", "--ci", "s.yaml", cwd=tmp_path)
    assert run.returncode == 2 and "screenshot `a` is also taken at line 2" in run.stdout + run.stderr
    fine = write(
        tmp_path, "ok.yaml", "timeline:\n  - runCmd: {cmd: 'true', timeout: 500}\n  - screenshot: a\n"
    )
    assert workbench("validate", "--ci", str(fine), cwd=tmp_path).returncode == 0
