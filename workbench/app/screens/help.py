"""The help screen: what the panes do, and every key binding with its id (for the keymap file)."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

INTRO = """\
[b]Scenario Workbench[/b]: write a scenario, run it on the engine's virtual clock, step through it,
watch the program under test and accept or reject its screenshots.

• [b]Scenarios[/b] (left): every scenario file with its last verdict; Enter opens one.
• [b]Editor[/b]: diagnostics appear as you type; choose one to jump to it; saves are atomic.
• [b]Timeline[/b] (bottom): one mark per step, coloured by actor; · pending, ● passed, ✗ failed.
  Moving the cursor to a step that ran shows the screen recorded there.
• [b]Terminal[/b]: the program under test, live while a run goes on. [b]ctrl+g[/b] (focus mode) sends
  every key to the program, the app's own keys included; [b]ctrl+][/b] gives the keys back.
• [b]Screenshots[/b]: golden and actual side by side; changed cells are highlighted. [b]a[/b] accepts
  one (after a confirmation), [b]ctrl+n[/b] compares the golden with the screen shown now.

Keys can be remapped by binding id in [b]$XDG_CONFIG_HOME/workbench/keymap.toml[/b]
(for example [i]play = "ctrl+enter"[/i]). Press escape to close this screen.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="help-close"),
        Binding("f1", "dismiss", "Close", show=False, id="help-close-f1"),
    ]

    def __init__(self, bindings: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.key_rows = bindings

    def compose(self) -> ComposeResult:
        table = Table(title="Keys", expand=True, show_edge=False)
        table.add_column("key", style="bold")
        table.add_column("action")
        table.add_column("id", style="dim")
        for key, description, binding_id in self.key_rows:
            table.add_row(key, description, binding_id)
        with VerticalScroll(id="help-dialog"):
            yield Static(Text.from_markup(INTRO), id="help-intro")
            yield Static(table, id="help-keys")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)
