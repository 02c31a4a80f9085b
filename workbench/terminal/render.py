"""Renderings of a screenshot for people: ANSI text for a terminal or a log, SVG for a report.

Both walk the screenshot's cells (a wide character's second cell is ``""``) and
group equal styles, so a rendering lines up column for column with the golden.
Colours are pyte's names and hex values (see :mod:`.style`); the SVG maps them
to a fixed dark palette, so a picture does not depend on anyone's terminal theme.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .style import DEFAULT, Style

if TYPE_CHECKING:
    from .shot import Shot

_NAMES = ("black", "red", "green", "brown", "blue", "magenta", "cyan", "white")
_INDEX = {name: i for i, name in enumerate(_NAMES)} | {"yellow": 3}
_FLAGS = (("bold", "1"), ("dim", "2"), ("italics", "3"), ("underscore", "4"), ("blink", "5"), ("reverse", "7"),
          ("strikethrough", "9"))  # fmt: skip
PALETTE = ("#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
           "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff")  # fmt: skip
SVG_FG, SVG_BG = "#d4d4d4", "#1e1e1e"
CELL_W, CELL_H = 8.4, 17.0
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def escape(text: str) -> str:
    """XML text: markup escaped, characters XML cannot hold replaced (``html.escape(text, quote=False)``'s
    three replacements, without importing ``html`` and its entities at every start of ``workbench run``)."""
    return _NOT_XML.sub("\ufffd", text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def segments(shot: Shot, y: int, cells: list[str] | None = None) -> list[tuple[int, int, str, Style]]:
    """Row ``y`` as (column, cells, text, style) pieces of equal style (``cells``: the row's, if the caller has them)."""
    cells = shot.row_cells(y) if cells is None else cells
    styles: list[Style] = [DEFAULT] * len(cells)
    for run in shot.runs(y):
        styles[run.col : run.col + run.length] = [run.style] * min(run.length, max(0, len(cells) - run.col))
    out: list[tuple[int, int, str, Style]] = []
    start = 0
    for x in range(1, len(cells) + 1):
        if x == len(cells) or styles[x] != styles[start]:
            out.append((start, x - start, "".join(cells[start:x]), styles[start]))
            start = x
    return out


def _sgr_colour(value: str, base: int) -> str:
    if value in _INDEX:
        return str(base + _INDEX[value])
    if value.startswith("bright") and value[6:] in _INDEX:
        return str(base + 60 + _INDEX[value[6:]])
    if len(value) == 6:
        r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
        return f"{base + 8};2;{r};{g};{b}"
    return ""


def sgr(style: Style) -> str:
    """The SGR sequence that selects ``style`` from the default (empty for the default)."""
    codes = [code for name, code in _FLAGS if getattr(style, name)]
    for value, base in ((style.fg, 30), (style.bg, 40)):
        if value != "default" and (code := _sgr_colour(value, base)):
            codes.append(code)
    return f"\x1b[{';'.join(codes)}m" if codes else ""


def to_ansi(shot: Shot) -> str:
    """Rows with SGR codes around styled pieces, joined by newlines (each piece ends with a reset)."""
    lines = []
    for y in range(shot.height):
        parts = []
        for _, _, text, style in segments(shot, y):
            start = sgr(style)
            parts.append(f"{start}{text}\x1b[0m" if start else text)
        lines.append("".join(parts))
    return "\n".join(lines)


def svg_colour(value: str, default: str) -> str:
    """A colour of :mod:`.style` as an SVG colour."""
    if value == "default":
        return default
    if value in _INDEX:
        return PALETTE[_INDEX[value]]
    if value.startswith("bright") and value[6:] in _INDEX:
        return PALETTE[8 + _INDEX[value[6:]]]
    if len(value) == 6:
        return "#" + value
    return default


def to_svg(shot: Shot) -> str:
    """A standalone SVG of the screen: monospace text on the palette's background, cursor outlined."""
    width, height = shot.width * CELL_W, shot.height * CELL_H
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
        f'font-size="{CELL_H * 0.8:.1f}">',
        f'<rect width="100%" height="100%" fill="{SVG_BG}"/>',
    ]
    for y in range(shot.height):
        top, baseline = y * CELL_H, (y + 0.78) * CELL_H
        for col, count, text, style in segments(shot, y):
            fg, bg = svg_colour(style.fg, SVG_FG), svg_colour(style.bg, SVG_BG)
            if style.reverse:
                fg, bg = bg, fg
            if bg != SVG_BG:
                out.append(f'<rect x="{col * CELL_W:.1f}" y="{top:.1f}" width="{count * CELL_W:.1f}" '
                           f'height="{CELL_H:.1f}" fill="{bg}"/>')  # fmt: skip
            if not text.strip():
                continue
            attrs = f' fill="{fg}"'
            if style.bold:
                attrs += ' font-weight="bold"'
            if style.italics:
                attrs += ' font-style="italic"'
            if style.dim:
                attrs += ' opacity="0.6"'
            decorations = [
                d for d, on in (("underline", style.underscore), ("line-through", style.strikethrough)) if on
            ]
            if decorations:
                attrs += f' text-decoration="{" ".join(decorations)}"'
            out.append(f'<text x="{col * CELL_W:.1f}" y="{baseline:.1f}" xml:space="preserve"{attrs}>'
                       f"{escape(text)}</text>")  # fmt: skip
    if shot.cursor_visible:
        row, col = shot.cursor
        out.append(f'<rect class="cursor" x="{col * CELL_W:.1f}" y="{row * CELL_H:.1f}" width="{CELL_W:.1f}" '
                   f'height="{CELL_H:.1f}" fill="none" stroke="{SVG_FG}"/>')  # fmt: skip
    out.append("</svg>")
    return "\n".join(out) + "\n"
