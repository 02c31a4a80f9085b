"""The run panes: the program's terminal, the step inspector, the screenshots and the failures, as tabs.

One widget with its own look, composed by the main screen in one line; the
screen brings a pane forward by its view name (``show``). Adding a run pane is
its widget file (with ``VIEW`` and ``BORDER_TITLE``), one line in ``compose``
here and its rows in :mod:`workbench.app.actions` (its number key among them).
"""

from __future__ import annotations

from typing import Any, cast

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from workbench.app.widgets.diff import ScreenshotDiff
from workbench.app.widgets.failures import FailuresList
from workbench.app.widgets.inspector import StepInspector
from workbench.app.widgets.terminal import TerminalView

#: panes composed right after the first frame, which does not show them (~10 widgets fewer to style and lay out
#: before it); their widgets exist from the start and keep what they are told until then
AFTER_THE_FIRST_FRAME = ("step", "shots")


class RunPanes(TabbedContent):
    DEFAULT_CSS = """
    RunPanes {
        height: 1fr;
    }
    RunPanes > ContentSwitcher {
        height: 1fr;
    }
    RunPanes TabPane {
        padding: 0;
        height: 1fr;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(initial="tab-terminal", **kwargs)
        self.views: dict[str, Widget] = {}  # view name -> its pane
        self._later: list[tuple[TabPane, Widget]] = []
        for pane in self.panes():
            view = str(getattr(pane, "VIEW"))  # noqa: B009  (every run pane names its view; Widget does not)
            self.views[view] = pane
            tab = TabPane(str(pane.BORDER_TITLE), id=f"tab-{view}")
            if view in AFTER_THE_FIRST_FRAME:
                self._later.append((tab, pane))
            else:
                tab.compose_add_child(pane)
            self.compose_add_child(tab)  # as `with TabPane(...)` inside `with TabbedContent()` does

    def on_mount(self) -> None:
        self.call_after_refresh(self._mount_later)

    def _mount_later(self) -> None:
        for tab, pane in self._later:
            if tab.is_attached:  # not when the app is already closing
                tab.mount(pane)
        self._later.clear()

    @property
    def inspector(self) -> StepInspector:
        return cast(StepInspector, self.views["step"])

    @property
    def diff(self) -> ScreenshotDiff:
        return cast(ScreenshotDiff, self.views["shots"])

    def panes(self) -> ComposeResult:
        """The run panes, one line each, in the order of their tabs."""
        yield TerminalView(id="terminal")
        yield StepInspector(id="inspector")
        yield ScreenshotDiff(id="diff")
        yield FailuresList(id="failures")

    def show(self, name: str) -> None:
        """Bring the run pane of view ``name`` forward (a view that is not a run pane changes nothing)."""
        if name in self.views:
            self.active = f"tab-{name}"
