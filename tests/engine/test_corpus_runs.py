"""Compatibility: every Agent Harbor corpus scenario runs to a verdict through the real CLI.

A verdict is a pass, a named failure (a tool result that differs, ...), or a skip when
the scenario needs a program this machine lacks (`ah`, `cargo`); only a file that is
not a scenario is a validation error. Never a crash, never an internal error, never a hang.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_corpus
from workbench.scenario.loader import discover

KINDS = {"assert", "screenshot", "expect", "tool", "timing", "process", "validation"}
# Corpus files that are not scenarios: a golden, the ACP bridge's JSON-RPC transcript, a legacy playbook.
NOT_SCENARIOS = {
    "recorder_ipc_integration.json",
    "terminal_follow_detach.yaml",
    "comprehensive_playbook.json",
}
# Scenarios that drive a program of Agent Harbor's project: `ah` (task files, `ah:` launches), `cargo`, `pnpm`.
NEEDS = {
    "task_create_new_branch.yaml": "ah",
    "task_push_behaviors.yaml": "ah",
    "simulation_smoke.yaml": "ah",  # and `pnpm`
}


@pytest.mark.corpus
@pytest.mark.slow
def test_every_corpus_scenario_runs_to_a_verdict(tmp_path: Path) -> None:
    corpus = require_corpus() / "agent-harbor"
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", str(corpus), "-j", "2", "--timeout", "60", "--report", "r.json"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=900,
        env={**os.environ, "TMPDIR": str(tmp_path)},  # kept workspaces of failed scenarios stay in the test's folder
    )  # fmt: skip
    assert done.returncode in (1, 2), done.stdout + done.stderr
    assert "internal error" not in done.stderr  # and no traceback (a scenario's text may quote one, inline)
    assert not re.search(r"^Traceback \(most recent call last\):$", done.stderr + done.stdout, re.M)
    report = json.loads((tmp_path / "r.json").read_text())
    results = report["scenarios"]
    assert len(results) == len(list(discover([corpus])))
    for entry in results:
        assert entry["status"] in ("passed", "failed", "error", "skipped"), entry
        if entry["status"] == "error":
            assert {f["kind"] for f in entry["failures"]} == {"validation"}, entry
        for failure in entry["failures"]:
            assert failure["kind"] in KINDS and failure["message"], entry
    status = {Path(e["file"]).name: e["status"] for e in results}
    # Only files that are not scenarios are invalid; every scenario loads (departures are warnings).
    assert {name for name, s in status.items() if s == "error"} == NOT_SCENARIOS
    assert status["realistic_development_scenario.yaml"] != "error"  # the format's own example
    # What needs a program this machine lacks is skipped with that reason, never failed.
    for name, program in NEEDS.items():
        if shutil.which(program) is None:
            assert status[name] == "skipped", name
            assert re.search(rf"SKIPPED +{Path(name).stem} +\(.*needs `{program}`", done.stdout), name
    passed = {Path(e["file"]).name for e in results if e["status"] == "passed"}
    assert {
        "hello_scenario.yaml",
        "recorder_ipc_integration.yaml",
        "snapshot_anchoring_precision.yaml",
    } - passed == {
        "hello_scenario.yaml"  # its scenario expects `read_file` to print "File read successfully"
    }
    assert len(passed) >= 30
