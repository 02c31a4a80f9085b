"""The command palette: every action of the main screen as ``"category: action"`` (from workbench.app.actions)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from workbench.app.actions import MAIN_ACTIONS, palette

if TYPE_CHECKING:  # the main screen imports this module's neighbours; no import cycle at run time
    from workbench.app.screens.main import MainScreen

COMMANDS = palette(MAIN_ACTIONS)  # every palette entry, from the one actions table


class WorkbenchCommands(Provider):
    """Actions of the main screen; context-free, since each action explains itself when it cannot run."""

    def _target(self) -> MainScreen | None:
        from workbench.app.screens.main import MainScreen

        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, MainScreen):
                return screen
        return None

    def _help(self, action: str, help_text: str) -> str:
        """The entry's help line, led by its keys when it has some (the palette teaches them)."""
        from workbench.app.app import WorkbenchApp

        keys = self.app.keys_of(action) if isinstance(self.app, WorkbenchApp) else ""
        return f"{keys} · {help_text}" if keys else help_text

    async def discover(self) -> Hits:
        target = self._target()
        if target is None:
            return
        for title, action, help_text, pane in COMMANDS:
            yield DiscoveryHit(
                title, partial(target.run_command, action, pane), help=self._help(action, help_text)
            )
        for title, callback, help_text in self._modes():
            yield DiscoveryHit(title, callback, help=help_text)

    def _modes(self) -> list[tuple[str, Callable[[], None], str]]:
        """`run: mode NAME` for every driver (the names `run --mode` takes), and one per agent a mode plays."""
        from workbench.app.app import WorkbenchApp
        from workbench.engine.drivers import DRIVERS, driver_summaries

        app = self.app
        if not isinstance(app, WorkbenchApp):
            return []
        out: list[tuple[str, Callable[[], None], str]] = []
        for name, summary in driver_summaries().items():
            out.append((f"run: mode {name}", partial(app.set_mode, name), summary))
            agent = DRIVERS[name].option("agent")
            for choice in agent.choices() if agent is not None and agent.choices is not None else ():
                out.append((f"run: mode {name} {choice}", partial(app.set_mode, name, choice), summary))
        return out

    async def search(self, query: str) -> Hits:
        target = self._target()
        if target is None:
            return
        matcher = self.matcher(query)
        for title, action, help_text, pane in COMMANDS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(target.run_command, action, pane),
                          help=self._help(action, help_text))  # fmt: skip
        for title, callback, help_text in self._modes():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
