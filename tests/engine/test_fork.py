"""The mock agent forked from the warm engine plays exactly as one started as a new Python."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SCENARIOS
from workbench.engine.options import RunOptions
from workbench.engine.runner import ScenarioRun, run_scenario
from workbench.engine.trace import TRACE_FILE


class Watch:
    """Notes the program's command line and its standard streams when the run starts."""

    def __init__(self) -> None:
        self.cmdline: list[str] = []
        self.streams: list[str] = []

    def run_started(self, run: ScenarioRun) -> None:
        assert run.screen is not None and run._session is not None
        pid = run._session.pid
        self.cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]
        self.streams = [os.readlink(f"/proc/{pid}/fd/{n}") for n in (0, 1, 2)]

    def step_finished(self, run: ScenarioRun, record: Any) -> None: ...
    def run_finished(self, run: ScenarioRun, result: Any) -> None: ...


def _play(tmp_path: Path, label: str) -> tuple[Watch, list[dict[str, Any]]]:
    watch = Watch()
    options = RunOptions(goldens_dir=tmp_path / "goldens", out_dir=tmp_path / label)
    result = asyncio.run(run_scenario(SCENARIOS / "hello-agent.yaml", options, [watch]))
    assert result.status == "passed", [f.message for f in result.failures]
    (trace,) = (tmp_path / label).rglob(TRACE_FILE)
    steps = [json.loads(line) for line in trace.read_text().splitlines()]
    return watch, [
        {k: v for k, v in s.items() if k not in ("wall_ms", "duration_ms", "run_dir")} for s in steps
    ]


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_a_forked_agent_plays_the_same_steps_as_a_new_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forked, forked_steps = _play(tmp_path, "forked")
    ours = Path("/proc/self/cmdline").read_bytes().decode().split("\0")[:-1]
    assert forked.cmdline == ours  # forked from this process, not started again
    assert all(s.startswith("/dev/pts/") for s in forked.streams)  # its own terminal on 0, 1 and 2
    monkeypatch.setenv("WORKBENCH_NO_FORK", "1")
    started, started_steps = _play(tmp_path, "started")
    assert started.cmdline[1:4] == ["-m", "workbench", "mock-agent"]
    assert [{**s, "checks": None} for s in forked_steps[1:-1]] == [
        {**s, "checks": None} for s in started_steps[1:-1]
    ]
    # the first run wrote the golden; the second one's screen matches it
    assert [s["status"] for s in started_steps[-1]["screenshots"]] == ["match"]
    assert forked_steps[-1]["status"] == started_steps[-1]["status"] == "passed"


CHILD_IMPORTS = """
import sys
from pathlib import Path
from workbench.engine import fork
from workbench.timeline.prepare import prepare
assert prepare(Path(sys.argv[1])).ok  # what the engine has done before it forks
main = fork.warm().main
before = set(sys.modules)
code = main(["--speed", "max", "--workspace", sys.argv[2], sys.argv[1]])
print("\\nimported:", *sorted(n for n in set(sys.modules) - before if n.startswith("workbench")))
sys.exit(code)
"""


def test_a_forked_agent_imports_nothing_the_engine_has_not(tmp_path: Path) -> None:
    """Each forked child would otherwise import (and compile) the agent's tools again, every run."""
    import subprocess
    import sys

    workspace = tmp_path / "ws"
    workspace.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", CHILD_IMPORTS, str(SCENARIOS / "hello-agent.yaml"), str(workspace)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "imported:"  # after the agent's own output
    assert (workspace / "hello.py").is_file()  # it did play the scenario's tools
