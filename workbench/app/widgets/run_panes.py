"""The run panes: the program's terminal, the step inspector, the screenshots and the failures, as tabs.

One widget with its own look, composed by the main screen in one line; the
screen brings a pane forward by its view name (``show``). Adding a run pane is
one ``TabPane`` here, its widget file and its actions in ``workbench.app.actions``.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import TabbedContent, TabPane

from workbench.app.widgets.diff import ScreenshotDiff
from workbench.app.widgets.failures import FailuresList
from workbench.app.widgets.inspector import StepInspector
from workbench.app.widgets.terminal import TerminalView

# view name (workbench.app.views) -> its tab
PANE_TABS = {"terminal": "tab-terminal", "step": "tab-step", "shots": "tab-shots", "failures": "tab-failures"}


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
        for pane in (
            TabPane("Terminal", TerminalView(id="terminal"), id="tab-terminal"),
            TabPane("Step", StepInspector(id="inspector"), id="tab-step"),
            TabPane("Screenshots", ScreenshotDiff(id="diff"), id="tab-shots"),
            TabPane("Failures", FailuresList(id="failures"), id="tab-failures"),
        ):
            self.compose_add_child(pane)  # as `with TabPane(...)` inside `with TabbedContent()` does

    def show(self, name: str) -> None:
        """Bring the run pane of view ``name`` forward (a view that is not a run pane changes nothing)."""
        if name in PANE_TABS:
            self.active = PANE_TABS[name]
