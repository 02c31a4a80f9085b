"""The completion list (ctrl+space in the editor): the names the scenario allows at the cursor, beside it.

It only shows and picks (:mod:`workbench.app.core.complete` works out what
fits, the editor pane writes it): Enter or Tab takes the highlighted name, Esc
closes; typing goes on in the editor, so a letter closes the list and is typed.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.geometry import Offset
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.app.core.complete import Choice
from workbench.app.widgets.option_list import SafeOptionList

MAX_ROWS = 10  # then the list scrolls


class CompleteScreen(ModalScreen[Choice | str | None]):
    """Dismissed with the chosen :class:`Choice`, with a typed character (to go on typing), or None."""

    DEFAULT_CSS = """
    CompleteScreen {
        background: transparent;
    }
    CompleteScreen > #complete-list {
        border: round $primary;
        background: $surface;
        height: auto;
        max-height: 12;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close", id="complete-cancel"),
        Binding("tab", "choose", "Take the highlighted name", id="complete-choose"),
    ]

    def __init__(self, choices: tuple[Choice, ...], at: Offset) -> None:
        super().__init__()
        self.choices = choices
        self.at = at

    def compose(self) -> ComposeResult:
        options = []
        for choice in self.choices:
            label = Text(choice.name, style="bold")
            if choice.help:
                label.append("  " + choice.help, style="dim")
            options.append(Option(label))
        yield SafeOptionList(*options, id="complete-list")

    def on_mount(self) -> None:
        listing = self.query_one("#complete-list", OptionList)
        longest = max(len(c.name) + (len(c.help) + 2 if c.help else 0) for c in self.choices)
        width = min(self.size.width, longest + 4)  # border, padding and scrollbar: a description is cut last
        height = min(MAX_ROWS, len(self.choices)) + 2
        x = max(0, min(self.at.x, self.size.width - width))
        y = self.at.y + 1 if self.at.y + 1 + height <= self.size.height else max(0, self.at.y - height)
        listing.styles.width = width
        listing.styles.offset = (x, y)
        listing.highlighted = 0
        listing.focus()

    @on(OptionList.OptionSelected, "#complete-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index])

    def action_choose(self) -> None:
        self.dismiss(self.choices[self.query_one("#complete-list", OptionList).highlighted or 0])

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        """A character goes on into the editor: the list is for picking, not for typing."""
        if event.is_printable and event.character and event.key != "tab":
            event.stop()
            self.dismiss(event.character)
