"""The app's run session without Textual: lifecycle, typed records, stop = cancelled, reset, follow, traces."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SCENARIOS
from workbench.app.core.session import (
    SPEEDS,
    RecordedRun,
    SessionController,
    speed_text,
    step_from_json,
)
from workbench.engine.report import ScenarioResult
from workbench.engine.runner import RunOptions
from workbench.engine.trace import StepRecord


def _options(tmp: Path, speed: float | None = None) -> RunOptions:
    return RunOptions(speed=speed, goldens_dir=tmp / "goldens", out_dir=tmp / "runs", ci=True)


def test_the_controller_imports_no_textual() -> None:
    code = "import sys, workbench.app.core.session, workbench.app.core.recording, workbench.app.layout, " \
           "workbench.app.templates; sys.exit(any(m.split('.')[0] == 'textual' for m in sys.modules))"  # fmt: skip
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO, check=False).returncode == 0


def test_a_run_to_the_end_keeps_typed_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    events: list[str] = []

    async def body() -> ScenarioResult | None:
        session = SessionController(listener=events.append)
        session.speed_index = len(SPEEDS) - 1
        assert session.status_text().startswith("idle")
        session.start(SCENARIOS / "hello-agent.yaml", _options(tmp_path), paused=False)
        assert session.live
        with pytest.raises(RuntimeError):
            session.start(SCENARIOS / "hello-agent.yaml", _options(tmp_path), paused=False)
        return await session.wait()

    result = asyncio.run(body())
    assert result is not None and result.status == "failed"  # no golden in this private folder
    assert events[0] == "started" and events[-1] == "finished" and "step" in events


def test_stop_records_cancelled_in_the_controller_and_the_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    async def body() -> SessionController:
        session = SessionController()
        run = session.start(SCENARIOS / "hello-agent.yaml", _options(tmp_path, speed=1.0), paused=True)
        session.step()
        while 0 not in session.records:
            await asyncio.sleep(0.02)
        assert isinstance(session.records[0], StepRecord) and session.records[0].screen
        assert session.live and run.clock.paused
        assert await session.stop()
        assert not await session.stop(), "a second stop has nothing to stop"
        return session

    session = asyncio.run(body())
    assert session.result is not None and session.result.status == "cancelled"
    assert not session.live and "cancelled" in session.status_text()
    run_dir = Path(str(session.result.run_dir))
    last = json.loads((run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert last["type"] == "result" and last["status"] == "cancelled", "a stopped run is never passed"
    recorded = RecordedRun.read(run_dir)
    assert recorded.status == "cancelled" and [s.index for s in recorded.steps] == [0]
    session.reset()
    assert session.run is None and session.result is None and not session.records


def test_view_follows_a_live_run_and_shows_records_of_earlier_steps() -> None:
    session = SessionController()
    for i in range(3):
        session.records[i] = StepRecord(i, i * 10, 0, "user", "input", f"s{i}", i + 1, [f"row {i}"])
    assert session.view(1) is session.records[1]
    assert session.follow is False, "an earlier step of a finished run is a recorded view"
    assert session.view(2) is session.records[2] and session.follow, "the newest step is the run's end"
    assert session.view(7) is None


def test_speed_steps_and_text() -> None:
    session = SessionController()
    assert session.speed == 1.0
    session.faster()
    assert session.speed == 2.0
    for _ in range(10):
        session.faster()
    assert session.speed is None and speed_text(session.speed) == "max"
    for _ in range(10):
        session.slower()
    assert session.speed == 0.25 and speed_text(0.25) == "0.25x"


def test_step_from_json_tolerates_missing_fields() -> None:
    record = step_from_json({"index": 3, "screen": ["a"], "cursor": [1, 2], "checks": [{"ok": False}]})
    assert (
        record.index == 3 and record.cursor == (1, 2) and record.actor == "control" and record.style is None
    )
