"""Every failure names a real scenario line: its step's, its key's, or the scenario's first line with why."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from workbench.engine.report import Failure, ScenarioResult


def run(
    tmp_path: Path, text: str, *flags: str
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    (tmp_path / "s.yaml").write_text(text)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "run",
            "s.yaml",
            "--ci",
            "--out",
            "out",
            "--report",
            "r.json",
            *flags,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = json.loads((tmp_path / "r.json").read_text())
    return done, report["scenarios"][0]["failures"]


def test_a_wrong_exit_code_fails_at_the_exit_code_line(tmp_path: Path) -> None:
    text = '# a comment\nname: code\ncommand: [python3, -c, "raise SystemExit(3)"]\ntimeline:\n  - log: hi\nexpect:\n  exitCode: 0\n'
    done, failures = run(tmp_path, text)
    assert done.returncode == 1
    assert [(f["kind"], f["line"]) for f in failures] == [("expect", 7)]
    assert "s.yaml:7:" in done.stdout


def test_a_failure_before_the_first_step_names_its_line_and_says_why(tmp_path: Path) -> None:
    text = "# a comment\n\nname: missing\ncommand: [/nonexistent/program]\ntimeline:\n  - log: hi\n"
    done, failures = run(tmp_path, text)
    assert done.returncode == 1
    assert [(f["kind"], f["line"]) for f in failures] == [("process", 4)]  # the `command` that cannot start
    assert failures[0]["message"].endswith("(the scenario's `command`)")
    assert "s.yaml:0:" not in done.stdout and "s.yaml:4: process:" in done.stdout


def test_no_failure_is_reported_at_line_zero() -> None:
    """Failures from the LLM side (after the last response) carry no line: the result places them."""
    result = ScenarioResult(name="s", file="s.yaml", first_line=4)
    result.fail(Failure(0, 0, "expect", "the agent asked for a response after the scenario's last one"))
    result.fail(Failure(2, 9, "assert", "text not found"))
    assert [(f.line, f.message.endswith("not one step)")) for f in result.failures] == [(4, True), (9, False)]
    assert [f["line"] for f in result.to_json()["failures"]] == [4, 9]
