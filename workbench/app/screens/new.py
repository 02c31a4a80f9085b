"""The "New scenario" dialog: a name and a template; it writes the file and returns its path."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from workbench.app.templates import TEMPLATES, new_file_name, template_named
from workbench.app.widgets.option_list import SafeOptionList
from workbench.atomic import write_atomic


class NewScenarioScreen(ModalScreen[Path | None]):
    """Type a name, choose a template (arrows), Enter creates ``<folder>/<name>.yaml``."""

    DEFAULT_CSS = """
    NewScenarioScreen {
        align: center middle;
    }
    #new-dialog {
        width: 72;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    #new-templates {
        height: auto;
        max-height: 6;
        margin: 1 0;
    }
    #new-error {
        color: $text-error;
        height: auto;
    }
    #new-buttons {
        height: auto;
        align: center middle;
    }
    #new-buttons Button {
        margin: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="new-cancel"),
        Binding("down", "template(1)", "Next template", id="new-next-template"),
        Binding("up", "template(-1)", "Previous template", id="new-previous-template"),
    ]

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical(id="new-dialog"):
            yield Static(f"New scenario in {self.folder}/")
            yield Input(placeholder="name, e.g. login-flow", id="new-name")
            yield SafeOptionList(*(Option(t.title, id=t.key) for t in TEMPLATES), id="new-templates")
            yield Static("", id="new-error")
            with Horizontal(id="new-buttons"):
                yield Button("Create", id="new-create", variant="primary")
                yield Button("Cancel", id="new-cancel-button")

    def on_mount(self) -> None:
        self.query_one("#new-templates", OptionList).highlighted = 0
        self.query_one("#new-name", Input).focus()

    @property
    def target(self) -> Path:
        return self.folder / new_file_name(self.query_one("#new-name", Input).value)

    @on(Input.Submitted, "#new-name")
    @on(OptionList.OptionSelected, "#new-templates")
    def _submit(self) -> None:
        self.create()

    @on(Button.Pressed, "#new-create")
    def _create_pressed(self) -> None:
        self.create()

    @on(Button.Pressed, "#new-cancel-button")
    def _cancel_pressed(self) -> None:
        self.dismiss(None)

    def create(self) -> None:
        name = self.query_one("#new-name", Input).value.strip()
        error = self.query_one("#new-error", Static)
        if not name:
            error.update("a name first")
            self.query_one("#new-name", Input).focus()
            return
        path = self.target
        if path.exists():
            error.update(f"{path} exists already: choose another name")
            return
        templates = self.query_one("#new-templates", OptionList)
        index = templates.highlighted or 0
        template = template_named(TEMPLATES[index].key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, template.render(path.stem))
        except OSError as exc:
            error.update(f"cannot write {path}: {exc}")
            return
        self.dismiss(path)

    def action_template(self, delta: int) -> None:
        """Up/Down choose the template while the name has the focus."""
        templates = self.query_one("#new-templates", OptionList)
        templates.highlighted = ((templates.highlighted or 0) + delta) % len(TEMPLATES)

    def action_cancel(self) -> None:
        self.dismiss(None)
