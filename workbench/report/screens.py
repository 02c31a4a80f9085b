"""Terminal screens as HTML, each stored once however many steps show it.

A screen is rendered row by row into HTML (colours and attributes from the
style runs of the trace or the golden's sidecar, the same palette as the SVG
rendering of :mod:`workbench.terminal.render`). Rows are interned: a row that
appears in many screens (a header, a blank line, a line that scrolled up) is
one string, and a screen is the list of its row numbers. Identical screens are
one number. That is what keeps a report of a hundred scenarios small: most
steps of a run change a line or two of the screen, or nothing at all.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence
from html import escape
from typing import Any

from workbench.terminal.render import PALETTE, segments
from workbench.terminal.shot import Shot, coordinate, runs_from_json
from workbench.terminal.style import Style
from workbench.terminal.width import split_cells

_NAMES = ("black", "red", "green", "brown", "blue", "magenta", "cyan", "white")
_ATTRS = (("bold", "b"), ("dim", "d"), ("italics", "i"), ("underscore", "u"), ("strikethrough", "s"),
          ("blink", "k"))  # fmt: skip
FG, BG = "#d4d4d4", "#1e1e1e"


def colour(value: str) -> str | None:
    """A pyte colour name or hex value as CSS; None for the default."""
    if value in _NAMES:
        return PALETTE[_NAMES.index(value)]
    if value == "yellow":
        return PALETTE[3]
    if value.startswith("bright") and value[6:] in _NAMES:
        return PALETTE[8 + _NAMES.index(value[6:])]
    if len(value) == 6 and all(c in "0123456789abcdefABCDEF" for c in value):
        return f"#{value}"
    return None


def shot_of(rows: Sequence[str], style: Any, width: int, height: int, cursor: Any = None) -> Shot:
    """A screenshot from a trace record's rows and style (or a golden's text and sidecar)."""
    runs = runs_from_json(style.get("rows")) if isinstance(style, dict) else ()
    rows = (list(rows) + [""] * height)[:height]
    at = (
        (coordinate(cursor[0]), coordinate(cursor[1]))
        if isinstance(cursor, list | tuple) and len(cursor) == 2
        else (0, 0)
    )
    return Shot(width, height, tuple(rows), at, runs)


def _span(text: str, style: Style, changed: bool) -> str:
    opening = _opening(style, changed)
    text = escape(text, quote=False)
    return f"{opening}{text}</span>" if opening else text


@functools.lru_cache(maxsize=4096)
def _opening(style: Style, changed: bool) -> str:
    """The ``<span ...>`` that starts a piece in ``style`` (empty for the default, unmarked): once per style."""
    classes = [short for name, short in _ATTRS if getattr(style, name)]
    fg, bg = colour(style.fg), colour(style.bg)
    if style.reverse:
        fg, bg = bg or BG, fg or FG
    if changed:
        classes.append("x")
    css = ";".join(f"{prop}:{value}" for prop, value in (("color", fg), ("background", bg)) if value)
    if not classes and not css:
        return ""
    return ("<span" + (f' class="{" ".join(classes)}"' if classes else "") + (f' style="{css}"' if css else "")
            + ">")  # fmt: skip


_MARKUP = re.compile(r"<[^>]*>|&[#\w]+;")


def _cells_of(text: str) -> str:
    """Text of a row with each wide character in a ``w`` span, two cells wide whatever the font draws.

    A browser draws a wide character with the font it finds for it: a CJK font's glyph is
    rarely exactly two cells of the monospace font, and a missing glyph is a box of one, so
    the rest of the row moved left or right of the column the terminal put it in.
    """
    if text.isascii():
        return text
    out: list[str] = []
    cells = split_cells(text)
    for n, cell in enumerate(cells):
        if cell and n + 1 < len(cells) and cells[n + 1] == "":
            out.append(f'<span class="w">{cell}</span>')
        else:
            out.append(cell)
    return "".join(out)


def fixed_cells(html: str) -> str:
    """A row's HTML with its wide characters held to two cells (:func:`_cells_of`), tags untouched."""
    if html.isascii():
        return html
    out: list[str] = []
    at = 0
    for tag in _MARKUP.finditer(html):
        out += [_cells_of(html[at : tag.start()]), tag.group()]
        at = tag.end()
    out.append(_cells_of(html[at:]))
    return "".join(out)


def row_html(shot: Shot, y: int, changed: Collection[int] = ()) -> str:
    """Row ``y`` as HTML, trailing default blanks dropped; cells in ``changed`` carry the class ``x``."""
    if not changed and not shot.runs(y):  # most rows: plain text, no need to cut it into cells
        return fixed_cells(escape(shot.rows[y] if y < len(shot.rows) else "", quote=False).rstrip(" "))
    pieces: list[str] = []
    row_cells = shot.row_cells(y)
    for col, cells, text, style in segments(shot, y, row_cells):
        if not changed:
            pieces.append(_span(text, style, False))
            continue
        cut = [col + i for i in range(cells) if (col + i in changed) != (col + i - 1 in changed) or i == 0]
        cell_texts = row_cells[col : col + cells]
        for n, start in enumerate(cut):
            end = cut[n + 1] if n + 1 < len(cut) else col + cells
            pieces.append(_span("".join(cell_texts[start - col : end - col]), style, start in changed))
    if pieces and not pieces[-1].endswith("</span>"):  # a blank end of row is the page's background anyway
        pieces[-1] = pieces[-1].rstrip(" ")
    return fixed_cells("".join(pieces))


class ScreenStore:
    """Interned rows and screens; ids are positions in :attr:`rows` and :attr:`screens`."""

    def __init__(self) -> None:
        self.rows: list[str] = []
        self.screens: list[list[int]] = []
        self._row_ids: dict[str, int] = {}
        self._screen_ids: dict[tuple[int, ...], int] = {}
        self._rendered: dict[tuple[object, ...], str] = {}

    def add_rows(self, rows: Sequence[str]) -> int:
        """The id of the screen made of these HTML rows (the same id for the same rows)."""
        ids = []
        for row in rows:
            n = self._row_ids.get(row)
            if n is None:
                n = self._row_ids[row] = len(self.rows)
                self.rows.append(row)
            ids.append(n)
        key = tuple(ids)
        found = self._screen_ids.get(key)
        if found is None:
            found = self._screen_ids[key] = len(self.screens)
            self.screens.append(ids)
        return found

    def add(self, shot: Shot, changed: Sequence[Collection[int]] = ()) -> int:
        """The id of ``shot`` rendered (with ``changed[y]`` the marked columns of row ``y``).

        A row already rendered (same text, styles and marks) is not rendered again: most
        steps and frames repeat most rows of the screen before them.
        """
        rows = []
        for y in range(shot.height):
            marks = frozenset(changed[y]) if y < len(changed) else frozenset()
            key = (shot.rows[y] if y < len(shot.rows) else "", shot.runs(y), marks, shot.width)
            html = self._rendered.get(key)
            if html is None:
                html = self._rendered[key] = row_html(shot, y, marks)
            rows.append(html)
        return self.add_rows(rows)

    def to_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "screens": self.screens}
