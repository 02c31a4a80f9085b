"""The app's run session without the app: one run at a time, its step records, speed and follow.

The Textual screen only draws what this controller holds, so the lifecycle a
user relies on (start, pause, step, stop, a cancelled run never shown as passed,
opening another file forgetting the last run) is tested here without Textual.
The controller is an engine observer: the engine calls it on the same asyncio
loop, it updates its state, then tells its ``listener`` what changed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # the engine's records load with the first run or recorded trace, not with the app's start
    from workbench.clock import ClockState
    from workbench.engine.options import RunOptions
    from workbench.engine.report import Failure, ScenarioResult
    from workbench.engine.runner import ScenarioRun
    from workbench.engine.trace import StepRecord

SPEEDS: list[float | None] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, None]

Event = Literal["started", "step", "clock", "finished", "reset"]


def speed_text(speed: float | None) -> str:
    return "max" if speed is None else f"{speed:g}x"


def step_from_json(data: dict[str, Any]) -> StepRecord:
    """A trace's step record (JSON) as the engine's typed :class:`StepRecord`; missing fields get defaults."""
    from workbench.engine.trace import StepRecord

    cursor = data.get("cursor") or (0, 0)
    style, diffs = data.get("style"), data.get("diffs")
    return StepRecord(
        index=int(data.get("index", 0)), at_ms=int(data.get("at_ms", 0)), wall_ms=int(data.get("wall_ms", 0)),
        actor=str(data.get("actor", "control")), action=str(data.get("action", "")),
        summary=str(data.get("summary", "")), line=int(data.get("line", 0)),
        screen=[str(row) for row in data.get("screen", [])], cursor=(int(cursor[0]), int(cursor[1])),
        files=[{str(k): str(v) for k, v in f.items()} for f in data.get("files", []) if isinstance(f, dict)],
        checks=[c for c in data.get("checks", []) if isinstance(c, dict)],
        style=style if isinstance(style, dict) else None,
        diffs={str(k): str(v) for k, v in diffs.items()} if isinstance(diffs, dict) else None,
    )  # fmt: skip


def step_failed(record: StepRecord) -> bool:
    return any(not check.get("ok", True) for check in record.checks)


def failures_from_json(result: dict[str, Any]) -> list[Failure]:
    """The failures of a trace's result record, typed."""
    from workbench.engine.report import Failure

    out = []
    for f in result.get("failures", []):
        out.append(Failure(int(f.get("step", 0)), int(f.get("line", 0)), f.get("kind", "assert"),
                           str(f.get("message", "")), str(f.get("file", ""))))  # fmt: skip
    return out


@dataclass
class RecordedRun:
    """A run read back from its trace (``workbench show``)."""

    scenario: str
    file: Path | None
    size: tuple[int, int]
    total_steps: int
    steps: list[StepRecord]
    status: str
    failures: list[Failure]
    screenshots: list[dict[str, Any]]

    @classmethod
    def read(cls, run_dir: Path) -> RecordedRun:
        """Raises OSError or ValueError when the trace cannot be read."""
        from workbench.engine.trace import Trace

        trace = Trace.read(run_dir)
        header = trace.header
        profile = header.get("profile") or {}
        result = trace.result or {}
        file = Path(str(header["file"])) if header.get("file") else None
        return cls(
            scenario=str(header.get("scenario", run_dir.name)), file=file,
            size=(int(profile.get("width", 80)), int(profile.get("height", 24))),
            total_steps=int(header.get("steps", len(trace.steps))),
            steps=[step_from_json(s) for s in trace.steps],
            status=str(result.get("status", "unfinished")) if trace.result is not None else "unfinished",
            failures=failures_from_json(result), screenshots=list(result.get("screenshots", [])),
        )  # fmt: skip


@dataclass
class SessionController:
    """One run at a time on the caller's loop; see the module docstring."""

    listener: Callable[[Event], None] = lambda _event: None
    run: ScenarioRun | None = None
    result: ScenarioResult | None = None
    records: dict[int, StepRecord] = field(default_factory=dict)
    speed_index: int = SPEEDS.index(1.0)
    follow: bool = True  # the view follows the run (False: a recorded step is shown)
    _task: asyncio.Task[ScenarioResult] | None = None

    # ------------------------------------------------------------------ state

    @property
    def speed(self) -> float | None:
        return SPEEDS[self.speed_index]

    @property
    def live(self) -> bool:
        return self.run is not None and self.result is None

    @property
    def failures(self) -> list[Failure]:
        return list(self.result.failures) if self.result is not None else []

    @property
    def newest(self) -> int:
        return max(self.records) if self.records else -1

    def status_text(self) -> str:
        """One line for the status bar: what the run is doing and how to go on."""
        parts = []
        if self.result is not None:
            word = self.result.status
            virtual_ms = self.result.virtual_ms
            if word == "cancelled" and self.run is not None:  # stopped: as far as its clock got, not the plan
                virtual_ms = (
                    min(virtual_ms, self.run.clock.state.now_ms)
                    if virtual_ms
                    else self.run.clock.state.now_ms
                )
            if word == "skipped" and self.result.skip_reason:  # why, as `workbench run` says it
                parts.append(f"skipped: {self.result.skip_reason}")
            else:
                parts.append(f"{word}: {virtual_ms / 1000:g} s of virtual time")
        elif self.run is not None:
            clock = self.run.clock  # its reading counts a long wait under way: a live run is seen to go on
            parts.append(f"{'paused' if clock.paused else 'running'} at {clock.reading_ms()} ms")
        else:
            parts.append("idle")
        parts.append(f"speed {speed_text(self.speed)}")
        if not self.follow:
            parts.append("viewing a recorded step")
        return "  ·  ".join(parts)

    # ------------------------------------------------------------------ lifecycle

    def start(self, path: Path, options: RunOptions, *, paused: bool) -> ScenarioRun:
        """Start a run of ``path`` (the previous one must be over); its events reach the listener."""
        if self.live:
            raise RuntimeError("a run is going on: stop it first")
        from workbench.engine.runner import ScenarioRun  # here: the app starts before its first run

        run = ScenarioRun(path, options, observers=[self])
        if paused:
            run.clock.pause()
        run.clock.add_listener(lambda state: self._clock(run, state))
        self.run, self.result = run, None
        self.records.clear()
        self.follow = True
        self._task = asyncio.get_running_loop().create_task(run.run())
        return run

    async def stop(self) -> bool:
        """Cancel a live run and wait for the engine's cleanup; True if one was stopped.

        The engine writes ``cancelled`` in the trace; the controller shows the same.
        """
        task, run = self._task, self.run
        self._task = None
        if task is None or task.done() or run is None or self.result is not None:
            return False
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        from workbench.engine.report import ScenarioResult  # loaded with the run's engine

        result = run.result or ScenarioResult(name=path_name(run.path), file=str(run.path))
        result.status = "cancelled"
        self._finished(run, result)
        return True

    async def wait(self) -> ScenarioResult | None:
        """Wait for the run under way to end (for tests and scripts)."""
        task = self._task
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return self.result

    def reset(self) -> None:
        """Forget the last (finished) run: opening another file starts from a clean slate."""
        if self.live:
            raise RuntimeError("a run is going on: stop it first")
        self.run, self.result, self._task = None, None, None
        self.records.clear()
        self.follow = True
        self.listener("reset")

    def load_recorded(self, recorded: RecordedRun) -> None:
        """Fill the records from a trace (read-only view of a finished run)."""
        self.records = {step.index: step for step in recorded.steps}
        self.follow = False

    # ------------------------------------------------------------------ controls

    def play(self) -> bool:
        """Resume a live run; False when there is none (the caller starts one)."""
        self.follow = True
        if self.live:
            assert self.run is not None
            self.run.clock.resume()
            return True
        return False

    def pause(self) -> None:
        if self.live:
            assert self.run is not None
            self.run.clock.pause()

    def step(self) -> None:
        assert self.run is not None
        self.follow = True
        self.run.clock.step()

    def run_to(self, index: int) -> None:
        assert self.run is not None
        self.follow = True
        self.run.clock.run_to(index + 1)  # hold once step `index` has run

    def faster(self) -> None:
        self.speed_index = min(len(SPEEDS) - 1, self.speed_index + 1)
        self._apply_speed()

    def slower(self) -> None:
        self.speed_index = max(0, self.speed_index - 1)
        self._apply_speed()

    def _apply_speed(self) -> None:
        if self.live and self.run is not None:
            self.run.clock.set_speed(self.speed)
        self.listener("clock")

    def view(self, index: int) -> StepRecord | None:
        """Which screen to show for step ``index``: its record, or None for the live screen."""
        if self.live and index >= self.newest:
            self.follow = True
            return None
        record = self.records.get(index)
        if record is not None:
            self.follow = False if self.live else index == self.newest
        return record

    # ------------------------------------------------------------------ engine observer

    def run_started(self, run: ScenarioRun) -> None:
        if run is self.run:
            self.listener("started")

    def step_finished(self, run: ScenarioRun, record: StepRecord) -> None:
        if run is self.run and self.result is None:
            self.records[record.index] = record
            self.listener("step")

    def run_finished(self, run: ScenarioRun, result: ScenarioResult) -> None:
        self._finished(run, result)

    def _finished(self, run: ScenarioRun, result: ScenarioResult) -> None:
        if run is self.run and self.result is None:
            self.result = result
            self.listener("finished")

    def _clock(self, run: ScenarioRun, _state: ClockState) -> None:
        if run is self.run and self.result is None:
            self.listener("clock")


def path_name(path: Path) -> str:
    return path.stem
