"""How the main screen shares the window: a pure function of the window and the scenario's terminal.

The terminal pane is the one thing that must not be cut: it gets the scenario's
width plus its border whenever the window has room for that and a usable editor.
The browser comes next, then the editor takes what is left. When the terminal and
an editor do not fit side by side, the screen shows one pane at a time with tabs;
a terminal larger than even that is shown scrollable with a notice. No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass

EDITOR_MIN = 34
BROWSER_WIDTH = 26
BROWSER_MIN = 18
BORDER = 2


@dataclass(frozen=True)
class Plan:
    tabs: bool  # one pane at a time (narrow windows)
    browser: bool  # the browser column is shown (side by side only)
    browser_width: int
    panes_width: int  # the terminal/screenshots column (side by side only)
    stacked_diff: bool  # golden above actual instead of side by side


def plan(width: int, term_width: int, *, browser: str = "auto") -> Plan:
    """The layout for a ``width``-column window showing a ``term_width``-column program.

    ``browser`` is ``auto`` (shown when there is room), ``shown`` (asked for: the editor gives
    up room down to half its minimum) or ``hidden``.
    """
    panes = term_width + BORDER
    if width < panes + EDITOR_MIN:
        return Plan(tabs=True, browser=False, browser_width=0, panes_width=width,
                    stacked_diff=width < 2 * panes)  # fmt: skip
    if browser == "shown":  # asked for: the editor and the browser make do with less
        browser_width = min(BROWSER_WIDTH, width - panes - EDITOR_MIN // 2)
        show = browser_width >= BROWSER_MIN
    else:
        show = browser == "auto" and width >= panes + EDITOR_MIN + BROWSER_WIDTH
        spare = width - panes - EDITOR_MIN - BROWSER_WIDTH
        browser_width = BROWSER_WIDTH + max(0, min(spare // 3, 8)) if show else 0
    return Plan(tabs=False, browser=show, browser_width=browser_width, panes_width=panes,
                stacked_diff=True)  # fmt: skip
