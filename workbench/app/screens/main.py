"""The main screen: it composes the panes and turns keys into calls of the session controller.

The run lifecycle (start, pause, step, stop, step records, speed, follow) lives
in :class:`workbench.app.core.session.SessionController`, which is
tested without Textual; this screen draws what it holds. Runs go through
:class:`workbench.engine.runner.ScenarioRun` on the app's loop. The layout comes
from :func:`workbench.app.layout.plan`: panes share the width, the terminal pane
is never narrower than the program's screen while the window allows, and a
narrow window shows one pane at a time with tabs.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, cast

from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, TabbedContent

from workbench.app.actions import MAIN_ACTIONS, bindings
from workbench.app.core.session import SPEEDS, Event, SessionController
from workbench.app.model import golden_store, last_result, last_verdicts
from workbench.app.screens.confirm import ConfirmScreen
from workbench.app.widgets.browser import ScenarioBrowser
from workbench.app.widgets.diff import ScreenshotDiff
from workbench.app.widgets.editor import ScenarioEditor
from workbench.app.widgets.editor_pane import EditorPane
from workbench.app.widgets.failures import FailuresList
from workbench.app.widgets.footer import StableFooter
from workbench.app.widgets.inspector import StepInspector
from workbench.app.widgets.run_controls import RunControls
from workbench.app.widgets.run_panes import RunPanes
from workbench.app.widgets.terminal import TerminalView
from workbench.app.widgets.terminal_recording import TerminalRecording
from workbench.app.widgets.timeline import TimelineBar, marks_from_schedule
from workbench.app.widgets.workspace import Workspace
from workbench.names import DEFAULT_SCENARIOS_DIR
from workbench.scenario.diagnostics import count

if TYPE_CHECKING:  # what the first frame does not need loads when it is used: the runner with the first run,
    # the schema and the loader with the first validation, the screen model with the first screen shown
    from workbench.app.app import WorkbenchApp
    from workbench.app.core.recording import InputRecorder
    from workbench.app.model import ShotPair, Validation
    from workbench.engine.report import Failure
    from workbench.engine.runner import ScenarioRun
    from workbench.engine.trace import StepRecord
    from workbench.scenario.diagnostics import Diagnostic
    from workbench.scenario.model import Scenario
    from workbench.terminal import GoldenStore, Shot

__all__ = ["SPEEDS", "MainScreen"]


class SessionChanged(Message):
    """The controller changed (a run event, the clock): redraw from its state on the UI's turn."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class MainScreen(Screen[None]):
    BINDING_GROUP_TITLE = "Workbench"
    BINDINGS: ClassVar[list[BindingType]] = [*bindings(MAIN_ACTIONS)]  # one table: keys, palette, help
    AUTO_FOCUS = "#editor"
    PLANS_FROM_TEXT = True  # the timeline and the goldens follow the editor's text (a recorded run's do not)

    def __init__(self, path: Path | None) -> None:
        super().__init__(id="main")
        self.root = path
        self.editor_pane = EditorPane(id="editor-pane")  # made here: the file's path and validation, at once
        self.workspace = Workspace(self.editor_pane, id="workspace")
        self.session = SessionController(listener=self._session_event)
        self.validation: Validation | None = None  # the open file's, once this screen has shown it
        self.term_size = (80, 24)
        self.recording = TerminalRecording(self)  # focus mode's keys, and alt+r's recording of them
        self._store: GoldenStore | None = None
        self._shown_result: object | None = None
        self.starting = True  # until the file list is loaded and the first file's validation started
        self._resumed = False
        self._recorded_failures: list[
            Failure
        ] = []  # a recorded run's (workbench show); a live run's: its result

    # ------------------------------------------------------------------ the controller's state, by name

    @property
    def path(self) -> Path | None:
        return self.editor_pane.path

    @property
    def run(self) -> ScenarioRun | None:
        return self.session.run

    @property
    def result(self) -> object | None:
        """The last run's result once this screen shows it.

        The controller has the result as soon as the engine ends; the screen hears of it by a message a moment
        later. Until then the panes, the verdict and the timeline still show the run as going, and so does this.
        """
        result = self.session.result
        return result if result is not None and result is self._shown_result else None

    @property
    def recorder(self) -> InputRecorder | None:
        return self.recording.recorder

    @recorder.setter
    def recorder(self, recorder: InputRecorder | None) -> None:
        self.recording.recorder = recorder

    @property
    def records(self) -> dict[int, StepRecord]:
        return self.session.records

    @property
    def live(self) -> bool:
        return self.session.live

    @property
    def speed(self) -> float | None:
        return self.session.speed

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header()
        yield self.workspace
        yield RunControls(self, id="timeline")
        yield StableFooter()

    @property
    def workbench(self) -> WorkbenchApp:
        return cast("WorkbenchApp", self.app)

    @property
    def editor(self) -> ScenarioEditor:
        return self.query_one("#editor", ScenarioEditor)

    @property
    def timeline(self) -> RunControls:
        return self.query_one("#timeline", RunControls)

    @property
    def terminal(self) -> TerminalView:
        return self.query_one("#terminal", TerminalView)

    @property
    def diff(self) -> ScreenshotDiff:
        return self.panes.diff  # mounted after the first frame: not found by a query before it

    @property
    def browser(self) -> ScenarioBrowser:
        return self.workspace.browser

    @property
    def failures(self) -> FailuresList:
        return self.query_one("#failures", FailuresList)

    @property
    def inspector(self) -> StepInspector:
        return self.panes.inspector

    @property
    def panes(self) -> RunPanes:
        return self.workspace.panes

    def retheme(self) -> None:
        """The theme changed: colours that widgets baked into their content are drawn again."""
        syntax = self.workbench.syntax_theme_for(self.app.theme)
        if syntax is not None:
            self.editor.register_theme(syntax)
            self.editor.theme = syntax.name
        self.diff.redraw()
        self.browser.refresh_labels()
        self.timeline.refresh()
        self.editor.refresh()

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """The first resume follows the compose, which styled every widget: Textual's restyle of the whole
        screen then would do it again (~8 ms before the first frame). Later resumes restyle as usual."""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    def on_mount(self) -> None:
        self.editor_pane.show_problems([])
        self.retheme()
        self.watch(self.workspace, "tabs", self._narrow)
        self.show_status()
        self.open_initial()

    def _narrow(self, tabs: bool) -> None:
        """One pane at a time: the header goes, the timeline shrinks and toasts hide (app.tcss)."""
        self.set_class(tabs, "-tabs")
        self.show_notice()
        self.show_status()

    def show_notice(self) -> None:
        """One pane at a time, the pane shown (the editor, the program) has the whole width: no toast may sit over
        it (app.tcss hides them), so the newest notice is said on the status line instead, for as long as its
        toast would have been shown (a hint until the next key). Side by side, toasts have a column of their own.
        """
        newest = None
        if self.workspace.tabs:
            newest = next((n for n in reversed(list(self.app._notifications)) if not n.has_expired), None)
        if newest is None:
            self.timeline.notice = None
            return
        message = newest.message
        if newest.markup:
            from textual.content import Content
            from textual.markup import MarkupError

            with contextlib.suppress(MarkupError):
                message = Content.from_markup(message).plain
        text = " ".join((f"{newest.title}: {message}" if newest.title else message).split())
        self.timeline.notice = (text, newest.severity)

    def open_initial(self) -> None:
        """The file or folder the app was started on (the show screen opens its recorded run instead).

        A file is shown at once; its neighbours are listed, and it is validated, after the first frame
        (the loader, the schema and YAML load with them)."""
        root = self.root if self.root is not None else DEFAULT_SCENARIOS_DIR
        if not root.exists() and not root.suffix:
            self.starting = False
            self.call_after_refresh(
                self.browser.offer_folder, root
            )  # the first minute: make one, from a template
            return
        folder = root if root.is_dir() else root.parent
        if root.is_file():
            self.open_file(root, validate=False)
            self.call_after_refresh(self._list_folder, folder, root)
            return
        self.starting = False
        self._list_folder(folder)
        first = self.browser.simplest() if root.is_dir() else None
        if first is not None:
            self.open_file(first)
            self.browser.select_path(first)
            if root.is_dir():
                self.workbench.notify_until_key(f"{first.name}: F5 runs it, F8 steps, F1 help",
                                                title="Welcome")  # fmt: skip
        elif not root.exists() and root.suffix:
            self.open_file(root)  # a new file: author it from empty (the browser lists its folder)
        else:
            self.notify(f"no scenario files under {root}: ctrl+n makes one", severity="warning")

    def _list_folder(self, folder: Path, opened: Path | None = None) -> None:
        """List the scenarios under ``folder`` with their last verdicts, and validate ``opened``."""
        self.browser.list_folder(folder, last_verdicts(self.workbench.out_dir))
        if opened is not None:
            self.browser.select_path(opened)
            if self.path == opened and self.validation is None:
                self.editor_pane.validate_now()
        self.starting = False

    # ------------------------------------------------------------------ files

    def open_file(self, path: Path, *, validate: bool = True) -> None:
        """Open ``path`` with a clean slate: the last file's run, timeline, terminal and status are gone."""
        try:
            text = path.read_text(encoding="utf-8") if path.exists() else ""
        except OSError as exc:
            self.notify(f"cannot open {path}: {exc}", severity="error")
            return
        if not self.live:
            self.session.reset()
        self._store = None
        self.validation = None
        self.title = f"workbench: {path}"
        self.timeline.set_steps([])
        self.timeline.cursor = -1
        self.terminal.detach()
        self.terminal.clear()
        self.failures.show([], None)
        self.inspector.show(None)
        self.diff.store = None  # accepting writes into this file's goldens only once they are known
        self.diff.show_pairs([], *self.term_size)
        self.editor_pane.open(path, text, validate=validate)
        self.show_status()

    @on(ScenarioBrowser.Opened)
    def _opened(self, event: ScenarioBrowser.Opened) -> None:
        self.request_open(event.path)

    def request_open(self, path: Path) -> None:
        """Open another file, asking first when a run would be stopped or edits lost."""
        if self.path is not None and path.resolve() == self.path.resolve():
            self.workspace.show_view("editor")
            self.editor.focus()
            return
        if self.live:

            async def stop_then(choice: str | None) -> None:
                if choice == "stop":
                    stopped, name = self.path, self._scenario_name()
                    await self.stop_run()
                    if stopped is not None:  # its finished message comes after the next file is open
                        self.browser.set_verdict(stopped, name, "cancelled")
                    self.request_open(path)

            self.app.push_screen(
                ConfirmScreen(f"A run of {self.path} is going on. Stop it and open {path}?",
                              [("stop", "Stop the run and open"), ("cancel", "Keep running")]),
                stop_then,
            )  # fmt: skip
            return
        if self.editor.dirty:

            def answered(choice: str | None) -> None:
                if choice == "save" and not self.editor_pane.save():
                    return
                if choice in ("save", "discard"):
                    self.open_file(path)

            self.app.push_screen(
                ConfirmScreen(f"{self.path} has unsaved changes.",
                              [("save", "Save"), ("discard", "Discard"), ("cancel", "Cancel")]),
                answered,
            )  # fmt: skip
            return
        self.open_file(path)
        self.workspace.show_view("editor")

    def action_record_session(self) -> None:
        """`workbench record` with the upstream and the open scenario's command filled in; the recording opens
        as soon as it is written."""
        from workbench.app.screens.record import record_session

        record_session(self)

    @on(EditorPane.Saved)
    def _saved(self, event: EditorPane.Saved) -> None:
        self.browser.add_file(event.path)

    @on(EditorPane.Validated)
    def _validated(self, event: EditorPane.Validated) -> None:
        self.validation = event.result
        with contextlib.suppress(NoMatches):  # the app is closing: the panes are gone already
            self._show_validation(event.result)

    def _show_validation(self, result: Validation) -> None:
        scenario = result.scenario
        if scenario is not None and scenario.format == "claudeless":
            self.failures.show_rules(scenario)
            self.workspace.show_view("failures" if self.workspace.tabs else self.workspace.view_name)
            self.panes.active = "tab-failures"
        if not self.live and self.PLANS_FROM_TEXT and result.schedule is not None:
            self.timeline.set_steps(marks_from_schedule(result.schedule.steps))
            for record in self.records.values():
                self.timeline.set_record(record)
        if scenario is not None:
            size = (scenario.terminal.width, scenario.terminal.height)
            if size != self.term_size:
                self.term_size = size
                self.workspace.program_width = size[0]
                self.workspace.apply_layout()
            if not self.live:
                self.terminal.resize_screen(*self.term_size)
            store = golden_store(self.workbench.goldens_dir, self.workbench.out_dir, scenario)
            if self.PLANS_FROM_TEXT and (self._store is None or store.folder != self._store.folder):
                self._store = store  # read the goldens again only when the scenario or its terminal changed
                self.refresh_shots()
                if not self.live and self.session.result is None:
                    self._show_last_run(scenario)

    def _show_last_run(self, scenario: Scenario) -> None:
        """A file opened after a run of it (`workbench run`, or the app before) that failed: its failures are
        listed as that run left them, so a failing scenario says why at once (F12; Enter on a screenshot's: its
        golden and actual, to accept). The next run's replace them."""
        from workbench.app.core.session import failures_from_json

        result = last_result(self.workbench.out_dir, scenario)
        failures = failures_from_json(result) if result is not None else []
        if result is None or not failures:
            return
        status = str(result.get("status", "?"))
        self.failures.show(failures, f"last run: {status}")
        if self.workspace.tabs:  # one pane at a time: the editor stays, the status line says it
            self.workbench.notify_until_key(f"{count(len(failures), 'failure')}: F12 lists them",
                                            title=f"Last run {status}", severity="warning")  # fmt: skip
        else:  # beside the editor, where the program shows once it runs; a welcome would sit over it
            self.panes.show("failures")
            self.workbench.drop_until_key()

    @on(EditorPane.StepChosen)
    def _step_chosen(self, event: EditorPane.StepChosen) -> None:
        """The editor cursor is on a step's lines: the timeline selects it (unless it is at that line)."""
        marks, cursor = self.timeline.marks, self.timeline.cursor
        line = self.editor.cursor_location[0] + 1
        index = event.index
        if self.live:  # the run's steps are those of the file it started from: the step is found by its line
            index = next((mark.index for mark in marks if mark.line == event.line), -1)
        if 0 <= index < len(marks) and not (0 <= cursor < len(marks) and marks[cursor].line == line):
            self.timeline.cursor = index

    # ------------------------------------------------------------------ runs

    def start_run(self, *, paused: bool) -> ScenarioRun | None:
        if self.path is None:
            return None
        if self.live:
            return self.run
        if not self.can_run():
            return None
        if self.editor.dirty and not self.editor_pane.save():
            return None
        options = self.workbench.run_options(self.speed)
        self.timeline.reset_states()
        self.failures.show([], "running")
        if self.panes.active == "tab-failures":  # the last run's failures are gone: the program comes forward
            self.workspace.show_view("terminal")
        run = self.session.start(self.path, options, paused=paused)
        self.timeline.status = "starting…"
        self.browser.set_verdict(self.path, self._scenario_name(), "running")
        return run

    def can_run(self) -> bool:
        """Whether the editor's text can run now; if not, the user is told why (the keyboard stays where it was).

        Text that does not load would only fail to load: the first error is named by line and column instead."""
        from workbench.engine.drivers import mode_of  # the engine loads with the first run

        validation = self.editor_pane.current_validation()
        if validation is None:
            return False
        if validation.errors:
            self._say_not_run(validation.errors)
            return False
        scenario = validation.scenario
        if (
            scenario is not None
            and scenario.format == "claudeless"
            and not mode_of(self.workbench.mode).accepts_rules
        ):
            self.notify("Claudeless rules answer a real agent: run them with --mode real-agent",
                        severity="warning")  # fmt: skip
            return False
        return True

    def _say_not_run(self, errors: list[Diagnostic]) -> None:
        first = errors[0]
        more = f" (and {count(len(errors) - 1, 'more error')})" if len(errors) > 1 else ""
        self.notify(f"line {first.pos.line}, column {first.pos.col}: {first.message}{more}; F4 goes there",
                    title="Not run: the scenario does not load", severity="error", timeout=8, markup=False)  # fmt: skip

    async def stop_run(self) -> bool:
        """Cancel a live run and wait for the engine's cleanup (processes and workspace gone)."""
        stopped = await self.session.stop()
        self.terminal.detach()
        return stopped

    async def on_unmount(self) -> None:
        await self.session.stop()

    def _scenario_name(self) -> str:
        if self.validation is not None and self.validation.scenario is not None:
            return self.validation.scenario.name
        return self.path.stem if self.path else ""

    def _session_event(self, event: Event) -> None:
        self.post_message(SessionChanged(event))

    @on(SessionChanged)
    def _session_changed(self, message: SessionChanged) -> None:
        with contextlib.suppress(NoMatches):  # the app is closing: the panes are gone already
            self._show_session(message.event)

    def _show_session(self, event: Event) -> None:
        session = self.session
        run = session.run
        if self.timeline.show_event(event):  # a screenshot step ran: its golden and actual as they are now
            self.refresh_shots()
        if event == "started" and run is not None and run.screen is not None:
            self.terminal.attach(run.screen)
        elif event == "step":
            if run is not None and len(failures := run.failures_so_far()) != len(self.failures.failures):
                self.failures.show(failures, "so far")  # F12 on a step just turned red: why, at once
            if session.follow and session.records:
                self.timeline.cursor = session.newest
                self.editor.show_step_line(self._step_line(session.newest), move_cursor=False)
                self._inspect()
            self.recording.step_ran()
        elif event == "finished":
            self.recording.run_ended()
            self._run_done()
        self.show_status()

    def _run_done(self) -> None:
        result = self.session.result
        if result is None:
            return  # that run was stopped and forgotten (another file opened) before this message came
        self.terminal.detach()
        self.failures.show(result.failures, result.status, result.skip_reason)
        self._inspect()
        if result.status == "skipped" and result.skip_reason:
            self.workbench.notify_until_key(f"skipped: {result.skip_reason}", severity="warning", timeout=6)
        elif result.failures:
            self.workbench.notify_until_key(f"{result.status}: {count(len(result.failures), 'failure')}: see the "
                                            "Failures pane (F12)", severity="error", timeout=4)  # fmt: skip
        if self.path is not None:
            self.browser.set_verdict(self.path, result.name, result.status)
        self.refresh_shots()
        self._shown_result = result

    def show_status(self) -> None:
        recorder, pending = self.recorder, self.recording.pending  # pending: alt+r's fresh run is starting
        program_key = ""
        if self.workspace.tabs and self.workspace.view_name != "terminal":  # a run's program is out of sight
            program_key = self.workbench.keys_of("view('terminal')").split(", ")[
                -1
            ]  # the key that works anywhere
        self.timeline.show_run_status(recording=len(recorder.steps()) if recorder else 0 if pending else None,
                                      program_key=program_key)  # fmt: skip

    @on(Workspace.ViewShown)
    def _view_shown(self) -> None:
        self.show_status()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pane" and parameters[1] == "stop":  # Esc and ctrl+c stop a run, else keep their meaning
            return self.live and not self.editor_pane.find_bar.has_focus
        if action == "pane" and parameters[1] == "pause":  # F6 holds a run that goes on; else it did nothing
            return self.live and self.session.run is not None and not self.session.run.clock.paused
        return True

    # ------------------------------------------------------------------ scrubbing

    @on(TimelineBar.CursorMoved)
    def _cursor_moved(self, event: TimelineBar.CursorMoved) -> None:
        self.show_step(event.index)

    def _step_line(self, index: int) -> int:
        """The 1-based scenario line of step ``index`` (0: none)."""
        marks = self.timeline.marks
        return marks[index].line if 0 <= index < len(marks) else 0

    def show_step(self, index: int) -> None:
        """Show step ``index``: its recorded screen if it ran, and its line in the editor."""
        self.timeline.cursor = index
        self.editor.show_step_line(self._step_line(index), move_cursor=True)
        record = self.session.view(index)
        if record is None and self.live:
            self.terminal.follow_live()
        elif record is not None:
            self.terminal.show_recorded(record.screen, record.cursor, record.style)
        self._inspect()
        self.show_status()

    @on(FailuresList.Jump)
    def _failure_jump(self, event: FailuresList.Jump) -> None:
        """A failure chosen in the list: its step is shown, and the pane that tells more takes the keyboard (the
        failures list is hidden then): a screenshot's golden and actual with its capture highlighted, so `a`
        accepts it at once; else the step inspector (PgDn scrolls it); a failure no recorded step shows (an
        `expect`, one of the last run's) its line in the editor; the terminal if it has none."""
        failure = event.failure
        if failure.step in self.records or 0 <= failure.step < len(self.timeline.marks):
            self.show_step(failure.step)
        label = self._screenshot_label(failure)
        if label is not None and any(pair.label == label for pair in self.diff.pairs):
            self.diff.show_pairs(self.diff.pairs, *self.term_size, select=label)
            self.workspace.action_view("shots")
        elif failure.step in self.records:
            self.workspace.action_view("step")
            self._inspect()
        elif failure.line > 0:
            self.editor.jump_to(failure.line)
            self.workspace.action_view("editor")
        else:
            self.workspace.action_view("terminal")

    def _screenshot_label(self, failure: Failure) -> str | None:
        """The label of the screenshot step a failure is about (None for any other failure)."""
        from workbench.scenario.model import Screenshot

        run, validation = self.run, self.validation
        schedule = (
            run.schedule if run is not None else validation.schedule if validation is not None else None
        )
        steps = schedule.steps if failure.kind == "screenshot" and schedule is not None else ()
        event = next((step.event for step in steps if step.index == failure.step), None)
        return event.label if isinstance(event, Screenshot) else None

    @property
    def inspected_run_dir(self) -> Path | None:
        """The run folder whose messages the inspector reads: the live or last run's."""
        return self.run.run_dir if self.run is not None else None

    def _inspect(self, force: bool = False) -> None:
        """Draw the timeline cursor's step (or the newest) in the inspector, when the inspector is shown."""
        if not force and self.panes.active != "tab-step":
            return
        marks = self.timeline.marks
        index = self.timeline.cursor if self.timeline.cursor >= 0 else self.session.newest
        failures = list(getattr(self.session.result, "failures", None) or self._recorded_failures)
        self.inspector.inspect(index, marks, self.records, failures=failures, scenario_text=self.editor.text,
                               size=self.term_size, run_dir=self.inspected_run_dir)  # fmt: skip

    @on(StepInspector.Wanted)
    def _inspect_wanted(self) -> None:
        self._inspect(force=True)

    @on(TabbedContent.TabActivated, "#panes")
    def _pane_tab(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-step":
            self._inspect(force=True)

    # ------------------------------------------------------------------ screenshots

    def refresh_shots(self) -> None:
        if self._store is not None:
            self.diff.load(self._store, *self.term_size)

    @property
    def pairs(self) -> list[ShotPair]:
        return self.diff.pairs

    def shot_now(self) -> Shot:
        """What a screenshot step would capture now: the program's screen, with the scenario's masks."""
        from workbench.scenario.masks import scenario_masks
        from workbench.terminal import Shot
        from workbench.terminal.masks import mask_shot

        shot = Shot.from_text(self.terminal.text(), *self.term_size)
        scenario = self.validation.scenario if self.validation is not None else None
        return mask_shot(shot, scenario_masks(scenario)) if scenario is not None else shot

    def action_compare_now(self) -> None:
        """The screenshot pane compares its highlighted golden with what a screenshot would capture now."""
        if self.diff.compare_now(self.shot_now()):
            self.workspace.show_view("shots")

    # ------------------------------------------------------------------ focus, panes

    def action_record(self) -> None:
        """Focus mode that writes what is typed as scenario steps at the editor's cursor when it ends."""
        self.recording.start()

    @on(TerminalView.Input)
    def _typed_into_program(self, event: TerminalView.Input) -> None:
        self.recording.typed(event.data)

    @on(TerminalView.ScreenshotRequested)
    def _record_screenshot(self, event: TerminalView.ScreenshotRequested) -> None:
        self.recording.screenshot()

    @on(TerminalView.FocusModeLeft)
    def _focus_mode_left(self, event: TerminalView.FocusModeLeft) -> None:
        self.recording.focus_mode_left()

    def action_focus_timeline(self) -> None:
        self.timeline.focus()

    def action_maximize_pane(self) -> None:
        """The focused pane fills the screen; again restores the layout."""
        if self.maximized is not None:
            self.minimize()
            return
        focused = self.focused
        if focused is None:
            return
        target: Widget = focused
        for ancestor in focused.ancestors:
            if isinstance(ancestor, ScreenshotDiff):
                target = ancestor
        self.maximize(target, container=False)

    def run_command(self, action: str, pane: str = "") -> None:
        """For the command palette: run ``action_<action>`` of this screen, or of the pane that owns it."""
        self.call_later(self.run_action, f"pane({pane!r}, {action!r})" if pane else action)

    async def action_pane(self, pane: str, action: str) -> None:
        """Bring forward the pane of widget class ``pane`` and run its ``action`` (a pane's keys anywhere)."""
        widget = self.query_one(pane)
        view = getattr(widget, "VIEW", "")
        if view and (view != "browser" or self.workspace.tabs):
            self.workspace.show_view(view)
        await widget.run_action(action)
