"""The Workbench Textual app: themes, key bindings (with ids, remappable), command palette, screens."""

from __future__ import annotations

import gc
import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from workbench.app.commands import WorkbenchCommands
from workbench.app.screens.confirm import ConfirmScreen
from workbench.app.screens.help import HelpScreen
from workbench.app.screens.main import MainScreen
from workbench.app.themes import DEFAULT_THEME, DEFAULT_VARIABLES, load_themes


def keymap_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(os.environ.get("WORKBENCH_KEYMAP", str(Path(base) / "workbench" / "keymap.toml")))


def load_keymap(path: Path) -> tuple[dict[str, str], str | None]:
    """``binding-id = "keys"`` pairs from a TOML file (missing file: none); a broken file is a warning."""
    if not path.is_file():
        return {}, None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        return {}, f"keymap {path} ignored: {exc}"
    table = data.get("keymap", data)
    return {str(k): str(v) for k, v in table.items() if isinstance(v, str)}, None


class WorkbenchApp(App[int]):
    TITLE = "Scenario Workbench"
    CSS_PATH = ["app.tcss", "widgets/widgets.tcss"]  # noqa: RUF012 (typed by App as a plain attribute)
    COMMANDS = App.COMMANDS | {WorkbenchCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True, id="quit"),
        Binding("f1", "help", "Help", id="help"),
    ]

    def __init__(
        self,
        path: Path | None = None,
        *,
        goldens_dir: Path = Path("screenshots"),
        out_dir: Path = Path("target/tmp/workbench"),
        run_dir: Path | None = None,
        theme_name: str | None = None,
        keymap: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.path = path
        self.goldens_dir = Path(goldens_dir)
        self.out_dir = Path(out_dir)
        self.run_dir = run_dir
        self._theme_name = theme_name
        self._keymap_override = keymap

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(DEFAULT_VARIABLES)

    def on_load(self) -> None:
        themes, warnings = load_themes()
        for theme in themes:
            self.register_theme(theme)
        self._startup_warnings = list(warnings)
        names = {t.name for t in themes}
        wanted = self._theme_name or DEFAULT_THEME
        if wanted in names or wanted in self.available_themes:
            self.theme = wanted
        elif self._theme_name:
            self._startup_warnings.append(f"unknown theme {wanted!r}")
        if self._keymap_override is not None:
            keymap: dict[str, str] = self._keymap_override
        else:
            keymap, warning = load_keymap(keymap_path())
            if warning:
                self._startup_warnings.append(warning)
        if keymap:
            self.set_keymap(keymap)

    def get_default_screen(self) -> Screen[None]:
        return MainScreen(self.path, self.run_dir)

    def on_mount(self) -> None:
        for warning in getattr(self, "_startup_warnings", []):
            self.notify(warning, severity="warning", timeout=8)
        # The ~100k objects of start-up (modules, CSS, widgets) live as long as the app: take them out of
        # the collector's scans, which otherwise pause the UI for 40-100 ms at each full collection.
        self.call_after_refresh(gc.freeze)

    @property
    def main_screen(self) -> MainScreen:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("no main screen")

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("help: keys and panes", "Show the help screen", self.action_help)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        rows: list[tuple[str, str, str]] = []
        seen: set[tuple[str, str]] = set()
        for key, active in self.active_bindings.items():
            binding = active.binding
            ident = binding.id or ""
            if (ident, key) in seen or not binding.description or not ident:
                continue
            seen.add((ident, key))
            rows.append((self.get_key_display(binding), binding.description, ident))
        self.push_screen(HelpScreen(rows))

    async def action_quit(self) -> None:
        try:
            main = self.main_screen
        except LookupError:
            self.exit(0)
            return
        if main.editor.dirty and not main.read_only:

            def answered(choice: str | None) -> None:
                if choice == "save" and not main.action_save():
                    return
                if choice in ("save", "discard"):
                    self.exit(0)

            self.push_screen(
                ConfirmScreen(
                    f"{main.path} has unsaved changes. Save them before quitting?",
                    [("save", "Save and quit"), ("discard", "Quit without saving"), ("cancel", "Cancel")],
                    default="cancel",
                ),
                answered,
            )
            return
        self.exit(0)
