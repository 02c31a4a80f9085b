"""Property: on the escape sequences agent TUIs send, our screen is stock pyte's, cell by cell.

The fast paths of :mod:`workbench.terminal.vt` (runs of text, SGR strings,
cursor positions, line feeds on local variables) reimplement what pyte does one
character at a time, so random streams of what Claude Code (Ink), Codex
(ratatui) and Gemini CLI write are played through both and the final screens
compared: text, cursor (pending wrap included), hidden cursor, title, and the
colours and attributes of every non-blank cell.

The streams leave out only what pyte gets wrong and we deliberately do
differently (module docstring of :mod:`~workbench.terminal.vt`): wide and
joining characters, the alternate screen, cursor up while above a scroll
region (pyte stops it at the region's top), colon sub-parameters, backspace and
cursor up/down and erasing while a wrap is pending (Ink's line erase is sent after a
carriage return, as Ink does), and the attributes of erased (blank) cells. Two
bugs of stock pyte are put right in the reference instead (:class:`StockScreen`):
its delete lines kept a line whose replacement below had never been written, and
its restore of the cursor set autowrap back on when it was on at the save (tmux
and xterm leave autowrap alone; ``test_against_tmux.py`` shows it).
"""

from __future__ import annotations

import pyte
from hypothesis import example, given, settings
from hypothesis import strategies as st

from workbench.terminal import Screen

_SGR_CODES = ["0", "", "1", "3", "4", "7", "9", "22", "23", "24", "27", "29", "39", "49",
              *map(str, range(30, 38)), *map(str, range(40, 48)), *map(str, range(90, 98)),
              *map(str, range(100, 108))]  # fmt: skip

_sgr_param = st.one_of(
    st.sampled_from(_SGR_CODES),
    st.builds(lambda k, n: f"{k};5;{n}", st.sampled_from(["38", "48"]), st.integers(0, 255)),
    st.builds(
        lambda k, r, g, b: f"{k};2;{r};{g};{b}",
        st.sampled_from(["38", "48"]),
        st.integers(0, 255),
        st.integers(0, 255),
        st.integers(0, 255),
    ),
)
sgr = st.lists(_sgr_param, min_size=1, max_size=3).map(lambda ps: "\x1b[" + ";".join(ps) + "m")
text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=40)
cursor_position = st.builds(
    lambda r, c, f: f"\x1b[{r};{c}{f}", st.integers(0, 12), st.integers(0, 50), st.sampled_from("Hf")
)
home_forms = st.sampled_from(["\x1b[H", "\x1b[;H", "\x1b[1H", "\x1b[f"])
column = st.builds(lambda n: f"\x1b[{n}G", st.integers(0, 50)) | st.just("\x1b[G")
forward = st.builds(lambda n: f"\x1b[{n}C", st.integers(0, 50))
ink_erase_lines = st.integers(1, 5).map(lambda n: "\r" + "\x1b[2K\x1b[1A" * n + "\x1b[2K\x1b[G")
# erasing from a column (pyte erases nothing where a wrap is pending; xterm and tmux the last column)
erase = st.builds(
    lambda at, e: at + e,
    column,
    st.sampled_from(["\x1b[K", "\x1b[0K", "\x1b[1K", "\x1b[2K", "\x1b[J", "\x1b[0J", "\x1b[2J"])
    | st.builds(lambda n: f"\x1b[{n}X", st.integers(0, 30)),
)
controls = st.sampled_from(["\r", "\n", "\r\n", "\r\n", "\t"])
modes = st.sampled_from(
    ["\x1b[?25l", "\x1b[?25h", "\x1b[?2004h", "\x1b[?2004l", "\x1b[?1004h", "\x1b[?2026h", "\x1b[?2026l",
     "\x1b[?1h", "\x1b[?1l", "\x1b=", "\x1b>", "\x1b[?7l", "\x1b[?7h"]
)  # fmt: skip
title = st.builds(lambda t: f"\x1b]0;{t}\x07", st.text(alphabet="abc xyz", max_size=8))
# ratatui's insert_before: a scroll region, line feeds at its bottom, the region reset
region = st.builds(
    lambda t, b, n, s: f"\x1b[{t};{b}r\x1b[{b};1H" + "\n" * n + s + "\x1b[r",
    st.integers(1, 4),
    st.integers(5, 8),
    st.integers(0, 4),
    st.text(alphabet="xyz ", max_size=6),
)

# OSC 8 hyperlinks around text (Claude Code's file links), ended by BEL or ST: nothing shows but the text
hyperlink = st.builds(
    lambda url, t, end: f"\x1b]8;;{url}{end}{t}\x1b]8;;{end}",
    st.sampled_from(["file:///a/b.py", "https://example.com/x?y=1", ""]),
    text,
    st.sampled_from(["\x07", "\x1b\\"]),
)
# after a move (so no wrap is pending): save and restore the cursor (crossterm's SavePosition), insert and
# delete lines and characters, reverse index, line position
edit = st.builds(
    lambda at, e: at + e,
    cursor_position,
    st.sampled_from(["\x1b7", "\x1b8", "\x1bM"])
    | st.builds(lambda n, f: f"\x1b[{n}{f}", st.sampled_from(["", "1", "2", "5"]), st.sampled_from("LM@Pd")),
)

fragment = st.one_of(
    text, text, text, sgr, sgr, sgr.flatmap(lambda s: text.map(lambda t: s + t)), controls, controls,
    cursor_position, home_forms, column, forward, ink_erase_lines, erase, modes, title, region, hyperlink,
    edit,
)  # fmt: skip
streams = st.lists(fragment, max_size=60).map("".join)
sizes = st.tuples(st.integers(2, 40), st.integers(2, 8))

FIELDS = ("fg", "bg", "bold", "italics", "underscore", "strikethrough", "reverse")


class StockScreen(pyte.Screen):  # type: ignore[misc]
    """Stock pyte with two bugs put right: ``delete_lines`` left line y as it was when line y + count had
    never been written (``0 ESC[H ESC[M`` kept the ``0``), where a terminal (tmux, xterm) blanks it; and
    ``restore_cursor`` set autowrap on again when it was on at the save, where a terminal leaves it as it is
    (and clears the origin mode when it was off at the save, where pyte left it set).
    Everything else is pyte's own code."""

    def restore_cursor(self) -> None:
        wrap = pyte.modes.DECAWM in self.mode
        origin = bool(self.savepoints) and self.savepoints[-1].origin
        super().restore_cursor()
        (self.mode.add if wrap else self.mode.discard)(pyte.modes.DECAWM)
        (self.mode.add if origin else self.mode.discard)(pyte.modes.DECOM)

    def delete_lines(self, count: int | None = None) -> None:
        count = count or 1
        top, bottom = self.margins or pyte.screens.Margins(0, self.lines - 1)
        if top <= self.cursor.y <= bottom:
            self.dirty.update(range(self.cursor.y, self.lines))
            for y in range(self.cursor.y, bottom + 1):
                if y + count <= bottom and y + count in self.buffer:
                    self.buffer[y] = self.buffer.pop(y + count)
                else:
                    self.buffer.pop(y, None)  # pyte: only when y + count is past the bottom
            self.carriage_return()


def stock_state(stream: str, width: int, height: int) -> dict[str, object]:
    screen = StockScreen(width, height)
    pyte.Stream(screen).feed(stream)
    cells = {
        (y, x): (char.data, *(getattr(char, f) for f in FIELDS))
        for y in range(height)
        for x, char in ((x, screen.buffer[y][x]) for x in range(width))
        if char.data.strip()
    }
    return {
        "rows": [row.rstrip() for row in screen.display],
        "cursor": (screen.cursor.y, screen.cursor.x, screen.cursor.hidden),
        "title": screen.title,
        "cells": cells,
    }


def our_state(stream: str, width: int, height: int, reads: int) -> dict[str, object]:
    screen = Screen(width, height)
    step = max(1, len(stream) // reads)
    for start in range(0, len(stream), step):
        screen.feed(stream[start : start + step])
    vt = screen.vt
    cells = {
        (y, x): (cell, *(getattr(vt.style_rows[y][x], f) for f in FIELDS))
        for y, row in enumerate(vt.rows)
        for x, cell in enumerate(row)
        if cell.strip()
    }
    return {
        "rows": [row.rstrip() for row in screen.text_rows()],
        "cursor": (vt.cursor.y, vt.cursor.x, vt.cursor.hidden),
        "title": screen.title,
        "cells": cells,
    }


@settings(max_examples=1000)
@given(stream=streams, size=sizes, reads=st.integers(1, 7))
@example(stream="\x1b[1;38;5;208;48;2;0;0;255mab\x1b[22mcd\x1b[0m\r\nef", size=(4, 2), reads=3)
@example(stream="\x1b[1m0\x1b[H\x1b[0m0", size=(2, 2), reads=1)  # default text over bold, after a move
@example(
    stream="\x1b[31mab\r\n\x1b[0mcd\r\n\x1b[32me\x1b[0mf\rg\r\n\r\nh", size=(4, 2), reads=1
)  # scrolled rows
@example(stream="\x1b[2;1H\x1b[31mab\x1b[H\x1b[0m\ncd", size=(4, 3), reads=1)  # a line feed onto colour
@example(stream="0\x1b[0;0H\x1b[M", size=(2, 2), reads=1)  # delete lines: the line below was never written
@example(stream="\x1b[0;2H\x1b7\x1b[?7l\x1b[0;0H\x1b800", size=(2, 2), reads=1)  # autowrap off after a save
def test_agent_tui_streams_give_stock_pyte_s_screen(stream: str, size: tuple[int, int], reads: int) -> None:
    width, height = size
    assert our_state(stream, width, height, reads) == stock_state(stream, width, height)
