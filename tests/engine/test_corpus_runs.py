"""Compatibility: every Agent Harbor corpus scenario runs to a verdict through the real CLI.

A verdict is a pass or a named failure (a tool result that differs, `ah` not installed,
...); an invalid file is a validation error with its diagnostics. Never a crash, never
an internal error, never a hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_corpus
from workbench.scenario.loader import discover

KINDS = {"assert", "screenshot", "expect", "tool", "timing", "process", "validation"}


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
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr + done.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    results = report["scenarios"]
    assert len(results) == len(list(discover([corpus])))
    for entry in results:
        assert entry["status"] in ("passed", "failed", "error"), entry
        if entry["status"] == "error":
            assert {f["kind"] for f in entry["failures"]} == {"validation"}, entry
        for failure in entry["failures"]:
            assert failure["kind"] in KINDS and failure["message"], entry
    passed = {Path(e["file"]).name for e in results if e["status"] == "passed"}
    assert {
        "hello_scenario.yaml",
        "recorder_ipc_integration.yaml",
        "snapshot_anchoring_precision.yaml",
    } - passed == {
        "hello_scenario.yaml"  # its scenario expects `read_file` to print "File read successfully"
    }
    assert len(passed) >= 30
