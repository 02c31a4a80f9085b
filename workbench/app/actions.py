"""The main screen's actions, once: its key bindings, the command palette and the help rows come from here.

Each :class:`Action` names the screen's action, its default keys (remappable by
its id in the keymap file), the short label the footer and the help screen show,
and, for the palette, its ``category: name`` and one line of help. An action
with no keys is reached from the palette only; one with no palette title from
its keys only. An action a pane owns names that pane's widget class in
``pane``: its keys work while that pane has the focus, or, with ``anywhere``,
in every pane (the screen brings the pane forward and runs the action there, as
the palette does). Adding a command is one line here and its ``action_`` method
on the screen or on its pane.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

# The panes, in the order of their number keys (1-6, alt+1-6 anywhere); a narrow window shows one at a time,
# under tabs with these labels. Each pane's widget names its view in ``VIEW``.
VIEWS = ("browser", "editor", "terminal", "step", "shots", "failures")
VIEW_LABELS = ("Scenarios", "Editor", "Terminal", "Step", "Screenshots", "Failures")


@dataclass(frozen=True)
class Action:
    action: str  # the screen's action, with its arguments: "view('step')"
    keys: str  # default keys, comma-separated ("" = the palette only)
    label: str  # the footer's and the help screen's word for it
    binding_id: str  # the keymap file's name for the binding
    palette: str = ""  # "category: name" in the command palette ("" = not there)
    help: str = ""  # the palette's line of help
    show: bool = False  # in the footer
    priority: bool = False  # works whichever pane has the focus (the run's keys)
    pane: str = ""  # the widget class that owns the action ("" = the main screen)
    anywhere: bool = False  # a pane's action whose keys work in every pane

    @property
    def target(self) -> str:
        """What the screen's binding runs: the action, or for a pane's action anywhere, the pane runs it."""
        return f"pane({self.pane!r}, {self.action!r})" if self.pane and self.anywhere else self.action

    @property
    def name(self) -> str:
        """The action's method name (``view`` for ``view('step')``)."""
        return self.action.split("(")[0]


MAIN_ACTIONS: tuple[Action, ...] = (
    Action("play", "f5", "Play", "play", "run: play", "start a run, or resume a paused one", True, True,
           pane="RunControls", anywhere=True),
    Action("pause", "f6", "Pause", "pause", "run: pause", "hold the engine at its virtual clock", True, True,
           pane="RunControls", anywhere=True),
    Action("step_back", "f7", "Back", "step-back", "run: step back", "show the recorded screen of the previous step",
           True, True, pane="RunControls", anywhere=True),
    Action("step", "f8,f10", "Step", "step", "run: step", "let exactly one step run (F10: step over, as in debuggers)",
           True, True, pane="RunControls", anywhere=True),
    Action("run_to_cursor", "f9", "To cursor", "run-to-cursor", "run: run to cursor",
           "run until the timeline cursor's step has run", True, True,
           pane="RunControls", anywhere=True),
    Action("stop", "escape", "Stop", "stop", "run: stop", "stop the run (it is recorded as cancelled)", True, True,
           pane="RunControls", anywhere=True),
    Action("stop", "ctrl+c", "Stop", "stop-ctrl-c", priority=True, pane="RunControls", anywhere=True),
    Action("save", "ctrl+s", "Save", "save", "file: save", "save the scenario (atomically)", True,
           pane="EditorPane", anywhere=True),
    Action("restart", "ctrl+r", "Restart", "restart", "run: restart", "stop the run and start again",
           pane="RunControls", anywhere=True),
    Action("slower", "f2", "Slower", "slower", "run: slower", "lower the speed", priority=True,
           pane="RunControls", anywhere=True),
    Action("faster", "f3", "Faster", "faster", "run: faster", "raise the speed (0.25x .. max)", priority=True,
           pane="RunControls", anywhere=True),
    Action("next_diagnostic", "f4", "Next problem", "next-diagnostic", "editor: next problem",
           "jump to the next diagnostic", priority=True, pane="EditorPane", anywhere=True),
    Action("toggle_pane", "ctrl+t", "Terminal/Shots", "toggle-pane", "view: terminal / screenshots",
           "switch the right pane", pane="Workspace", anywhere=True),
    Action("focus_mode", "ctrl+g", "Keys to program", "focus-mode", "terminal: focus mode",
           "send every key to the program under test (ctrl+] leaves)", pane="TerminalView", anywhere=True),
    Action("record", "alt+r", "Record", "record", "terminal: record",
           "focus mode that writes what you type as steps after the step that ran last", priority=True),
    Action("maximize_pane", "ctrl+o", "Maximize", "maximize", "view: maximize pane",
           "the focused pane fills the screen (again: back)"),
    Action("new_scenario", "ctrl+n", "New", "new-scenario", "file: new scenario", "a new scenario file from a template",
           pane="ScenarioBrowser", anywhere=True),
    Action("record_session", "", "Record", "", "file: record a session",
           "a real agent through a recording proxy into a new scenario (workbench record), opened when written"),
    Action("focus_timeline", "ctrl+l", "Timeline", "focus-timeline", "view: timeline", "focus the timeline scrubber"),
    Action("toggle_browser", "ctrl+b", "Browser", "toggle-browser", "view: show/hide scenarios", "the scenario list",
           pane="Workspace", anywhere=True),
    Action("focus_editor", "ctrl+e", "Editor", "focus-editor", "view: editor", "focus the editor",
           pane="Workspace", anywhere=True),
    Action("open", "f12", "Failures", "show-failures", "view: failures", "every failure of the last run",
           priority=True, pane="FailuresList", anywhere=True),
    Action("inspect", "f11", "Inspect step", "inspect-step", "view: inspect step",
           "the selected step in full: event, checks, files, screens, messages", priority=True,
           pane="StepInspector", anywhere=True),
    Action("find", "ctrl+f", "Find", "find", "editor: find / go to line", "find text, or :N for line N",
           pane="EditorPane", anywhere=True),
    Action("complete", "ctrl+space,ctrl+@", "Complete", "complete", "editor: complete",  # a terminal sends ^@
           "the events, keys and values the scenario format allows at the cursor", pane="EditorPane",
           anywhere=True),
    *(Action(f"view('{name}')", f"{n},alt+{n}", label, f"view-{name}", f"view: pane {n} {label.lower()}",
             f"bring the {label.lower()} forward", pane="Workspace", anywhere=True) for n, (name, label) in
      enumerate(zip(VIEWS, VIEW_LABELS, strict=True), start=1)),
    Action("focus_browser", "", "Scenarios", "", "view: scenarios", "show and focus the scenario list",
           pane="Workspace", anywhere=True),
    Action("zoom_terminal", "", "Zoom", "", "view: zoom terminal",
           "the terminal pane takes the program's whole width (again: back; z on the terminal)",
           pane="Workspace", anywhere=True),
    Action("accept", "a", "Accept", "accept-screenshot", "screenshots: accept",
           "write the highlighted actual capture as its golden", True, pane="ScreenshotDiff"),
    Action("compare_now", "", "Compare", "", "screenshots: compare now",
           "the highlighted golden against the screen shown now"),
    Action("accept_all", "A", "All", "accept-all-screenshots", "screenshots: accept all",
           "accept every mismatched or missing screenshot", True, pane="ScreenshotDiff"),
    Action("toggle_sides", "v", "Golden/actual", "toggle-sides", "screenshots: golden / actual",
           "golden and actual side by side, or one at a time", True, pane="ScreenshotDiff"),
)  # fmt: skip


def bindings(actions: tuple[Action, ...], pane: str = "") -> list[Binding]:
    """The key bindings of the screen's (or ``pane``'s) ``actions`` with keys, in the table's order (the footer's).

    The screen's include the panes' actions that work anywhere."""
    if pane:
        return [Binding(a.keys, a.action, a.label, show=a.show, priority=a.priority, id=a.binding_id)
                for a in actions if a.keys and a.pane == pane and not a.anywhere]  # fmt: skip
    return [Binding(a.keys, a.target, a.label, show=a.show, priority=a.priority, id=a.binding_id)
            for a in actions if a.keys and (not a.pane or a.anywhere)]  # fmt: skip


def palette(actions: tuple[Action, ...]) -> list[tuple[str, str, str, str]]:
    """``(title, action, help, pane)`` for the command palette, palette entries only."""
    return [(a.palette, a.action, a.help, a.pane) for a in actions if a.palette]
