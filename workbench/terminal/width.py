"""How many columns a character takes, as tmux 3.3 on Linux draws it.

Goldens are compared as text, so the screen model must put every character in
the column a real terminal does. Widths come from the ``wcwidth`` package, with
the rules tmux 3.3a follows on Linux (checked against it in
``tests/terminal/test_tmux.py``):

* zero-width characters (combining marks, variation selectors such as U+FE0F,
  U+200B, U+200D) add to the cell before the cursor and take no column; a
  variation selector does not widen the cell (tmux 3.3 draws ``❤️`` in one
  column, as ``❤``);
* after a zero-width joiner (U+200D), the next non-ASCII character joins the
  same cell, so an emoji ZWJ sequence such as ``👨‍👩‍👧`` takes the width of
  its first character; an ASCII character after a ZWJ is drawn on its own and
  the ZWJ is dropped (tmux 3.3a instead keeps it pending across ASCII text and
  joins the next non-ASCII character to whatever cell precedes it, a quirk we
  do not copy);
* regional indicators (the halves of a flag) are one column each, as glibc
  says; a skin-tone modifier is a character of its own (two columns);
* East Asian wide and fullwidth characters and most emoji take two columns.

:data:`NARROW_RUN` matches runs of characters known to take exactly one column
each, so the screen can draw them in bulk instead of character by character.
"""

from __future__ import annotations

import re
import unicodedata

from wcwidth import wcwidth

ZWJ = "\u200d"
_REGIONAL = range(0x1F1E6, 0x1F200)
_WIDTHS: dict[str, int] = {}


def char_width(ch: str) -> int:
    """Columns ``ch`` takes: 0 (joins the previous cell), 1 or 2."""
    cached = _WIDTHS.get(ch)
    if cached is not None:
        return cached
    code = ord(ch)
    w = wcwidth(ch)
    if code in _REGIONAL:
        w = 1
    elif w == 0 or unicodedata.category(ch) in ("Mn", "Me") or 0xFE00 <= code <= 0xFE0F:
        w = 0
    elif w < 0:
        w = 1  # unassigned or otherwise unknown: one column, so the rest of the row stays in place
    if len(_WIDTHS) > 16384:
        _WIDTHS.clear()
    _WIDTHS[ch] = w
    return w


def _narrow_class() -> str:
    """A regex character class of common non-ASCII characters that take one column each."""
    candidates = [
        (0xA0, 0x2FF),  # Latin-1 supplement, Latin extended, spacing modifiers
        (0x370, 0x4FF),  # Greek, Cyrillic
        (0x2010, 0x2027),  # dashes, quotes, bullets, ellipsis
        (0x2030, 0x205E),
        (0x2070, 0x20CF),  # super/subscripts, currency
        (0x2100, 0x23FF),  # letterlike, arrows, maths, technical
        (0x2500, 0x25FF),  # box drawing, blocks, geometric shapes
        (0x2600, 0x27BF),  # symbols, dingbats
        (0x2800, 0x28FF),  # braille (spinners)
    ]
    # Private use (powerline and nerd-font glyphs) is one column by definition.
    ranges: list[tuple[int, int]] = [(0xE000, 0xF8FF)]
    for first, last in candidates:
        start = None
        for code in range(first, last + 2):
            ok = code <= last and _is_plain_narrow(chr(code))
            if ok and start is None:
                start = code
            elif not ok and start is not None:
                ranges.append((start, code - 1))
                start = None
    return "".join(f"\\u{a:04x}-\\u{b:04x}" if a != b else f"\\u{a:04x}" for a, b in ranges)


def _is_plain_narrow(ch: str) -> bool:
    return char_width(ch) == 1 and unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Zl", "Zp")


NARROW_RUN = re.compile(f"[ -~{_narrow_class()}]+")
"""Runs of characters that take one column each and never join a neighbour."""


def split_cells(row: str) -> list[str]:
    """Cut a row of text into cells by the rules above: a wide character is followed by ``""``.

    Used to render screenshots that were not taken from a live screen (a golden
    read back from disk); a live screen keeps its own cells.
    """
    if row.isascii() and row.isprintable():  # most rows: one cell per character, nothing joins
        return list(row)
    cells: list[str] = []
    joining = False
    for ch in row:
        width = char_width(ch)
        if cells and (width == 0 or (joining and ord(ch) >= 0x80)):
            last = -2 if cells[-1] == "" and len(cells) > 1 else -1
            cells[last] += ch
            joining = ch == ZWJ
            continue
        joining = False
        if width == 0:
            continue
        cells.append(ch)
        if width == 2:
            cells.append("")
    return cells
