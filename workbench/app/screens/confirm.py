"""A modal question with a few buttons; it returns the id of the button pressed (None on escape)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[str | None]):
    """The first choice is the primary action: it has the focus, so Enter confirms it; Esc cancels."""

    DEFAULT_CSS = """
    ConfirmScreen {
        align: center middle;
    }
    #confirm-dialog {
        width: 70;
        max-width: 100%;
        height: auto;
        border: thick $warning;
        background: $surface;
        padding: 1 2;
    }
    #confirm-question {
        margin-bottom: 1;
    }
    #confirm-buttons {
        height: auto;
        align: center middle;
    }
    #confirm-buttons Button {
        margin: 0 1;
    }
    #confirm-buttons Button:focus {
        text-style: bold reverse;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="confirm-cancel"),
        # the arrows move between the choices, wrapping, as in any dialog (Enter would press the focused one)
        Binding("left,up", "app.focus_previous", "Previous choice", show=False, id="confirm-previous"),
        Binding("right,down", "app.focus_next", "Next choice", show=False, id="confirm-next"),
    ]

    def __init__(
        self, question: str, choices: list[tuple[str, str]] | None = None, default: str = ""
    ) -> None:
        super().__init__()
        self.question = question
        self.choices = choices or [("yes", "Yes"), ("no", "No")]
        self.default = default or self.choices[0][0]

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Static(self.question, id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                for choice_id, label in self.choices:
                    first = choice_id == self.choices[0][0]
                    yield Button(label, id=f"choice-{choice_id}", variant="primary" if first else "default")

    def on_mount(self) -> None:
        self.query_one(f"#choice-{self.default}", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        assert event.button.id is not None
        self.dismiss(event.button.id.removeprefix("choice-"))

    def action_cancel(self) -> None:
        self.dismiss(None)
