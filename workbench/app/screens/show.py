"""The show screen: a recorded run (``workbench show RUN``), read-only.

It is the main screen without what changes a file or starts a run: the steps,
screens, failures, screenshots and the step inspector come from the run's trace;
F7/F8 move through its steps. Keys that would write are hidden (and do nothing).
"""

from __future__ import annotations

from pathlib import Path

from workbench.app.core.session import RecordedRun
from workbench.app.model import recorded_pairs
from workbench.app.screens.main import MainScreen
from workbench.app.widgets.timeline import marks_from_records

# Actions that change a run or the file: a recorded run has none of them.
WRITING_ACTIONS = frozenset(
    {"play", "pause", "run_to_cursor", "restart", "slower", "faster", "save", "focus_mode", "record",
     "compare_now", "stop", "new_scenario"}
)  # fmt: skip


class ShowScreen(MainScreen):
    """A recorded run folder, read-only."""

    PLANS_FROM_TEXT = False

    def __init__(self, run_dir: Path) -> None:
        super().__init__(None)
        self.run_dir = run_dir
        self.workspace.browser_mode = "hidden"  # one run, not a folder of scenarios

    def open_initial(self) -> None:
        self.open_run(self.run_dir)
        self.starting = False

    @property
    def inspected_run_dir(self) -> Path | None:
        return self.run_dir

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if (parameters[1] if action == "pane" else action) in WRITING_ACTIONS:  # a pane's action anywhere
            return False
        return super().check_action(action, parameters)

    def show_status(self) -> None:
        """The status line says which run this is (set when it is read); nothing runs here."""

    def can_run(self) -> bool:
        self.notify("a recorded run is read-only", severity="warning")
        return False

    def start_run(self, *, paused: bool) -> None:
        self.can_run()

    def open_run(self, run_dir: Path) -> None:
        try:
            recorded = RecordedRun.read(run_dir)
        except (OSError, ValueError, KeyError) as exc:
            self.notify(f"cannot read the trace of {run_dir}: {exc}", severity="error", timeout=10)
            return
        self.term_size = recorded.size
        self.terminal.resize_screen(*self.term_size)
        self.workspace.program_width = self.term_size[0]
        self.workspace.apply_layout()
        self.title = f"workbench show: {recorded.scenario}"
        if recorded.file is not None and recorded.file.is_file():
            self.editor_pane.show_recorded(
                recorded.file, recorded.file.read_text(encoding="utf-8", errors="replace")
            )
        self.session.load_recorded(recorded)
        failed = {f.step for f in recorded.failures}
        from workbench.engine.acp_trace import step_messages  # here: only ACP runs need it

        marks = marks_from_records(recorded.steps, failed, step_messages(run_dir, recorded.steps))
        self.timeline.set_steps(marks)
        if marks:
            self.show_step(marks[-1].index)
        self.diff.show_pairs(recorded_pairs(recorded.screenshots), *self.term_size)
        self.failures.show(recorded.failures, recorded.status)
        self._recorded_failures = list(recorded.failures)
        # the verdict first and the folder last: a narrow window cuts the end of the line
        self.timeline.status = (f"read-only  ·  {recorded.status}  ·  {len(marks)} of {recorded.total_steps} "
                                f"steps  ·  F7/F8 step  ·  {run_dir}")  # fmt: skip
