"""The command palette: every action of the main screen as ``"category: action"``."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from workbench.app.views import VIEW_LABELS, VIEWS

if TYPE_CHECKING:  # the main screen imports this module's neighbours; no import cycle at run time
    from workbench.app.screens.main import MainScreen

COMMANDS: list[tuple[str, str, str]] = [
    ("run: play", "play", "start a run, or resume a paused one"),
    ("run: pause", "pause", "hold the engine at its virtual clock"),
    ("run: step", "step", "let exactly one step run"),
    ("run: step back", "step_back", "show the recorded screen of the previous step"),
    ("run: run to cursor", "run_to_cursor", "run until the timeline cursor's step has run"),
    ("run: restart", "restart", "stop the run and start again"),
    ("run: stop", "stop", "stop the run (it is recorded as cancelled)"),
    ("terminal: record", "record", "focus mode that writes what you type as steps at the editor's cursor"),
    ("file: new scenario", "new_scenario", "a new scenario file from a template"),
    ("editor: find / go to line", "find", "find text, or :N for line N"),
    ("view: failures", "show_failures", "every failure of the last run"),
    (
        "view: inspect step",
        "inspect_step",
        "the selected step in full: event, checks, files, screens, messages",
    ),
    ("view: maximize pane", "maximize_pane", "the focused pane fills the screen (again: back)"),
    ("view: show/hide scenarios", "toggle_browser", "the scenario list"),
    ("run: faster", "faster", "raise the speed (0.25x .. max)"),
    ("run: slower", "slower", "lower the speed"),
    ("file: save", "save", "save the scenario (atomically)"),
    ("editor: next problem", "next_diagnostic", "jump to the next diagnostic"),
    ("view: terminal / screenshots", "toggle_pane", "switch the right pane"),
    ("terminal: focus mode", "focus_mode", "send every key to the program under test (ctrl+] leaves)"),
    ("view: timeline", "focus_timeline", "focus the timeline scrubber"),
    ("view: scenarios", "focus_browser", "show and focus the scenario list"),
    ("view: editor", "focus_editor", "focus the editor"),
    ("screenshots: accept", "accept_screenshot", "write the highlighted actual capture as its golden"),
    ("screenshots: compare now", "compare_now", "the highlighted golden against the screen shown now"),
    ("screenshots: accept all", "accept_all_screenshots", "accept every mismatched or missing screenshot"),
    (
        "view: zoom terminal",
        "zoom_terminal",
        "the terminal pane takes the program's whole width (again: back)",
    ),
    *(
        (f"view: pane {n} {label.lower()}", f"view('{name}')", f"bring the {label.lower()} forward")
        for n, (name, label) in enumerate(zip(VIEWS, VIEW_LABELS, strict=True), start=1)
    ),
]


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
        for title, action, help_text in COMMANDS:
            yield DiscoveryHit(title, partial(target.run_command, action), help=self._help(action, help_text))
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
        for title, action, help_text in COMMANDS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(target.run_command, action),
                          help=self._help(action, help_text))  # fmt: skip
        for title, callback, help_text in self._modes():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
