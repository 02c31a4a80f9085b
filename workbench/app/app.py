"""The Workbench Textual app: themes, key bindings (with ids, remappable), command palette, screens."""

from __future__ import annotations

import contextlib
import gc
import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.notifications import Notification, SeverityLevel
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets.text_area import TextAreaTheme

from workbench.app.commands import WorkbenchCommands
from workbench.app.keys_in_order import InOrderKeys
from workbench.app.screens.main import MainScreen
from workbench.app.themes import (
    DEFAULT_THEME,
    DEFAULT_VARIABLES,
    load_themes,
    save_theme,
    saved_theme,
    syntax_theme,
)
from workbench.names import DEFAULT_GOLDENS_DIR, DEFAULT_OUT_DIR, Env

if TYPE_CHECKING:  # the engine loads with the first run
    from workbench.engine.options import RunOptions


def keymap_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(os.environ.get(Env.KEYMAP, str(Path(base) / "workbench" / "keymap.toml")))


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


class WorkbenchApp(InOrderKeys):
    TITLE = "Scenario Workbench"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {WorkbenchCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True, id="quit"),
        Binding("f1", "help", "Help", id="help"),
        Binding("question_mark", "help", "Help", show=False, id="help-question-mark"),  # text fields type it
    ]

    def __init__(
        self,
        path: Path | None = None,
        *,
        goldens_dir: Path = DEFAULT_GOLDENS_DIR,
        out_dir: Path = DEFAULT_OUT_DIR,
        run_dir: Path | None = None,
        theme_name: str | None = None,
        keymap: dict[str, str] | None = None,
        mode: str = "mock-agent",
        agent: str | None = None,
    ) -> None:
        super().__init__()
        self.path = path
        self.goldens_dir = Path(goldens_dir)
        self.out_dir = Path(out_dir)
        self.run_dir = run_dir
        self._theme_name = theme_name
        self._keymap_override = keymap
        self.mode = mode
        self.agent = agent
        self._themes_ready = False
        self._own_themes: dict[str, Theme] = {}
        self._syntax_themes: dict[str, TextAreaTheme] = {}
        self._until_key: set[tuple[str, str]] = set()  # (title, message) of notices that go with the next key

    def notify_until_key(self, message: str, *, title: str = "", timeout: float = 60,
                         severity: SeverityLevel = "information") -> None:  # fmt: skip
        """A hint that goes with the user's next key (which still does its job): a welcome says what to press
        first, a failed run where to look, focus mode how to leave; none may sit over the text or the program's
        screen after the user has acted."""
        self.notify(message, title=title, timeout=timeout, severity=severity)
        self._until_key.add((title, message))

    def drop_until_key(self) -> None:
        """Take away the hints that would have gone with the next key (the pane they sat over has news)."""
        for notice in [n for n in self._notifications if (n.title, n.message) in self._until_key]:
            self._unnotify(notice)
        self._until_key.clear()

    async def on_event(self, event: events.Event) -> None:
        if self._until_key and isinstance(event, events.Key):
            for notice in [n for n in self._notifications if (n.title, n.message) in self._until_key]:
                self._unnotify(notice)
                self._until_key.discard((notice.title, notice.message))  # one not shown yet waits for it
        await super().on_event(event)

    def _refresh_notifications(self) -> None:
        super()._refresh_notifications()
        self._notices_changed()

    def _unnotify(self, notification: Notification, refresh: bool = True) -> None:
        super()._unnotify(notification, refresh)
        self._notices_changed()  # an expired toast removes itself without a refresh

    def _notices_changed(self) -> None:
        with contextlib.suppress(LookupError, NoMatches):  # no main screen (yet), or it is closing
            self.main_screen.show_notice()

    def run_options(self, speed: float | None) -> RunOptions:
        """How the app runs a scenario: its mode (and agent), goldens and run folders, at ``speed``.

        ci=True: the engine never writes a golden for the app; a missing one is shown to be accepted."""
        from workbench.engine.drivers import mode_of
        from workbench.engine.options import RunOptions

        chosen = {"agent": self.agent} if self.agent is not None and mode_of(self.mode).takes_agent else {}
        return RunOptions(speed=speed, goldens_dir=self.goldens_dir, out_dir=self.out_dir, ci=True,
                          mode=self.mode, mode_options=chosen)  # fmt: skip

    def set_mode(self, mode: str, agent: str | None = None) -> None:
        from workbench.engine.drivers import ModeError, mode_of

        try:
            takes_agent = mode_of(mode).takes_agent
        except ModeError as exc:
            self.notify(str(exc), severity="error")
            return
        self.mode = mode
        if agent is not None:
            self.agent = agent
        self.notify(f"runs use mode {mode}" + (f" with {self.agent}" if takes_agent and self.agent else ""))

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(DEFAULT_VARIABLES)

    def on_load(self) -> None:
        themes, warnings = load_themes()
        for theme in themes:
            self.register_theme(theme)
        self._startup_warnings = list(warnings)
        self._own_themes = {theme.name: theme for theme in themes}
        names = {t.name for t in themes}
        wanted = self._theme_name or saved_theme() or DEFAULT_THEME
        if wanted in names:
            self.theme = wanted
        else:
            self._startup_warnings.append(f"unknown theme {wanted!r}; themes: {', '.join(sorted(names))}")
            self.theme = DEFAULT_THEME
        for name in set(self.available_themes) - names:  # Textual's own: no syntax colours, no contrast check
            self.unregister_theme(name)
        self._themes_ready = True
        if self._keymap_override is not None:
            keymap: dict[str, str] = self._keymap_override
        else:
            keymap, warning = load_keymap(keymap_path())
            if warning:
                self._startup_warnings.append(warning)
        if keymap:
            self.set_keymap(keymap)

    def _watch_theme(self, theme_name: str) -> None:
        """A theme change: remembered for next time, and the editor's highlighting follows it."""
        super()._watch_theme(theme_name)
        if not self._themes_ready:
            return
        save_theme(theme_name)
        with contextlib.suppress(LookupError):  # no main screen yet
            self.main_screen.retheme()

    def get_default_screen(self) -> Screen[None]:
        if self.run_dir is not None:
            from workbench.app.screens.show import ShowScreen

            return ShowScreen(self.run_dir)
        return MainScreen(self.path)

    def on_mount(self) -> None:
        for warning in getattr(self, "_startup_warnings", []):
            self.notify(warning, severity="warning", timeout=8)
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """The ~100k objects of start-up (modules, CSS, widgets) live as long as the app: take them out of
        the collector's scans, which otherwise pause the UI for 40-100 ms at each full collection, and
        turn the collector back on (`workbench.app.main` turns it off while the app starts)."""
        gc.freeze()
        gc.enable()

    @property
    def main_screen(self) -> MainScreen:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("no main screen")

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("help: keys and panes", "Show the help screen", self.action_help)

    def syntax_theme_for(self, name: str) -> TextAreaTheme | None:
        """The editor's highlighting for theme ``name``, worked out the first time it is shown."""
        if name not in self._syntax_themes and name in self._own_themes:
            self._syntax_themes[name] = syntax_theme(self._own_themes[name])
        return self._syntax_themes.get(name)

    def key_rows(self) -> list[tuple[str, str, str, str]]:
        """Every key of every screen and pane: (where, key, what it does, binding id), remaps applied."""
        from workbench.app.screens.help import binding_owners

        keymap: dict[str, str] = dict(getattr(self, "_keymap", {}) or {})
        rows: list[tuple[str, str, str, str]] = []
        for where, owner in binding_owners():
            for binding in owner.BINDINGS:
                if not isinstance(binding, Binding) or not binding.description:
                    continue
                ident = binding.id or ""
                keys = keymap.get(ident, binding.key)
                shown = ", ".join(
                    self.get_key_display(Binding(k.strip(), binding.action)) for k in keys.split(",")
                )
                rows.append((where, shown, binding.description, ident))
        return rows

    def keys_of(self, action: str) -> str:
        """Every key bound to a main-screen ``action`` (remaps applied), as the footer shows them; "" if none."""
        from workbench.app.actions import MAIN_ACTIONS

        keymap: dict[str, str] = dict(getattr(self, "_keymap", {}) or {})
        keys = [k.strip() for entry in MAIN_ACTIONS if entry.action == action and entry.keys
                for k in keymap.get(entry.binding_id, entry.keys).split(",")]  # fmt: skip
        return ", ".join(self.get_key_display(Binding(key, action)) for key in keys)

    def action_help(self) -> None:
        from workbench.app.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.key_rows()))

    async def action_quit(self) -> None:
        try:
            main = self.main_screen
        except LookupError:
            self.exit(0)
            return
        if main.editor.dirty:
            from workbench.app.screens.confirm import ConfirmScreen

            def answered(choice: str | None) -> None:
                if choice == "save" and not main.editor_pane.save():
                    return
                if choice in ("save", "discard"):
                    self.exit(0)

            self.push_screen(
                ConfirmScreen(
                    f"{main.path} has unsaved changes. Save them before quitting?",
                    [("save", "Save and quit"), ("discard", "Quit without saving"), ("cancel", "Cancel")],
                ),
                answered,
            )
            return
        self.exit(0)
