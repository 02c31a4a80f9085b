"""The row storage of the screen and every edit of it: scrolling, erasing, inserting, resizing.

Each row is its cells and their :class:`~.style.Style` objects, side by side.
The cells are stored in one of two forms (:data:`Cells`):

* a ``str`` of exactly ``columns`` characters while every cell holds one
  character of one column (most rows: a log's, a listing's, a TUI's): a blank
  row is one shared string, so a scroll allocates nothing, and a run of text
  is written by slicing and joining (``row[:x] + text + row[e:]``), which
  copies bytes in C instead of building a list of one-character strings;
* a list of cells (a character, a character with what joined it, or ``""``
  for the second column of a wide character) once an edit needs one
  (:meth:`RowStore._cells`): wide and joining characters, inserting and
  deleting characters.

Readers get lists (:attr:`~.vt.Terminal.rows`) or text, never the stored form.
A row's styles are stored in one of three forms (:data:`Styles`):

* the one shared tuple of :func:`blank_styles` while they are all the default
  (as blank rows are one shared str): a scroll allocates nothing, and most text
  in the default style is written without a style;
* runs, for a row written from its first column on (:func:`styled`): a list
  ``[under, end0, style0, end1, style1, ...]`` in which the first run starts at
  column 0, each run ends where the next starts, and the cells from the last
  end on keep the styles of ``under`` (a row in either of the other forms, or
  runs whose own ``under`` is None; None: all default). A run of text written
  where the last one ended, the usual case (a line of a log, a listing, a
  highlighted file; a full-screen redraw row by row), is two appends, and a row
  that scrolls away unread never has its 120 cells' styles built; a redraw from
  column 0 starts new runs over the old ones, which are dropped once the new
  ones reach the right edge;
* a list of one style per cell (a run of text is a slice assignment), which
  any other edit makes (:meth:`RowStore._style_row`), and readers get
  (:func:`style_cells`).

A scroll is a
``pop`` and an ``insert`` of one row, and the whole-screen scroll hands the
cells of the row that leaves the top to the bounded scrollback without copying
them. The scrollback keeps no styles: nothing reads them (only its text is
shown), and a style row freed as it leaves, while it is still in the CPU's
cache, costs less than one freed a thousand rows later.

These methods replace pyte's versions of the same names (pyte keeps its rows in
dicts of ``Char``) with the same semantics, except where noted in
:mod:`.vt`: erasing keeps only the background colour, wide characters are kept
whole (an edit that cuts one blanks the rest of it), and lines leave for the
scrollback only when the whole primary screen scrolls (tmux's rule).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from pyte import modes as mo
from pyte.screens import Margins

from .style import DEFAULT, Style, make_style
from .width import char_width

Row = list[str]
"""A row's cells as readers get them."""
Cells = str | list[str]
"""A row's cells as stored: a ``str`` while each cell is one character of one column, else the list."""
StyleRow = list[Style]
"""A row's styles, to edit in place."""
Styles = tuple[Style, ...] | list[Any]
"""A row's styles as stored: :func:`blank_styles` (a tuple), runs, or one style per cell (module docstring)."""
_BLANK_STYLES: dict[int, tuple[Style, ...]] = {}


def blank_styles(columns: int) -> tuple[Style, ...]:
    """The shared row of ``columns`` default styles (immutable: a row that needs another style gets a list)."""
    row = _BLANK_STYLES.get(columns)
    if row is None:
        if len(_BLANK_STYLES) >= 64:  # bounded, whatever sizes terminals go through
            _BLANK_STYLES.clear()
        row = _BLANK_STYLES[columns] = (DEFAULT,) * columns
    return row


class RowStore:
    """Mixin of :class:`~.vt.Terminal`: the rows and the edits that pyte would make on its dict buffer."""

    columns: int
    lines: int
    cursor: Any  # pyte's Cursor: x, y, attrs (a Style), hidden
    margins: Margins | None
    mode: set[int]
    tabstops: set[int]
    dirty: set[int]
    history: deque[Cells]
    _chars: list[Cells]
    _styles: list[Styles]
    _primary: tuple[list[Cells], list[Styles]] | None
    _cup: dict[str, tuple[int, int]]

    def _blank_rows(self, n: int) -> list[Cells]:
        return [" " * self.columns] * n  # one string, shared: a str row is never changed in place

    def _cells(self, y: int) -> Row:
        """Row ``y``'s cells as a list, to edit in place (a row stored as a str becomes a list)."""
        rc = self._chars[y]
        if isinstance(rc, str):
            rc = self._chars[y] = [*rc]
        return rc

    def _style_row(self, y: int) -> StyleRow:
        """Row ``y``'s styles as one per cell, to edit in place (the shared blank row, or runs, become a list)."""
        rs = self._styles[y]
        if isinstance(rs, tuple):
            cells = self._styles[y] = [DEFAULT] * len(rs)
        elif rs[0].__class__ is not Style:
            cells = self._styles[y] = _runs_cells(rs, self.columns)
        else:
            cells = rs
        return cells

    def _erase_style(self) -> Style:
        """Erased cells keep only the current background colour (background colour erase)."""
        bg = self.cursor.attrs.bg
        if bg == "default" and mo.DECSCNM not in self.mode:
            return DEFAULT
        return make_style(("default", bg, False, False, False, False, False, mo.DECSCNM in self.mode, False))

    # ------------------------------------------------------------------ lines and scrolling

    def _line_down(self) -> None:
        """Index without touching the column: scroll at the bottom margin."""
        top, bottom = self.margins or (0, self.lines - 1)
        if self.cursor.y == bottom:
            self._scroll_up(top, bottom, 1)
        elif self.cursor.y < self.lines - 1:
            self.cursor.y += 1

    def _scroll_up(self, top: int, bottom: int, count: int, to_history: bool = True) -> None:
        """Lines from ``top`` move up ``count``; blank lines appear at ``bottom``; the whole screen feeds history."""
        rows, styles, cols = self._chars, self._styles, self.columns
        blank, plain = " " * cols, blank_styles(cols)
        keep = (
            to_history
            and top == 0
            and bottom == self.lines - 1
            and self._primary is None
            and self.history.maxlen
        )
        for _ in range(min(count, bottom - top + 1)):
            c = rows.pop(top)
            del styles[top]
            if keep:
                self.history.append(c)
            rows.insert(bottom, blank)
            styles.insert(bottom, plain)

    def _scroll_down(self, top: int, bottom: int, count: int) -> None:
        rows, styles, cols = self._chars, self._styles, self.columns
        blank, plain = " " * cols, blank_styles(cols)
        for _ in range(min(count, bottom - top + 1)):
            rows.pop(bottom)
            styles.pop(bottom)
            rows.insert(top, blank)
            styles.insert(top, plain)

    def _region(self) -> tuple[int, int]:
        return self.margins or (0, self.lines - 1)

    def index(self) -> None:
        """IND / LF: down one line, scrolling at the bottom margin (a pending wrap stays pending, as in tmux)."""
        self._line_down()

    def linefeed(self) -> None:
        self.index()
        if mo.LNM in self.mode:
            self.cursor.x = 0

    def next_line(self) -> None:
        """NEL (``ESC E``): carriage return and line feed (pyte forgets the carriage return)."""
        self.cursor.x = 0
        self.index()

    def reverse_index(self) -> None:
        """RI: up one line, scrolling down at the top margin."""
        top, bottom = self._region()
        if self.cursor.y == top:
            self._scroll_down(top, bottom, 1)
        elif self.cursor.y > 0:
            self.cursor.y -= 1

    def scroll_up(self, count: int | None = None) -> None:
        """SU (``CSI n S``): scroll the region up; the cursor stays."""
        top, bottom = self._region()
        self._scroll_up(top, bottom, count or 1)

    def scroll_down(self, count: int | None = None) -> None:
        """SD (``CSI n T``): scroll the region down; the cursor stays."""
        top, bottom = self._region()
        self._scroll_down(top, bottom, count or 1)

    def insert_lines(self, count: int | None = None) -> None:
        top, bottom = self._region()
        y = self.cursor.y
        if top <= y <= bottom:
            self._scroll_down(y, bottom, count or 1)
            self.cursor.x = 0

    def delete_lines(self, count: int | None = None) -> None:
        top, bottom = self._region()
        y = self.cursor.y
        if top <= y <= bottom:
            self._scroll_up(y, bottom, count or 1, to_history=False)
            self.cursor.x = 0

    # ------------------------------------------------------------------ characters and erasing

    def _x(self) -> int:
        """The cursor column for editing: the last column while a wrap is pending."""
        return int(min(self.cursor.x, self.columns - 1))

    def _fix(self, rc: Row, i: int) -> None:
        """Keep wide characters whole around column boundary ``i`` after an edit."""
        cols = self.columns
        if i < cols and rc[i] == "" and (i == 0 or not is_wide(rc[i - 1])):
            rc[i] = " "
        if i > 0 and is_wide(rc[i - 1]) and (i == cols or rc[i] != ""):
            rc[i - 1] = " "

    def insert_characters(self, count: int | None = None) -> None:
        """ICH: blanks at the cursor push the rest of the row right."""
        x, cols = self._x(), self.columns
        n = min(count or 1, cols - x)
        rc, rs = self._cells(self.cursor.y), self._style_row(self.cursor.y)
        if rc[x] == "" and x:
            rc[x - 1] = rc[x] = " "
        rc[x:x] = [" "] * n
        rs[x:x] = [self._erase_style()] * n
        del rc[cols:], rs[cols:]
        self._fix(rc, cols)

    def delete_characters(self, count: int | None = None) -> None:
        """DCH: the rest of the row moves left over the deleted cells."""
        x, cols = self._x(), self.columns
        n = min(count or 1, cols - x)
        rc, rs = self._cells(self.cursor.y), self._style_row(self.cursor.y)
        del rc[x : x + n], rs[x : x + n]
        rc.extend([" "] * n)
        rs.extend([self._erase_style()] * n)
        self._fix(rc, x)

    def erase_characters(self, count: int | None = None) -> None:
        """ECH: blank ``count`` cells from the cursor."""
        x = self._x()
        self._erase(self.cursor.y, x, min(x + (count or 1), self.columns))

    def _erase(self, y: int, start: int, end: int) -> None:
        if start >= end:
            return
        style = self._erase_style()
        if style is not DEFAULT or not isinstance(self._styles[y], tuple):
            self._style_row(y)[start:end] = [style] * (end - start)
        rc = self._chars[y]
        if isinstance(rc, str):  # no wide character to keep whole
            self._chars[y] = rc[:start] + " " * (end - start) + rc[end:]
            return
        rc[start:end] = [" "] * (end - start)
        self._fix(rc, start)
        self._fix(rc, end)

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        """EL: 0 from the cursor to the end, 1 from the start to the cursor, 2 the whole row."""
        x, y = self._x(), self.cursor.y
        if how == 0:
            self._erase(y, x, self.columns)
        elif how == 1:
            self._erase(y, 0, x + 1)
        elif how == 2:
            self._erase(y, 0, self.columns)

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        """ED: 0 below, 1 above, 2 everything, 3 everything and the scrollback."""
        y = self.cursor.y
        if how == 0:
            rows = range(y + 1, self.lines)
        elif how == 1:
            rows = range(y)
        elif how in (2, 3):
            rows = range(self.lines)
        else:
            return
        style = self._erase_style()
        blank = " " * self.columns
        for row in rows:
            self._chars[row] = blank
            self._styles[row] = blank_styles(self.columns) if style is DEFAULT else [style] * self.columns
        if how in (0, 1):
            self.erase_in_line(how)
        if how == 3:
            self.history.clear()

    def alignment_display(self) -> None:
        """DECALN: fill the screen with ``E``."""
        self._chars = ["E" * self.columns] * self.lines

    # ------------------------------------------------------------------ size

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        """Change the size as tmux does: rows leave from the bottom if blank below the cursor, else from the top."""
        lines = max(1, lines or self.lines)
        columns = max(1, columns or self.columns)
        if lines == self.lines and columns == self.columns:
            return
        shift = self._resize_rows(self._chars, self._styles, lines, columns, primary=self._primary is None)
        if self._primary is not None:
            self._resize_rows(*self._primary, lines, columns, primary=True)
        self.cursor.y = max(0, self.cursor.y - shift)
        if columns > self.columns:
            self.tabstops.update(range((self.columns // 8 + 1) * 8, columns, 8))
        self.tabstops = {t for t in self.tabstops if t < columns}
        self.lines, self.columns = lines, columns
        self.margins = None
        self._cup.clear()
        self.cursor.x = min(self.cursor.x, columns)
        self.cursor.y = min(self.cursor.y, lines - 1)
        self.dirty.update(range(lines))

    def _resize_rows(
        self, rows: list[Cells], styles: list[Styles], lines: int, columns: int, primary: bool
    ) -> int:
        """Resize one buffer in place; return how many rows left from the top."""
        plain = blank_styles(columns)
        for y, (rc, rs) in enumerate(zip(rows, styles, strict=True)):
            if rs.__class__ is list and rs[0].__class__ is not Style:  # runs, of the old width
                rs = styles[y] = _runs_cells(rs, self.columns)
            if isinstance(rs, tuple):
                styles[y] = plain
            else:
                del rs[columns:]
                rs.extend([DEFAULT] * (columns - len(rs)))
            if isinstance(rc, str):
                rows[y] = rc[:columns].ljust(columns)
            elif columns < len(rc):
                del rc[columns:]
                if is_wide(rc[-1]):
                    rc[-1] = " "
            else:
                rc.extend([" "] * (columns - len(rc)))
        from_top = 0
        if lines < len(rows):
            excess = len(rows) - lines
            while excess and len(rows) - 1 > self.cursor.y and not "".join(rows[-1]).strip():
                rows.pop()
                styles.pop()
                excess -= 1
            for _ in range(excess):
                c = rows.pop(0)
                del styles[0]
                if primary and self.history.maxlen:
                    self.history.append(c)
            from_top = excess
        while len(rows) < lines:
            rows.append(" " * columns)
            styles.append(plain)
        return from_top


def style_cells(rs: Styles, columns: int) -> tuple[Style, ...] | StyleRow:
    """A row's styles one per cell, whatever their stored form (a new list for runs: do not keep it)."""
    if rs.__class__ is tuple or rs[0].__class__ is Style:
        return rs
    return _runs_cells(rs, columns)


def _runs_cells(runs: Any, columns: int) -> StyleRow:
    """Runs (module docstring) one style per cell, in a new list."""
    under: Any = runs[0]
    out: StyleRow
    if under is None:
        out = [DEFAULT] * columns
    elif under.__class__ is tuple or under[0].__class__ is Style:
        out = [*under]
    else:
        out = _runs_cells(under, columns)
    start = 0
    for i in range(1, len(runs), 2):
        end: int = runs[i]
        out[start:end] = [runs[i + 1]] * (end - start)
        start = end
    return out


def style_spans(rs: Styles, columns: int) -> list[tuple[int, int, Style]]:
    """A row's maximal spans ``(start, end, style)`` of equal styles that are not the default, left to right.

    Runs are read as they are stored (a redrawn row is a few runs, not 120 cells to compare); styles are
    compared by identity, then by key (equal styles are nearly always the same object).
    """
    raw: list[tuple[int, int, Style]] = []
    _raw_spans(rs, 0, columns, raw)
    out: list[tuple[int, int, Style]] = []
    default_key = DEFAULT.key
    for start, end, style in raw:
        if out:
            last = out[-1]
            if last[1] == start and (last[2] is style or last[2].key == style.key):
                out[-1] = (last[0], end, last[2])
                continue
        if style is not DEFAULT and style.key != default_key:
            out.append((start, end, style))
    return out


def _raw_spans(rs: Any, start: int, columns: int, out: list[tuple[int, int, Style]]) -> None:
    """Spans of equal styles of the stored row ``rs`` from column ``start`` on, appended to ``out``."""
    if rs is None or rs.__class__ is tuple:  # all default
        return
    if rs[0].__class__ is Style:  # one per cell
        if start == 0 and rs == [*blank_styles(columns)]:  # (compared in C, by identity first)
            return
        begin, current = start, rs[start]
        current_key = current.key
        for x in range(start + 1, columns):
            style = rs[x]
            if style is not current and style.key != current_key:
                out.append((begin, x, current))
                begin, current, current_key = x, style, style.key
        out.append((begin, columns, current))
        return
    begin = 0
    for i in range(1, len(rs), 2):
        end: int = rs[i]
        if end > start:
            out.append((max(begin, start), end, rs[i + 1]))
        begin = end
    if begin < columns:
        _raw_spans(rs[0], max(begin, start), columns, out)


def styled(
    rows: list[Any], y: int, x: int, e: int, style: Style, columns: int
) -> tuple[list[Any], bool, int, int]:
    """Columns ``x`` to ``e`` of row ``y`` take ``style``, where the parse loop cannot just append a run.

    The row's styles are runs or one per cell (the loop makes runs of the blank tuple itself). Returns them
    as stored now and what the loop keeps of them (:mod:`.fastpath`): whether they are one per cell, the end
    of their last run (-1 when not runs) and the column from which all are default.
    """
    rs: Any = rows[y]
    new: list[Any]
    under: Any = rs[0]
    if under.__class__ is Style:  # one per cell
        if x == 0:  # runs over them, from column 0
            new = rows[y] = [rs, e, style]
            return new, False, e, columns
        rs[x:e] = [style] * (e - x)
        return rs, True, -1, columns
    end: int = rs[-2]
    if x > end and under is None:  # past the runs, where all is default
        rs += (x, DEFAULT, e, style)
        return rs, False, e, e
    if x == 0:  # new runs over these: they drop what is under them once they cover the row
        if end == columns:
            rs[0] = None
        elif under is not None:
            rs = style_cells(rs, columns)
        new = rows[y] = [rs, e, style]
        return new, False, e, columns
    cells = rows[y] = _runs_cells(rs, columns)
    cells[x:e] = [style] * (e - x)
    return cells, True, -1, columns


def is_wide(cell: str) -> bool:
    return cell != "" and char_width(cell[0]) == 2
