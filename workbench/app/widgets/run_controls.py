"""The timeline pane with the run's keys: F5 play, F6 pause, F7/F8 step, F9 to cursor, Esc stop, ctrl+r, F2/F3.

The timeline is where a run is seen (its marks, its cursor, its status line), so
the keys that drive the run are its actions (``pane="RunControls"`` in the
actions table, working anywhere). They call the headless
:class:`workbench.app.core.session.SessionController`; the screen, as
:class:`RunHost`, passes in only what crosses panes: how to start and stop a
run (the open file, its validation, the app's options), how to show a step,
and the status line's redraw.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Protocol

from workbench.app.core.session import Event, SessionController
from workbench.app.screens.confirm import ConfirmScreen
from workbench.app.widgets.timeline import TimelineBar, marks_from_schedule
from workbench.scenario.diagnostics import count

if TYPE_CHECKING:
    from textual.timer import Timer

    from workbench.app.core.recording import InputRecorder
    from workbench.app.widgets.terminal import TerminalView
    from workbench.engine.acp_trace import GrowingMessages
    from workbench.engine.runner import ScenarioRun

TICK_S = 0.25  # how often the status line reads the virtual clock while it runs


class RunHost(Protocol):
    """What the run's keys need from the screen that hosts them."""

    PLANS_FROM_TEXT: bool  # False: a recorded run (workbench show), whose steps F8 walks through

    @property
    def session(self) -> SessionController: ...
    @property
    def result(self) -> object | None: ...  # the last run's result once the screen shows it

    recorder: InputRecorder | None  # focus mode's recording, dropped when the user stops the run anyway

    @property
    def terminal(self) -> TerminalView: ...
    def can_run(self) -> bool: ...  # False: the user has been told why not
    def start_run(self, *, paused: bool) -> ScenarioRun | None: ...
    async def stop_run(self) -> bool: ...
    def show_step(self, index: int) -> None: ...
    def show_status(self) -> None: ...


class RunControls(TimelineBar):
    """The timeline, owning the run's keys; see the module docstring."""

    def __init__(self, host: RunHost, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.host = host
        self._footer_state = (False, False)  # (live, paused) of the run the footer was last drawn for
        self._records_shown = 0  # how many of the session's records the marks show already
        self._acp: GrowingMessages | None = None  # the live ACP run's messages, read as they come
        self._ticking: Timer | None = None  # redraws the status while virtual time runs

    @property
    def session(self) -> SessionController:
        return self.host.session

    # ------------------------------------------------------------------ what the run shows here

    def show_event(self, event: Event) -> bool:
        """The timeline's part of a session event: the plan, the steps' states, the engine's step.

        True when a screenshot step ran since the last event: its capture is on disk now, to be shown."""
        session, run = self.session, self.session.run
        if event == "started" and run is not None and run.schedule is not None:
            self.set_steps(marks_from_schedule(run.schedule.steps))
            self._records_shown = 0
        elif event == "step":
            captured = self.show_new_records()
            self.show_acp()
            return captured
        elif event == "clock" and run is not None and session.live:
            self.engine_step = run.clock.state.step
        elif event == "finished" and session.result is not None:
            self.engine_step = -1
            for record in session.records.values():
                self.set_record(record)
            for failure in session.result.failures:
                if failure.step in session.records:
                    self.set_failed(failure.step)
            self.show_acp()
        return False

    def show_new_records(self) -> bool:
        """The steps recorded since the last step event: a long live run costs one mark per step, not all of them.

        The session's records arrive in step order (a dict keeps it), several per event when the
        screen is slower than the engine; a new run starts them again. True if one is a screenshot's.
        """
        records = self.session.records
        if len(records) < self._records_shown:
            self._records_shown = 0
        captured = False
        for record in itertools.islice(records.values(), self._records_shown, None):
            self.set_record(record)
            captured = captured or record.action == "screenshot"
        self._records_shown = len(records)
        return captured

    def show_acp(self) -> None:
        """A live ACP run's messages beside its steps, read from the run folder's acp.jsonl as it grows."""
        run = self.session.run
        if run is None or run.run_dir is None or not (run.run_dir / "acp.jsonl").is_file():
            return
        from workbench.engine.acp_trace import GrowingMessages, messages_by_step

        if self._acp is None or self._acp.path.parent != run.run_dir:  # a new run: its own file
            self._acp = GrowingMessages(run.run_dir)
        records = sorted(self.session.records.values(), key=lambda r: r.index)
        self.set_acp(messages_by_step(records, self._acp.read()))

    def show_run_status(self, *, recording: int | None, program_key: str = "") -> None:
        """The status line: what the run does and which keys go on, and while recording how many steps it has
        made so far (they go into the editor when it ends); the footer shows Stop only while a run goes on.
        ``program_key``: the key that shows the program, when the window shows another pane instead."""
        session = self.session
        text = session.status_text()
        if session.run is None:
            text = "idle: F5 play, F8 step, F9 run to cursor  ·  " + text.split("  ·  ", 1)[1]
        elif session.live and recording is None:  # while recording, Esc goes to the program
            text += "  ·  Esc stops"
        if session.live and program_key:
            text += f"  ·  {program_key}: the program"
        if recording is not None:
            text += f"  ·  ● recording: {count(recording, 'step')} so far"  # its keys: the terminal's border
        self.status = text
        self._tick_while_time_runs()
        # Esc and ctrl+c stop only a live run, F6 pauses only a running one: the footer says so
        footer_state = (session.live, session.run is not None and session.run.clock.paused)
        if footer_state != self._footer_state:
            self._footer_state = footer_state
            self.screen.refresh_bindings()

    def _tick_while_time_runs(self) -> None:
        """The status line's "running at N ms" moves during a long wait, a few times a second: the run is seen to
        be alive. Only while virtual time runs (not paused, not at max speed, where no wait lasts, nor after the
        run); a tick is one line of text, so the run does not go slower for it."""
        run, session = self.session.run, self.session
        runs = session.live and run is not None and not run.clock.paused and run.clock.speed is not None
        if runs and self._ticking is None:
            self._ticking = self.set_interval(TICK_S, self.host.show_status)
        elif not runs and self._ticking is not None:
            self._ticking.stop()
            self._ticking = None

    # ------------------------------------------------------------------ the keys

    def action_play(self) -> None:
        if self.session.play():
            self.host.terminal.follow_live()
        else:
            self.host.start_run(paused=False)
        self.host.show_status()

    def action_pause(self) -> None:
        self.session.pause()
        self.host.show_status()

    def action_step(self) -> None:
        if not self.session.live:
            recorded = self.host.result is not None and not self.session.follow
            if recorded or not self.host.PLANS_FROM_TEXT:  # a recorded step is shown: F8 shows the next one
                self.host.show_step(min(self.cursor + 1, len(self.marks) - 1))
                return
            if self.host.start_run(paused=True) is None:
                return
        self.session.step()
        self.host.terminal.follow_live()
        self.host.show_status()

    def action_step_back(self) -> None:
        target = (self.cursor if self.cursor >= 0 else len(self.marks)) - 1
        if target >= 0:
            self.host.show_step(target)

    def action_run_to_cursor(self) -> None:
        if not self.session.live and not self.host.can_run():  # why not comes before where to put the cursor
            return
        if self.cursor < 0:
            self.notify("put the timeline cursor on a step first (ctrl+l, arrows)")
            return
        if not self.session.live and self.host.start_run(paused=True) is None:
            return
        self.session.run_to(self.cursor)
        self.host.terminal.follow_live()
        self.host.show_status()

    async def action_stop(self) -> None:
        """Stop the live run, asking first when it would lose a recording."""
        if not self.session.live:
            return
        recorder = self.host.recorder
        if recorder is not None and recorder.steps():

            async def answered(choice: str | None) -> None:
                if choice == "stop":
                    self.host.recorder = None
                    await self.host.stop_run()

            self.app.push_screen(
                ConfirmScreen("Stopping loses the recording that is not in the editor yet. Stop?",
                              [("stop", "Stop and drop it"), ("cancel", "Keep running")]),
                answered,
            )  # fmt: skip
            return
        await self.host.stop_run()
        self.notify("run stopped: cancelled", timeout=2)

    async def action_restart(self) -> None:
        await self.host.stop_run()
        self.session.reset()
        self.host.start_run(paused=False)

    def action_slower(self) -> None:
        self.session.slower()

    def action_faster(self) -> None:
        self.session.faster()
