"""`ScenarioRun.abort`: an observer that sees what no later step can mend ends the run at once, failed
with its failure, and the run still ends its program, cleans up and reports as usual."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.conftest import write
from workbench.engine.options import RunOptions
from workbench.engine.report import Failure, ScenarioResult
from workbench.engine.runner import ScenarioRun
from workbench.engine.trace import StepRecord, Trace

WAITS = """\
name: waits
command: [bash, --norc, --noprofile]
timeline:
  - userInputs: [[0, "echo ready-$((1+1))<Enter>"]]
  - waitFor: {text: never shown, timeoutMs: 100000}
  - userInputs: [[0, "echo after<Enter>"]]
"""


class Aborter:
    """Aborts the run once its first step is played; notes what it saw."""

    def __init__(self) -> None:
        self.again: bool | None = None
        self.alive_at_end: bool | None = None
        self.finished: ScenarioResult | None = None
        self.steps: list[int] = []

    def run_started(self, run: ScenarioRun) -> None: ...

    def step_finished(self, run: ScenarioRun, record: StepRecord) -> None:
        self.steps.append(record.index)
        if len(self.steps) == 1:
            assert run.abort(Failure(record.index, 4, "timing", "the observer saw enough"))
            self.again = run.abort(Failure(record.index, 5, "timing", "a second opinion"))

    def run_finished(self, run: ScenarioRun, result: ScenarioResult) -> None:
        self.finished = result
        self.alive_at_end = run._session is not None and run._session.alive


def test_an_observer_aborts_the_run_which_fails_with_its_failure_and_cleans_up(tmp_path: Path) -> None:
    path = write(tmp_path, "waits.yaml", WAITS)
    aborter = Aborter()
    options = RunOptions(goldens_dir=tmp_path / "goldens", out_dir=tmp_path / "runs", timeout_s=120)
    result = asyncio.run(ScenarioRun(path, options, [aborter]).run())
    assert result.status == "failed"
    assert [(f.line, f.kind, f.message) for f in result.failures] == [
        (4, "timing", "the observer saw enough")
    ]
    assert aborter.again is False, "only the first abort counts"
    assert aborter.steps == [0], "the waitFor (100 s) and the steps after it were not played"
    assert aborter.finished is result and aborter.alive_at_end is False, "the program was ended"
    assert result.run_dir is not None
    trace = Trace.read(Path(result.run_dir))
    assert trace.result is not None and trace.result["status"] == "failed"


def test_a_run_not_started_cannot_be_aborted(tmp_path: Path) -> None:
    run = ScenarioRun(tmp_path / "none.yaml", RunOptions(out_dir=tmp_path / "runs"))
    assert run.abort(Failure(0, 1, "timing", "too early")) is False and run.result is None
