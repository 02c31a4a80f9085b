"""The help screen: what the panes do, and every key binding with its id (for the keymap file)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def binding_owners() -> list[tuple[str, type[Any]]]:
    """Every class that has key bindings, with the place its keys work (for the help screen and its test)."""
    from workbench.app.app import WorkbenchApp
    from workbench.app.screens.complete import CompleteScreen
    from workbench.app.screens.confirm import ConfirmScreen
    from workbench.app.screens.main import MainScreen
    from workbench.app.screens.new import NewScenarioScreen
    from workbench.app.screens.record import RecordScreen
    from workbench.app.widgets.diff import ScreenshotDiff
    from workbench.app.widgets.editor import FindBar, ScenarioEditor
    from workbench.app.widgets.terminal import TerminalView
    from workbench.app.widgets.timeline import TimelineBar

    return [
        ("everywhere", WorkbenchApp), ("main screen", MainScreen), ("editor", ScenarioEditor), ("find bar", FindBar),
        ("timeline", TimelineBar), ("terminal", TerminalView), ("screenshot list", ScreenshotDiff),
        ("dialogs", ConfirmScreen), ("new scenario", NewScenarioScreen), ("record a session", RecordScreen),
        ("completion list", CompleteScreen), ("help", HelpScreen),
    ]  # fmt: skip


INTRO = """\
[b]Scenario Workbench[/b]: write a scenario, run it on the engine's virtual clock, step through it,
watch the program under test and accept or reject its screenshots.

• [b]Scenarios[/b] (left, ctrl+b shows/hides): every scenario file with its last verdict; Enter opens
  one; typing filters the list. It follows the folder: new files appear by themselves.
• [b]Editor[/b]: diagnostics appear as you type; choose one to jump to it; saves are atomic.
  [b]ctrl+space[/b] completes: the events after `- ` in the timeline, the keys of the mapping the cursor
  is in, a key's values after `key: ` (from the format's schema, as `workbench schema` writes it).
  ctrl+f finds (":42" goes to line 42); Enter keeps the YAML indentation; the step the
  timeline is at is the highlighted line. The usual editing keys work: ctrl+z undo, ctrl+y redo,
  ctrl+x/ctrl+c/ctrl+v cut, copy and paste (ctrl+c stops a run while one goes on), ctrl+k deletes to the line end.
• [b]Timeline[/b] (bottom): one mark per step, coloured by actor; · pending, ● passed, ✗ failed.
  Moving the cursor (arrows, a click, or dragging along it) to a step that ran shows the
  screen recorded there. Esc or ctrl+c stops a run (it is then recorded as cancelled).
• [b]Terminal[/b]: the program under test, live while a run goes on. [b]ctrl+g[/b] (focus mode) sends
  every key to the program, the app's own keys included; [b]ctrl+][/b] gives the keys back.
  [b]alt+r[/b] records (starting a fresh run held after its first step if none is going on):
  what you type becomes userInputs steps after the step that ran last,
  and [b]ctrl+backslash[/b] adds a screenshot step there. [b]z[/b] zooms a panned terminal.
• [b]Step[/b] (F11): the timeline's step in full: its checks with their whole messages, the files it
  changed, its scenario lines, its messages, the screen before and after with changes marked.
• [b]Failures[/b] (F12): every failure of the last run; Enter opens its step in the Step pane.
• [b]Screenshots[/b] (ctrl+t): golden and actual side by side, or one at a time when narrow
  ([b]v[/b] toggles); changed cells are marked. In the list, [b]a[/b] accepts one (after a confirmation; Enter confirms),
  [b]A[/b] accepts all, [b]c[/b] compares the golden with the screen shown now.
• ctrl+o maximizes the focused pane; ctrl+n makes a new scenario from a template. In a narrow
  window the panes are tabs: keys [b]1-6[/b] switch them ([b]alt+1-6[/b] in the editor), F1 or [b]?[/b] is help.
• F5 play, F6 pause, F8 or F10 step, F7 step back, F9 run to the timeline cursor.

Keys can be remapped by binding id in [b]$XDG_CONFIG_HOME/workbench/keymap.toml[/b]
(for example [i]play = "ctrl+enter"[/i]). Press escape to close this screen.
"""


def reflow(text: str) -> str:
    """Join the lines of each paragraph and bullet, so the text wraps at any window width."""
    out: list[str] = []
    for paragraph in text.strip("\n").split("\n\n"):
        items: list[str] = []
        for line in paragraph.splitlines():
            if line.startswith("• ") or not items:
                items.append(line.strip())
            else:
                items[-1] += " " + line.strip()
        out.append("\n".join(items))
    return "\n\n".join(out)


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="help-close"),
        Binding("f1", "dismiss", "Close", show=False, id="help-close-f1"),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    #help-dialog {
        width: 100;
        max-width: 100%;
        height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    #help-keys {
        margin-top: 1;
    }
    """

    def __init__(self, rows: list[tuple[str, str, str, str]]) -> None:
        super().__init__()
        self.rows = rows
        self.key_rows = [(key, description, ident) for _, key, description, ident in rows]

    def compose(self) -> ComposeResult:
        table = Table(title="Keys (every screen)", expand=True, show_edge=False)
        table.add_column("where")
        table.add_column("key", style="bold")
        table.add_column("action")
        # the keymap file needs the id whole: the other columns wrap first
        table.add_column("id", no_wrap=True, min_width=max((len(row[3]) for row in self.rows), default=2))
        for where, key, description, binding_id in self.rows:
            table.add_row(where, key, description, binding_id)
        with VerticalScroll(id="help-dialog"):
            yield Static(Text.from_markup(reflow(INTRO)), id="help-intro")
            yield Static(table, id="help-keys")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)
