"""The main screen: browser, editor and diagnostics, terminal and screenshot panes, timeline.

Runs go through :class:`workbench.engine.runner.ScenarioRun` on the app's
asyncio loop (an async worker); the screen is one of its observers and drives
its :class:`~workbench.clock.VirtualClock` (play = resume, pause, step,
run-to-cursor, speed). Stepping back needs no engine: each finished step's
record (screen rows, files, checks) is kept and shown from memory; `workbench
show RUN` fills the same records from the run's trace.jsonl, read-only.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, TabbedContent, TabPane, TextArea
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from workbench.app.model import (
    ShotPair,
    Validation,
    golden_store,
    last_verdicts,
    recorded_pairs,
    validate_text,
)
from workbench.app.screens.confirm import ConfirmScreen
from workbench.app.widgets.browser import ScenarioBrowser
from workbench.app.widgets.diff import ScreenshotDiff
from workbench.app.widgets.editor import DiagnosticsList, ScenarioEditor
from workbench.app.widgets.terminal import TerminalView
from workbench.app.widgets.timeline import FAILED, TimelineBar, marks_from_schedule, marks_from_trace
from workbench.atomic import write_atomic
from workbench.clock import ClockState
from workbench.engine.report import ScenarioResult
from workbench.engine.runner import RunOptions, ScenarioRun
from workbench.engine.trace import StepRecord, Trace
from workbench.scenario.diagnostics import Severity
from workbench.scenario.loader import discover
from workbench.terminal import GoldenStore, Shot
from workbench.terminal.masks import mask_shot

if TYPE_CHECKING:  # the app imports this screen
    from workbench.app.app import WorkbenchApp

SPEEDS: list[float | None] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, None]
VALIDATE_DELAY_S = 0.3


def speed_text(speed: float | None) -> str:
    return "max" if speed is None else f"{speed:g}x"


# --------------------------------------------------------------------------- the engine observer


class RunStarted(Message):
    def __init__(self, run: ScenarioRun) -> None:
        super().__init__()
        self.run = run


class StepDone(Message):
    def __init__(self, run: ScenarioRun, record: dict[str, Any]) -> None:
        super().__init__()
        self.run = run
        self.record = record


class RunDone(Message):
    def __init__(self, run: ScenarioRun, result: ScenarioResult) -> None:
        super().__init__()
        self.run = run
        self.result = result


class ClockChanged(Message):
    def __init__(self, run: ScenarioRun, state: ClockState) -> None:
        super().__init__()
        self.run = run
        self.state = state


@dataclass
class ScreenObserver:
    """The engine Observer: turns run events into messages to the screen (same loop, no threads)."""

    screen: MainScreen

    def run_started(self, run: ScenarioRun) -> None:
        self.screen.post_message(RunStarted(run))

    def step_finished(self, run: ScenarioRun, record: StepRecord) -> None:
        self.screen.post_message(StepDone(run, record.to_json()))

    def run_finished(self, run: ScenarioRun, result: ScenarioResult) -> None:
        self.screen.post_message(RunDone(run, result))


# --------------------------------------------------------------------------- the screen


class MainScreen(Screen[None]):
    BINDING_GROUP_TITLE = "Workbench"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="save"),
        Binding("f5", "play", "Play", priority=True, id="play"),
        Binding("f6", "pause", "Pause", priority=True, id="pause"),
        Binding("f7", "step_back", "Step back", priority=True, id="step-back"),
        Binding("f8", "step", "Step", priority=True, id="step"),
        Binding("f9", "run_to_cursor", "Run to cursor", priority=True, id="run-to-cursor"),
        Binding("ctrl+r", "restart", "Restart", id="restart"),
        Binding("f2", "slower", "Slower", show=False, priority=True, id="slower"),
        Binding("f3", "faster", "Faster", show=False, priority=True, id="faster"),
        Binding("f4", "next_diagnostic", "Next problem", show=False, priority=True, id="next-diagnostic"),
        Binding("ctrl+t", "toggle_pane", "Terminal/Shots", id="toggle-pane"),
        Binding("ctrl+g", "focus_mode", "Keys to program", id="focus-mode"),
        Binding("ctrl+n", "compare_now", "Compare now", show=False, id="compare-now"),
        Binding("ctrl+l", "focus_timeline", "Timeline", show=False, id="focus-timeline"),
        Binding("ctrl+b", "focus_browser", "Browser", show=False, id="focus-browser"),
        Binding("ctrl+e", "focus_editor", "Editor", show=False, id="focus-editor"),
    ]
    AUTO_FOCUS = "#editor"

    def __init__(self, path: Path | None, run_dir: Path | None = None) -> None:
        super().__init__(id="main")
        self.root = path
        self.run_dir = run_dir
        self.read_only = run_dir is not None
        self.path: Path | None = None
        self.validation: Validation | None = None
        self.run: ScenarioRun | None = None
        self.result: ScenarioResult | None = None
        self.records: dict[int, dict[str, Any]] = {}
        self.speed_index = SPEEDS.index(1.0)
        self.follow = True
        self.term_size = (80, 24)
        self._validate_timer: Timer | None = None
        self._diag_index = -1
        self._store: GoldenStore | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="body"):
            yield ScenarioBrowser(id="browser")
            with Vertical(id="editor-pane"):
                yield ScenarioEditor(id="editor", read_only=self.read_only)
                yield DiagnosticsList(id="diagnostics")
            with TabbedContent(id="panes", initial="tab-terminal"):
                with TabPane("Terminal", id="tab-terminal"):
                    yield TerminalView(id="terminal")
                with TabPane("Screenshots", id="tab-shots"):
                    yield ScreenshotDiff(id="diff")
        yield TimelineBar(id="timeline")
        yield Footer()

    @property
    def workbench(self) -> WorkbenchApp:
        """The app, typed: its folders for goldens and runs."""
        return cast("WorkbenchApp", self.app)

    @property
    def editor(self) -> ScenarioEditor:
        return self.query_one("#editor", ScenarioEditor)

    @property
    def timeline(self) -> TimelineBar:
        return self.query_one("#timeline", TimelineBar)

    @property
    def terminal(self) -> TerminalView:
        return self.query_one("#terminal", TerminalView)

    @property
    def diff(self) -> ScreenshotDiff:
        return self.query_one("#diff", ScreenshotDiff)

    @property
    def browser(self) -> ScenarioBrowser:
        return self.query_one("#browser", ScenarioBrowser)

    @property
    def live(self) -> bool:
        return self.run is not None and self.result is None

    def on_mount(self) -> None:
        self.query_one("#diagnostics", DiagnosticsList).show([])
        self._status()
        if self.read_only:
            assert self.run_dir is not None
            self.open_run(self.run_dir)
            return
        root = self.root if self.root is not None else Path("scenarios")
        files: list[Path] = []
        if root.exists():
            files = list(discover([root]))
        self.browser.load(
            files, last_verdicts(self.workbench.out_dir), root if root.is_dir() else root.parent
        )
        first = root if root.is_file() else (files[0] if files else None)
        if first is not None:
            self.open_file(first)
            self.browser.select_path(first)
        elif not root.exists() and root.suffix:
            self.open_file(root)  # a new file: author it from empty
        else:
            self.notify(f"no scenario files under {root}", severity="warning")

    # ------------------------------------------------------------------ files

    def open_file(self, path: Path) -> None:
        try:
            text = path.read_text(encoding="utf-8") if path.exists() else ""
        except OSError as exc:
            self.notify(f"cannot open {path}: {exc}", severity="error")
            return
        self.path = path
        self.editor.open_text(path, text)
        self.editor.border_title = str(path)
        self.title = f"workbench: {path}"
        self.records.clear()
        self.validate_now()
        if not self.read_only:
            self.editor.follow_on_disk()

    @on(ScenarioBrowser.Opened)
    def _opened(self, event: ScenarioBrowser.Opened) -> None:
        if self.path is not None and event.path.resolve() == self.path.resolve():
            self.editor.focus()
            return
        if self.live:
            self.notify("a run is going on; wait for it or restart", severity="warning")
            return
        if self.editor.dirty:

            def answered(choice: str | None) -> None:
                if choice == "save":
                    self.action_save()
                if choice in ("save", "discard"):
                    self.open_file(event.path)

            self.app.push_screen(
                ConfirmScreen(
                    f"{self.path} has unsaved changes.",
                    [("save", "Save"), ("discard", "Discard"), ("cancel", "Cancel")],
                ),
                answered,
            )
            return
        self.open_file(event.path)

    def action_save(self) -> bool:
        if self.read_only or self.path is None:
            self.notify("read-only", severity="warning")
            return False
        text = self.editor.text
        try:
            write_atomic(self.path, text)
        except OSError as exc:
            self.notify(f"save failed, nothing was lost: {exc}", severity="error")
            return False
        self.editor.saved_text = text
        self.editor.border_title = str(self.path)
        self.notify(f"saved {self.path}", timeout=2)
        return True

    # ------------------------------------------------------------------ validation

    @on(TextArea.Changed, "#editor")
    def _edited(self, event: TextArea.Changed) -> None:
        self.editor.border_title = f"{self.path}{' ●' if self.editor.dirty else ''}"
        if self._validate_timer is not None:
            self._validate_timer.stop()
        self._validate_timer = self.set_timer(VALIDATE_DELAY_S, self.validate_now)

    def validate_now(self) -> None:
        if self.path is not None:
            self._validate(self.path, self.editor.text)

    @work(thread=True, exclusive=True, group="validate")
    def _validate(self, path: Path, text: str) -> None:
        result = validate_text(path, text)
        self.app.call_from_thread(self._validated, path, text, result)

    def _validated(self, path: Path, text: str, result: Validation) -> None:
        if path != self.path or text != self.editor.text:
            return  # stale: the buffer changed since
        self.validation = result
        self.query_one("#diagnostics", DiagnosticsList).show(result.diagnostics)
        self.editor.show_problems(result.diagnostics)
        errors = result.errors
        self.editor.border_subtitle = (
            f"line {errors[0].pos.line}: {errors[0].message.splitlines()[0]}" if errors else ""
        )
        if not self.live and not self.read_only and result.schedule is not None:
            self.timeline.set_steps(marks_from_schedule(result.schedule.steps))
            for record in self.records.values():
                self.timeline.set_record(record)
        if result.scenario is not None:
            self.term_size = (result.scenario.terminal.width, result.scenario.terminal.height)
            if not self.live:
                self.terminal.resize_screen(*self.term_size)
            store = golden_store(self.workbench.goldens_dir, result.scenario)
            if not self.read_only and (self._store is None or store.folder != self._store.folder):
                self._store = store  # read the goldens again only when the scenario or its terminal changed
                self.refresh_shots()

    @on(DiagnosticsList.Jump)
    def _jump(self, event: DiagnosticsList.Jump) -> None:
        self.editor.jump_to(event.diagnostic.pos.line, event.diagnostic.pos.col)

    def action_next_diagnostic(self) -> None:
        diagnostics = self.query_one("#diagnostics", DiagnosticsList).diagnostics
        if not diagnostics:
            self.notify("no problems")
            return
        self._diag_index = (self._diag_index + 1) % len(diagnostics)
        d = diagnostics[self._diag_index]
        self.editor.jump_to(d.pos.line, d.pos.col)
        self.notify(f"{d.pos.line}:{d.pos.col}: {d.message}", timeout=4,
                    severity="error" if d.severity == Severity.ERROR else "warning")  # fmt: skip

    @on(TextArea.SelectionChanged, "#editor")
    def _editor_cursor(self, event: TextArea.SelectionChanged) -> None:
        """The editor cursor selects the first step written at or after its line."""
        if not self.editor.has_focus or self.validation is None or self.validation.schedule is None:
            return
        line = event.selection.end[0] + 1
        marks, cursor = self.timeline.marks, self.timeline.cursor
        if 0 <= cursor < len(marks) and marks[cursor].line == line:
            return  # the cursor step is written here already (maybe the timeline moved the editor)
        step = self.validation.schedule.step_at_line(line)
        if step is not None and step.index < len(self.timeline.marks):
            self.timeline.cursor = step.index

    # ------------------------------------------------------------------ runs

    @property
    def speed(self) -> float | None:
        return SPEEDS[self.speed_index]

    def start_run(self, *, paused: bool) -> ScenarioRun | None:
        if self.read_only:
            self.notify("a recorded run is read-only", severity="warning")
            return None
        if self.path is None:
            return None
        if self.live:
            return self.run
        if self.editor.dirty and not self.action_save():
            return None
        app = self.workbench
        # ci=True: the engine never writes a golden for the app; a missing one is shown to be accepted.
        options = RunOptions(speed=self.speed, goldens_dir=app.goldens_dir, out_dir=app.out_dir, ci=True)
        run = ScenarioRun(self.path, options, observers=[ScreenObserver(self)])
        if paused:
            run.clock.pause()
        run.clock.add_listener(lambda state: self._clock_listener(run, state))
        self.run, self.result = run, None
        self.records.clear()
        self.follow = True
        self.timeline.reset_states()
        self.timeline.status = "starting…"
        self.browser.set_verdict(self.path, self._scenario_name(), "running")
        self._run_worker = self.run_worker(self._drive(run), group="run", exclusive=True, exit_on_error=False)
        return run

    def _clock_listener(self, run: ScenarioRun, state: ClockState) -> None:
        self.post_message(ClockChanged(run, state))

    _run_worker: Worker[None] | None = None

    async def stop_run(self) -> None:
        """Cancel a live run and wait for the engine's cleanup: its processes and workspace are gone after."""
        worker, self._run_worker = self._run_worker, None
        if worker is not None and not worker.is_finished:
            worker.cancel()
            with contextlib.suppress(WorkerCancelled, WorkerFailed, asyncio.CancelledError):
                await worker.wait()

    async def on_unmount(self) -> None:
        await self.stop_run()

    def _scenario_name(self) -> str:
        if self.validation is not None and self.validation.scenario is not None:
            return self.validation.scenario.name
        return self.path.stem if self.path else ""

    async def _drive(self, run: ScenarioRun) -> None:
        result = await run.run()
        if self.result is None and run is self.run:  # run_finished was not reached (should not happen)
            self.post_message(RunDone(run, result))

    @on(RunStarted)
    def _run_started(self, event: RunStarted) -> None:
        if event.run is not self.run:
            return
        run = event.run
        if run.schedule is not None:
            self.timeline.set_steps(marks_from_schedule(run.schedule.steps))
        if run.screen is not None:
            self.terminal.attach(run.screen)
        self.timeline.status = f"running: {run.run_dir}"

    @on(StepDone)
    def _step_done(self, event: StepDone) -> None:
        if event.run is not self.run:
            return
        record = event.record
        index = int(record["index"])
        self.records[index] = record
        self.timeline.set_record(record)
        if self.follow:
            self.timeline.cursor = index

    @on(ClockChanged)
    def _clock_changed(self, event: ClockChanged) -> None:
        if event.run is not self.run or self.result is not None:
            return
        state = event.state
        self.timeline.engine_step = state.step
        self._status()

    @on(RunDone)
    def _run_done(self, event: RunDone) -> None:
        if event.run is not self.run or self.result is not None:
            return
        result = event.result
        self.result = result
        self.terminal.detach()
        for failure in result.failures:
            if failure.step in self.records:
                self.timeline.set_state(failure.step, FAILED)
        self.timeline.engine_step = -1
        if result.failures:
            first = result.failures[0]
            self.notify(f"{result.status}: {first.message.splitlines()[0]}", severity="error", timeout=6)
        if self.path is not None:
            self.browser.set_verdict(self.path, result.name, result.status)
        self.refresh_shots()
        self._status()

    def _status(self) -> None:
        parts = [f"speed {speed_text(self.speed)}"]
        if self.read_only:
            parts.insert(0, f"read-only: {self.run_dir}")
        elif self.result is not None:
            parts.insert(0, f"{self.result.status}: {self.result.virtual_ms / 1000:g} s of virtual time")
        elif self.run is not None:
            state = self.run.clock.state
            parts.insert(0, f"{'paused' if state.paused else 'running'} at {state.now_ms} ms")
        else:
            parts.insert(0, "idle: F5 play, F8 step, F9 run to cursor")
        if not self.follow:
            parts.append("viewing a recorded step (F5/F8 to follow the run)")
        self.timeline.status = "  ·  ".join(parts)

    def action_play(self) -> None:
        self.follow = True
        if self.live:
            assert self.run is not None
            self.run.clock.resume()
            self.terminal.follow_live()
        else:
            self.start_run(paused=False)
        self._status()

    def action_pause(self) -> None:
        if self.live:
            assert self.run is not None
            self.run.clock.pause()
        self._status()

    # Actions that change a run or the file; a recorded run (workbench show) hides them.
    WRITING_ACTIONS = frozenset(
        {"play", "pause", "run_to_cursor", "restart", "slower", "faster", "save", "focus_mode",
         "accept_screenshot", "accept_all_screenshots", "compare_now"}
    )  # fmt: skip

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.read_only and action in self.WRITING_ACTIONS)

    def action_step(self) -> None:
        if not self.live:
            if self.read_only or (self.result is not None and not self.follow):
                self._view(min(self.timeline.cursor + 1, len(self.timeline.marks) - 1))
                return
            if self.start_run(paused=True) is None:
                return
        assert self.run is not None
        self.follow = True
        self.terminal.follow_live()
        self.run.clock.step()
        self._status()

    def action_step_back(self) -> None:
        target = (self.timeline.cursor if self.timeline.cursor >= 0 else len(self.timeline.marks)) - 1
        if target < 0:
            return
        self._view(target)

    def action_run_to_cursor(self) -> None:
        index = self.timeline.cursor
        if index < 0:
            self.notify("put the timeline cursor on a step first (ctrl+l, arrows)")
            return
        if not self.live and self.start_run(paused=True) is None:
            return
        assert self.run is not None
        self.follow = True
        self.terminal.follow_live()
        self.run.clock.run_to(index + 1)  # hold once the cursor step has run
        self._status()

    async def action_restart(self) -> None:
        if self.read_only:
            return
        await self.stop_run()
        self.terminal.detach()
        self.run, self.result = None, None
        self.start_run(paused=False)

    def action_slower(self) -> None:
        self.speed_index = max(0, self.speed_index - 1)
        self._apply_speed()

    def action_faster(self) -> None:
        self.speed_index = min(len(SPEEDS) - 1, self.speed_index + 1)
        self._apply_speed()

    def _apply_speed(self) -> None:
        if self.live and self.run is not None:
            self.run.clock.set_speed(self.speed)
        self._status()

    # ------------------------------------------------------------------ scrubbing

    @on(TimelineBar.CursorMoved)
    def _cursor_moved(self, event: TimelineBar.CursorMoved) -> None:
        self._view(event.index)

    def _view(self, index: int) -> None:
        """Show step ``index``: its recorded screen if it ran, and its line in the editor."""
        self.timeline.cursor = index
        marks = self.timeline.marks
        if 0 <= index < len(marks):
            line = marks[index].line
            if line > 0:
                row = min(line - 1, self.editor.document.line_count - 1)
                self.editor.move_cursor((row, 0), center=True)
        record = self.records.get(index)
        newest = max(self.records) if self.records else -1
        if self.live and index >= newest:
            self.follow = True
            self.terminal.follow_live()
        elif record is not None:
            self.follow = False if self.live else index == newest
            cursor = record.get("cursor") or (0, 0)
            self.terminal.show_recorded(list(record.get("screen", [])), (int(cursor[0]), int(cursor[1])),
                                        record.get("style"))  # fmt: skip
        self._status()

    # ------------------------------------------------------------------ recorded runs (workbench show)

    def open_run(self, run_dir: Path) -> None:
        try:
            trace = Trace.read(run_dir)
        except (OSError, ValueError) as exc:
            self.notify(f"cannot read the trace of {run_dir}: {exc}", severity="error", timeout=10)
            return
        header = trace.header
        profile = header.get("profile") or {}
        self.term_size = (int(profile.get("width", 80)), int(profile.get("height", 24)))
        self.terminal.resize_screen(*self.term_size)
        self.title = f"workbench show: {header.get('scenario', run_dir.name)}"
        self.browser.display = False
        source = Path(str(header.get("file", "")))
        if source.is_file():
            self.path = source
            self.editor.open_text(source, source.read_text(encoding="utf-8", errors="replace"))
            self.editor.border_title = f"{source} (read-only)"
        result = trace.result or {}
        failed = {int(f.get("step", -1)) for f in result.get("failures", [])}
        marks = marks_from_trace(trace.steps, failed)
        self.records.update({mark.index: record for mark, record in zip(marks, trace.steps, strict=True)})
        self.timeline.set_steps(marks)
        if marks:
            self._view(marks[-1].index)
        pairs = recorded_pairs(result.get("screenshots", []))
        self.diff.show_pairs(pairs, *self.term_size)
        status = result.get("status", "unfinished")
        self.timeline.status = (
            f"read-only: {run_dir}  ·  {status}  ·  {len(marks)} of {header.get('steps', '?')} steps"
        )

    # ------------------------------------------------------------------ screenshots

    def refresh_shots(self) -> None:
        if self._store is not None:
            self.diff.load(self._store, *self.term_size)

    @property
    def pairs(self) -> list[ShotPair]:
        return self.diff.pairs

    def action_toggle_pane(self) -> None:
        panes = self.query_one("#panes", TabbedContent)
        panes.active = "tab-shots" if panes.active == "tab-terminal" else "tab-terminal"

    def action_compare_now(self) -> None:
        """The highlighted golden against what a screenshot would capture now (masks applied); writes nothing."""
        pair = self.diff.current
        if pair is None or pair.golden is None:
            self.notify("highlight a screenshot that has a golden first", severity="warning")
            return
        width, height = self.term_size
        shot = Shot.from_text(self.terminal.text(), width, height)
        scenario = self.validation.scenario if self.validation is not None else None
        if scenario is not None:
            shot = mask_shot(shot, scenario.masks)
        now = ShotPair(
            pair.label, pair.golden_path, Path("(the screen now, not saved)"), pair.golden, shot.text()
        )
        self.show_shots()
        self.diff.show_now(now)

    def show_shots(self) -> None:
        self.query_one("#panes", TabbedContent).active = "tab-shots"

    def action_accept_screenshot(self) -> None:
        if self.read_only:
            self.notify("a recorded run is read-only: open the scenario to accept", severity="warning")
            return
        self.diff.accept_current()

    def action_accept_all_screenshots(self) -> None:
        if not self.read_only:
            self.diff.accept_all()

    # ------------------------------------------------------------------ focus

    def action_focus_mode(self) -> None:
        """Hand the keyboard to the program under test until ctrl+] (see TerminalView)."""
        if not self.live or not self.terminal.is_live:
            self.notify("no program is running: start a run first (F5 or F8)", severity="warning")
            return
        self.query_one("#panes", TabbedContent).active = "tab-terminal"
        self.terminal.enter_focus_mode()
        self.notify("keys go to the program now; ctrl+] gives them back", timeout=3)

    @on(TerminalView.Input)
    def _typed_into_program(self, event: TerminalView.Input) -> None:
        if self.run is None or not self.live or not self.run.send_input(event.data):
            self.terminal.action_leave_focus_mode()
            self.notify("the program has ended; focus mode is off", severity="warning")

    def action_focus_timeline(self) -> None:
        self.timeline.focus()

    def action_focus_browser(self) -> None:
        self.browser.focus()

    def action_focus_editor(self) -> None:
        self.editor.focus()

    def run_command(self, action: str) -> None:
        """For the command palette: run ``action_<action>`` of this screen (sync or async)."""
        self.call_later(self.run_action, action)
