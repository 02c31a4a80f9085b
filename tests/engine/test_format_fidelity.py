"""Agent Harbor details the runner honours as the format means them, through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import write


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args], cwd=cwd, capture_output=True, text=True, check=False,
        timeout=120, env={**os.environ, "TMPDIR": str(cwd)},
    )  # fmt: skip


def report_entry(tmp_path: Path, scenario: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    done = run("run", str(scenario), "--report", "r.json", cwd=tmp_path)
    [entry] = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    return done, entry


def test_assert_vm_is_a_warning_and_a_skipped_check_never_a_pass(tmp_path: Path) -> None:
    scenario = write(tmp_path, "vm.yaml", """\
name: vm
timeline:
  - {type: assertVm, focus: repository, selected: 1}
  - assistant: [[10, "hi"]]
""")  # fmt: skip
    validated = run("validate", str(scenario), cwd=tmp_path)
    assert (
        "vm.yaml:3:12: warning: `assertVm` is not checked by this runner"
        in validated.stdout + validated.stderr
    )
    done, entry = report_entry(tmp_path, scenario)
    assert done.returncode == 0, done.stdout + done.stderr
    assert entry["skipped_checks"] == [
        {"step": 0, "line": 3, "check": "assertVm",
         "reason": "assertVm focus=repository, selected=1: not checked by this runner "
                   "(it asserts the view model of Agent Harbor's own TUI)"}
    ]  # fmt: skip
    assert "skipped check, line 3" in done.stdout
    trace = next(tmp_path.glob("target/tmp/workbench/vm/*/*/trace.jsonl"))
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    vm = next(s for s in steps if s.get("type") == "step" and s["action"] == "assert-vm")
    assert vm["checks"] == [{"ok": None, "skipped": True, "message": entry["skipped_checks"][0]["reason"]}]


def test_inputs_for_a_target_the_run_does_not_have_are_not_typed(tmp_path: Path) -> None:
    scenario = write(tmp_path, "targets.yaml", """\
name: targets
timeline:
  - userInputs:
      - {relativeTime: 0, input: "typed for the tui", target: tui}
  - userInputs:
      - {relativeTime: 10, input: "meant for the web", target: webui}
  - userInputs:
      - {relativeTime: 20, input: "also for the web", target: webui}
  - userInputs:
      - {relativeTime: 30, input: "typed for the cli", target: cli}
""")  # fmt: skip
    validated = run("validate", str(scenario), cwd=tmp_path)
    out = validated.stdout + validated.stderr
    assert out.count("not typed in a terminal run") == 1 and "targets.yaml:6:" in out
    done, _ = report_entry(tmp_path, scenario)
    assert done.returncode == 0, done.stdout + done.stderr
    trace = next(tmp_path.glob("target/tmp/workbench/targets/*/*/trace.jsonl"))
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    inputs = [s for s in steps if s.get("type") == "step" and s["action"] == "input"]
    assert [s["checks"] for s in inputs] == [
        [],
        [{"ok": None, "skipped": True,
          "message": "input for target `webui` not typed: this run drives a terminal (targets tui, cli)"}],
        [{"ok": None, "skipped": True,
          "message": "input for target `webui` not typed: this run drives a terminal (targets tui, cli)"}],
        [],
    ]  # fmt: skip
    screen = "\n".join(steps[-1]["screen"] if "screen" in steps[-1] else inputs[-1]["screen"])
    assert "typed for the tui" in screen and "typed for the cli" in screen
    assert "web" not in screen
