"""How the main screen shares the window: a pure function of the window and the scenario's terminal.

The editor comes first: side by side, it always has room for 60 columns of YAML
(``EDITOR_MIN`` with its border, line numbers and scrollbar). The terminal pane
gets the program's width plus its border when that fits beside it, else what is
left, and then pans over the program (following its cursor, with a marker in its
border); zooming gives it the program's width for a while, as the user asked. The
scenario list appears only where the editor and the whole program leave room for
it, or when asked for (it then takes room from the terminal pane, never from the
editor). A window too narrow for the editor and a useful terminal pane shows one
pane at a time under a row of tabs. No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass

YAML_COLUMNS = 60  # what a user must see of the scenario side by side
EDITOR_CHROME = 10  # border (2), line numbers of up to 4 digits and their gap (7), scrollbar (1)
EDITOR_MIN = YAML_COLUMNS + EDITOR_CHROME
TERMINAL_MIN = 30  # below this a side-by-side terminal pane shows too little to be worth it
BROWSER_WIDTH = 26
BROWSER_MIN = 18
ZOOMED_EDITOR_MIN = 24  # zoomed in, the editor still shows the step the program is at
BORDER = 2


@dataclass(frozen=True)
class Plan:
    tabs: bool  # one pane at a time (narrow windows)
    browser: bool  # the browser column is shown (side by side only)
    browser_width: int
    panes_width: int  # the terminal/screenshots column (side by side only)
    pans: bool  # the terminal pane is narrower than the program: it pans over it


def plan(width: int, term_width: int, *, browser: str = "auto", zoom: bool = False) -> Plan:
    """The layout for a ``width``-column window showing a ``term_width``-column program.

    ``browser`` is ``auto`` (shown when the editor and the whole program leave room), ``shown``
    (asked for: it takes room from the terminal pane) or ``hidden``. ``zoom`` gives the terminal
    pane the program's whole width (the editor keeps at least ``ZOOMED_EDITOR_MIN``).
    """
    whole = term_width + BORDER
    if width < EDITOR_MIN + TERMINAL_MIN:  # zoomed or not: one pane at a time already has the whole width
        return Plan(tabs=True, browser=False, browser_width=0, panes_width=width, pans=width < whole)
    editor_min = ZOOMED_EDITOR_MIN if zoom else EDITOR_MIN
    browser_width = 0
    if browser == "shown":
        browser_width = max(BROWSER_MIN, min(BROWSER_WIDTH, width - editor_min - TERMINAL_MIN))
        if width - editor_min - browser_width < TERMINAL_MIN:
            browser_width = 0  # no room even for the narrowest list: the screen says so
    elif browser == "auto" and width >= whole + EDITOR_MIN + BROWSER_WIDTH:
        spare = width - whole - EDITOR_MIN - BROWSER_WIDTH
        browser_width = BROWSER_WIDTH + max(0, min(spare // 3, 8))
    panes = min(whole, width - editor_min - browser_width)
    return Plan(tabs=False, browser=browser_width > 0, browser_width=browser_width, panes_width=panes,
                pans=panes < whole)  # fmt: skip
