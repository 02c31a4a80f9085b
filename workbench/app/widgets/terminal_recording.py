"""The terminal pane's focus mode and recording (alt+r): what is typed reaches the program and becomes steps.

The terminal pane posts what is typed in focus mode, a screenshot request
(ctrl+\\) and the end of focus mode; this object, which the screen owns and
forwards those messages to, sends the keys to the live run and, while
recording, feeds them to the headless :class:`workbench.app.core.recording.InputRecorder`,
whose steps go into the editor when focus mode ends. alt+r with no run going
starts a fresh one, held after its first step, and records from there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.app.model import golden_store
from workbench.scenario.diagnostics import count

if TYPE_CHECKING:
    from workbench.app.core.recording import InputRecorder
    from workbench.app.screens.main import MainScreen


class TerminalRecording:
    """Focus mode's keys and the recording of them, for ``host`` (the main screen and its panes)."""

    def __init__(self, host: MainScreen) -> None:
        self.host = host
        self.recorder: InputRecorder | None = None
        self.pending = False  # alt+r started a fresh run: recording begins after its first step

    def start(self) -> None:
        """Focus mode that writes what is typed as scenario steps at the editor's cursor when it ends."""
        host = self.host
        if not host.live:  # idle or after a run: a fresh run, held after its first step, as F8 starts one
            if host.start_run(paused=True) is None:
                return
            host.session.step()
            self.pending = (
                True  # the status line says recording is on (with no steps yet): no toast over the program
            )
            host.show_status()
            return
        if not host.terminal.is_live:
            host.notify("the program has no screen to record yet", severity="warning")
            return
        self.pending = False
        marks, editor = host.timeline.marks, host.editor
        if host.records:  # what is typed now happens after the newest step: the steps go after it
            editor.move_to_block_end(editor.step_start(marks[host.session.newest].line - 1))
        elif marks and marks[0].line > 1:  # before the first step: right after the line above it
            row = marks[0].line - 2
            editor.move_cursor((row, len(editor.document.get_line(row))))
        from workbench.app.core.recording import InputRecorder
        from workbench.engine.agent_requests import RequestLogReader, request_log
        from workbench.engine.drivers import mode_of

        taken = sum(1 for line in editor.text.splitlines() if "screenshot: recorded-" in line)
        requests = None  # a real agent's requests to the mock LLM become llmResponse steps at their place
        run = host.run
        if run is not None and mode_of(run.mode).logs_model_requests and run.run_dir is not None:
            requests = RequestLogReader(request_log(run.run_dir))
        # labels go on from those in the file; a real agent's inputs are prompts, one per Enter
        self.recorder = InputRecorder(shots=taken, requests=requests, prompts=requests is not None)
        host.terminal.recording = True
        host.workspace.show_view("terminal")
        host.terminal.action_focus_mode()
        host.show_status()

    def step_ran(self) -> None:
        """A step of the run ran: a recording asked for before the run's first step starts now."""
        session = self.host.session
        if self.pending and session.records and session.live and self.host.terminal.is_live:
            self.start()

    def run_ended(self) -> None:
        if self.pending:
            self.pending = False
            self.host.notify("the run ended before its first step: nothing to record", severity="warning")

    def typed(self, data: bytes) -> None:
        """Keys typed in focus mode: to the program, and to the recording."""
        run = self.host.run
        if run is None or not self.host.live or not run.send_input(data):
            self.host.terminal.action_leave_focus_mode()
            self.host.notify("the program has ended; focus mode is off", severity="warning")
            return
        if self.recorder is not None:
            self.recorder.typed(data)
            self.host.show_status()  # how many steps so far

    def screenshot(self) -> None:
        """A screenshot step here, and what the screen shows now as its golden (the user saw it and asked)."""
        if self.recorder is None:
            return
        host = self.host
        label = self.recorder.screenshot()
        host.show_status()
        scenario = host.validation.scenario if host.validation is not None else None
        if scenario is None:
            host.notify(
                f"screenshot step `{label}` recorded (no golden: the scenario does not load)", timeout=3
            )
            return
        try:
            golden = golden_store(host.workbench.goldens_dir, host.workbench.out_dir, scenario).accept(
                label, host.shot_now()
            )
        except OSError as exc:
            host.notify(f"screenshot step `{label}` recorded; its golden could not be written: {exc}",
                        severity="error")  # fmt: skip
            return
        host.notify(f"screenshot step `{label}` recorded, golden {golden}", timeout=3)

    def focus_mode_left(self) -> None:
        """Focus mode ended: the recorded steps go into the editor at its cursor."""
        host = self.host
        recorder, self.recorder = self.recorder, None
        host.terminal.recording = False
        if recorder is not None and recorder.steps():
            row = host.editor.cursor_location[0]
            yaml = recorder.yaml(indent=host.editor.step_indent(row))
            host.workspace.show_view("editor")  # first: the editor scrolls to the steps with its own width
            host.editor.insert_steps(yaml)
            if host.live:  # the run goes on with the steps it started with, now further down the file
                host.timeline.lines_inserted(row + 1, yaml.count("\n"))
            steps = len(recorder.steps())
            host.notify(f"recorded {count(steps, 'step')} into the editor; ctrl+s saves"
                        + ("; they run from the next run on (ctrl+r restarts)" if host.live else ""),
                        timeout=4)  # fmt: skip
        host.show_status()
