"""Property: a row's storage form never shows: the compact forms give the same screens as plain lists.

:mod:`workbench.terminal.rows` keeps a row's cells as a ``str`` while each
cell is one narrow character and its styles as one shared tuple while they are
all the default, and turns them into lists when an edit needs one. Here one
screen keeps those forms and another is made to hold every row as lists after
each read and resize (so every edit takes the list path); any stream of what
programs send, with resizes between reads, must leave the same screens,
scrollback, cursor and styles in both.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.terminal.test_parser_properties import sizes, streams
from workbench.terminal import Screen


def _as_lists(screen: Screen) -> None:
    vt = screen.vt
    for y in range(vt.lines):
        vt._cells(y)
        vt._style_row(y)
    if vt._primary is not None:  # the primary screen, kept while the alternate one is shown
        chars, styles = vt._primary
        chars[:] = [[*row] for row in chars]
        styles[:] = [[*row] for row in styles]


def _state(screen: Screen) -> tuple[object, ...]:
    vt = screen.vt
    return (
        screen.snapshot(),
        screen.snapshot().cells,
        screen.history_rows(),
        [list(row) for row in vt.style_rows],
        vt.rows,
        (vt.cursor.x, vt.cursor.y, vt.cursor.attrs),
    )


steps = st.lists(st.tuples(streams, st.none() | sizes), min_size=1, max_size=4)


@settings(max_examples=300)
@given(size=sizes, steps=steps)
def test_compact_rows_give_the_screens_lists_give(
    size: tuple[int, int], steps: list[tuple[str, object]]
) -> None:
    compact, lists = Screen(*size, scrollback=20), Screen(*size, scrollback=20)
    _as_lists(lists)
    for text, resize in steps:
        for screen in (compact, lists):
            screen.feed(text)
            if isinstance(resize, tuple):
                screen.resize(*resize)
        _as_lists(lists)
        assert _state(compact) == _state(lists)
