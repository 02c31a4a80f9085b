"""The screen model: pyte's VT semantics, a fast parser, and the fixes agent output needs.

Stock pyte 0.8.2 parses one character at a time through a generator and builds
a new ``Char`` per printed character, which caps it at about 0.5 MB/s, and it
gets several things wrong that coding agents print all the time. This
:class:`Screen` subclasses :class:`pyte.Screen` (pyte keeps the cursor, margin,
erase, insert/delete and mode semantics) and replaces what is slow or wrong:

* the parser (:meth:`Screen.feed`): a regular expression splits the input into
  runs of printable text and whole control sequences, so a run of text is drawn
  in one step; a sequence split across two reads is kept until it is complete;
* drawing: an ASCII run is written into the row with one ``dict.update`` of
  ``(character, attributes)`` pairs built by C code (no Python call per
  character); cells written by pyte's own methods (erase, insert, ...) are
  :class:`Cell` tuples. Both start with the character, so readers use ``cell[0]``
  for the text and :func:`attrs_of` for the style; other text goes through a
  per-character path with our width rules;
* width rules (as tmux 3.3 draws them): zero-width characters (combining marks,
  variation selectors such as U+FE0F, U+200D) join the previous cell instead of
  dropping the rest of the text (pyte's bug), a character after a zero-width
  joiner joins the same cell (so an emoji ZWJ sequence takes two columns), a wide
  character that does not fit in the last column wraps;
* the alternate screen buffer (``?1049``, ``?1047``, ``?47``): switch, clear,
  and restore the primary screen and cursor on exit;
* SGR: colon-separated sub-parameters (``38:2::r:g:b``, ``38:5:n``, ``4:3``), the
  dim attribute (SGR 2, cleared by 22), and bright colours;
* queries: cursor-position (``CSI 6n``) and device-attribute (``CSI c``,
  ``CSI > c``) requests are answered through :attr:`Screen.on_answer`, so
  programs that ask do not stall;
* a bounded scrollback of the lines that scroll off the top of the primary screen.

Colours keep pyte's representation (names such as ``red`` and ``brightblue``,
six hex digits for 256-colour and truecolor), so our cells equal stock pyte's
wherever stock pyte is right.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from collections.abc import Callable
from functools import lru_cache
from itertools import repeat
from typing import Any, NamedTuple

import pyte
from pyte import charsets, graphics
from pyte import modes as mo
from pyte.screens import StaticDefaultDict
from wcwidth import wcwidth

from .shot import Shot, StyleRun

ESC = "\x1b"
ZWJ = "\u200d"
MAX_PENDING = 65536  # an unterminated OSC/DCS longer than this is dropped, never buffered forever

_TEXT = re.compile(r"[^\x00-\x1f\x7f-\x9f]+")
_CSI = re.compile(r"\x1b\[([?>=<]?)([0-9;:]*)([ -/]*)([@-~])")
_CSI_FAST = re.compile(r"\x1b\[([0-9;]*)([mHf])")
_LAT1 = charsets.LAT1_MAP
_CSI_PREFIX = re.compile(r"\x1b\[[?>=<]?[0-9;:]*[ -/]*")
_OSC = re.compile(r"\x1b\]([^\x07\x1b]*)(?:\x07|\x1b\\)")
_STRING = re.compile(r"\x1b[PX^_][^\x1b]*\x1b\\")  # DCS, SOS, PM, APC: consumed and ignored
_ESC_OTHER = re.compile(r"\x1b([ -/]*)([0-~])")

_CSI_METHODS = {
    "@": "insert_characters", "A": "cursor_up", "B": "cursor_down", "C": "cursor_forward", "D": "cursor_back",
    "E": "cursor_down1", "F": "cursor_up1", "G": "cursor_to_column", "H": "cursor_position", "J": "erase_in_display",
    "K": "erase_in_line", "L": "insert_lines", "M": "delete_lines", "P": "delete_characters", "X": "erase_characters",
    "a": "cursor_forward", "c": "report_device_attributes", "d": "cursor_to_line", "e": "cursor_down",
    "f": "cursor_position", "g": "clear_tab_stop", "h": "set_mode", "l": "reset_mode", "n": "report_device_status",
    "r": "set_margins", "`": "cursor_to_column",
}  # fmt: skip
_PRIVATE_OK = {"h", "l", "J", "K", "c"}  # methods that take pyte's ``private`` flag
_ESC_METHODS = {"c": "reset", "D": "index", "E": "linefeed", "M": "reverse_index", "H": "set_tab_stop",
                "7": "save_cursor", "8": "restore_cursor"}  # fmt: skip
_ALT_SCREEN_MODES = {1049, 1047, 47}
DA2_ANSWER = "\x1b[>0;276;0c"


class Cell(NamedTuple):
    """One screen cell: pyte's ``Char`` fields plus ``dim``."""

    data: str = " "
    fg: str = "default"
    bg: str = "default"
    bold: bool = False
    italics: bool = False
    underscore: bool = False
    strikethrough: bool = False
    reverse: bool = False
    blink: bool = False
    dim: bool = False


DEFAULT_CELL = Cell()
_STYLE_FIELDS = Cell._fields[1:]


@lru_cache(maxsize=4096)
def char_width(ch: str) -> int:
    """Columns a character takes: 0 for combining, format and variation characters; else 1 or 2."""
    w = wcwidth(ch)
    if w < 0:
        return 0
    if w == 0 or unicodedata.category(ch) in ("Mn", "Me", "Cf") or 0xFE00 <= ord(ch) <= 0xFE0F:
        return 0
    return int(w)


class Rows(list[Any]):
    """The screen's rows as a list (C-speed indexing; scrolling is one memmove) with the dict API pyte uses.

    pyte keeps rows in a ``defaultdict`` keyed by line number and scrolls by moving
    every row one key up, which costs a Python loop per line feed. A list indexes
    as fast and scrolls with ``del`` plus ``insert``. ``pop``, ``get``,
    ``values``, ``items``, ``clear`` and ``in`` behave as pyte expects of its dict:
    a popped row is replaced by an empty one.
    """

    def __init__(self, count: int, new_row: Callable[[], Any]) -> None:
        super().__init__(new_row() for _ in range(count))
        self._new_row = new_row

    def __contains__(self, y: object) -> bool:
        return isinstance(y, int) and 0 <= y < len(self)

    def pop(self, y: int = -1, default: Any = None) -> Any:  # type: ignore[override]
        if not 0 <= y < len(self):
            return default
        row = self[y]
        self[y] = self._new_row()
        return row

    def get(self, y: int, default: Any = None) -> Any:
        return self[y] if 0 <= y < len(self) else default

    def values(self) -> list[Any]:
        return list(self)

    def items(self) -> list[tuple[int, Any]]:
        return list(enumerate(self))

    def clear(self) -> None:
        self[:] = [self._new_row() for _ in range(len(self))]

    def scroll_up(self, top: int, bottom: int) -> Any:
        """Drop row ``top``, move the rows below it up, add an empty row at ``bottom``; return the dropped row."""
        row = list.pop(self, top)
        self.insert(bottom, self._new_row())
        return row

    def fit(self, count: int) -> None:
        del self[count:]
        self.extend(self._new_row() for _ in range(count - len(self)))


class _CellCache(dict[str, Cell]):
    """Cells of one set of attributes by character: text drawn again and again in one style reuses them."""

    __slots__ = ("attrs",)

    def __init__(self, attrs: Cell) -> None:
        super().__init__()
        self.attrs = attrs

    def __missing__(self, ch: str) -> Cell:
        cell = self[ch] = self.attrs._replace(data=ch)
        return cell


StoredCell = tuple[Any, ...]  # a Cell, or a (character, Cell) pair written by the fast draw path


def attrs_of(cell: StoredCell) -> Cell:
    """The attributes of a stored cell, whichever form it has."""
    return cell[1] if len(cell) == 2 else cell  # type: ignore[return-value]


class Screen(pyte.Screen):  # type: ignore[misc]
    """A pyte screen with a fast parser and the fixes described in the module docstring."""

    buffer: Any  # pyte's rows: line number -> {column: Cell}

    def __init__(self, columns: int, lines: int, scrollback: int = 1000) -> None:
        self.history: deque[dict[int, Cell]] = deque(maxlen=max(0, scrollback))
        self.on_answer: Callable[[str], None] | None = None
        self.answers: list[str] = []
        self._pending = ""
        self._after_zwj = False
        self._primary: Any = None  # the primary buffer while the alternate screen is shown
        self._sgr_cache: dict[tuple[Cell, str], Cell] = {}
        self._cells = _CellCache(DEFAULT_CELL)
        self._last_attrs: Cell | None = None
        super().__init__(columns, lines)
        self.buffer = self._new_buffer()

    # ------------------------------------------------------------------ state

    @property
    def default_char(self) -> Cell:
        return Cell(reverse=mo.DECSCNM in self.mode)

    def reset(self) -> None:
        super().reset()
        self.cursor.attrs = self.default_char
        self._primary = None
        self._pending = ""
        self._after_zwj = False

    def _new_buffer(self) -> Rows:
        return Rows(self.lines, lambda: StaticDefaultDict(self.default_char))

    @property
    def alternate(self) -> bool:
        """True while the alternate screen buffer is shown."""
        return self._primary is not None

    # ------------------------------------------------------------------ parsing

    def feed(self, data: str) -> None:
        """Interpret decoded terminal output; chunks may split anywhere, even inside a sequence."""
        if self._pending:
            data = self._pending + data
            self._pending = ""
        pos, end = 0, len(data)
        text_match, csi_match = _TEXT.match, _CSI_FAST.match
        sgr_cache = self._sgr_cache
        cursor = self.cursor
        attrs: Cell
        while pos < end:
            ch = data[pos]
            if ch == ESC:
                # Fast path for the two sequences agent UIs send most: SGR and cursor position.
                fast = csi_match(data, pos)
                if fast is not None:
                    params, final = fast.groups()
                    if final == "m":
                        cached_attrs = sgr_cache.get((cursor.attrs, params))
                        if cached_attrs is None:
                            self._sgr(params)
                        else:
                            cursor.attrs = cached_attrs
                        pos = fast.end()
                        self._after_zwj = False
                        continue
                    if mo.DECOM not in self.mode:
                        row, _, col = params.partition(";")
                        cursor.y = min(max(int(row or 1), 1), self.lines) - 1
                        cursor.x = min(max(int(col.partition(";")[0] or 1), 1), self.columns) - 1
                        pos = fast.end()
                        self._after_zwj = False
                        continue
                pos = self._escape(data, pos, end)
                if pos < 0:
                    return
                cursor = self.cursor  # reset() and restore_cursor() replace the cursor object
                continue
            if ch >= " " and not "\x7f" <= ch <= "\x9f":
                match = text_match(data, pos)
                assert match is not None
                text = match.group()
                x = cursor.x
                if (
                    x + len(text) <= self.columns
                    and not self._after_zwj
                    and text.isascii()
                    and not self.charset
                    and self.g0_charset is _LAT1
                    and mo.IRM not in self.mode
                ):
                    # the common case: a run of ASCII that fits on the line
                    attrs = cursor.attrs
                    line = self.buffer[cursor.y]
                    if x and line.get(x, DEFAULT_CELL)[0] == "":
                        line[x - 1] = attrs
                    cells = self._cells
                    if cells.attrs is not attrs and attrs is self._last_attrs:
                        cells = self._cells = _CellCache(
                            cursor.attrs
                        )  # a style seen twice in a row: cache it
                    self._last_attrs = attrs
                    if cells.attrs is attrs:
                        line.update(zip(range(x, x + len(text)), map(cells.__getitem__, text), strict=False))
                    else:
                        line.update(zip(range(x, x + len(text)), zip(text, repeat(attrs)), strict=False))
                    after = line.get(x + len(text))
                    if after is not None and after[0] == "":
                        line[x + len(text)] = attrs
                    cursor.x = x + len(text)
                    self.dirty.add(cursor.y)
                else:
                    self.draw(text)
                pos = match.end()
                continue
            self._after_zwj = False
            if ch == "\r":
                self.cursor.x = 0
                if pos + 1 < end and data[pos + 1] == "\n":
                    self.linefeed()
                    pos += 1
            elif ch in "\n\x0b\x0c":
                self.linefeed()
            elif ch == "\x08":
                self.backspace()
            elif ch == "\t":
                self.tab()
            elif ch == "\x07":
                self.bell()
            pos += 1

    def _escape(self, data: str, pos: int, end: int) -> int:
        """Handle the sequence at ``pos``; return the position after it, or -1 if it is incomplete."""
        self._after_zwj = False
        if pos + 1 >= end:
            return self._keep(data, pos)
        kind = data[pos + 1]
        if kind == "[":
            match = _CSI.match(data, pos)
            if match is None:
                prefix = _CSI_PREFIX.match(data, pos)
                if prefix is not None and prefix.end() == end:
                    return self._keep(data, pos)
                return pos + 1  # malformed: drop the ESC, show the rest as text (as terminals do)
            self._csi(*match.groups())
            return match.end()
        if kind == "]":
            match = _OSC.match(data, pos)
            if match is None:
                return self._keep_string(data, pos, end, "\x07")
            self._osc(match.group(1))
            return match.end()
        if kind in "PX^_":
            match = _STRING.match(data, pos)
            if match is None:
                return self._keep_string(data, pos, end, "")
            return match.end()
        match = _ESC_OTHER.match(data, pos)
        if match is None:
            rest = data[pos + 1 :]
            if all(" " <= c <= "/" for c in rest):
                return self._keep(data, pos)
            return pos + 1
        inter, final = match.groups()
        if not inter:
            name = _ESC_METHODS.get(final)
            if name is not None:
                getattr(self, name)()
        elif inter == "#" and final == "8":
            self.alignment_display()
        elif inter in "()":
            self.define_charset(final, inter)
        return match.end()

    def _keep(self, data: str, pos: int) -> int:
        self._pending = data[pos:]
        return -1

    def _keep_string(self, data: str, pos: int, end: int, terminator: str) -> int:
        """An OSC/DCS without its terminator yet: keep it unless it is absurdly long or broken."""
        body = data[pos + 2 :]
        inner_esc = body.find(ESC)
        if inner_esc != -1 and inner_esc + 1 < len(body):
            return pos + 1  # an ESC that is not ST ends it: malformed, drop the ESC
        if end - pos > MAX_PENDING:
            return end  # never buffer without bound
        return self._keep(data, pos)

    def _csi(self, prefix: str, params: str, inter: str, final: str) -> None:
        if final == "m" and not prefix and not inter:
            self._sgr(params)
            return
        if inter:
            return  # DECSCUSR (cursor shape), soft reset, ...: nothing to show
        if prefix == ">":
            if final == "c":
                self.write_process_input(DA2_ANSWER)
            return
        if prefix in ("=", "<"):
            return
        if (final == "H" or final == "f") and not prefix and mo.DECOM not in self.mode and ":" not in params:
            row, _, col = params.partition(";")
            cursor = self.cursor
            cursor.y = min(max(int(row or 1), 1), self.lines) - 1
            cursor.x = min(max(int(col.partition(";")[0] or 1), 1), self.columns) - 1
            return
        name = _CSI_METHODS.get(final)
        if name is None:
            return
        if ":" in params:
            params = ";".join(p.split(":", 1)[0] for p in params.split(";"))
        numbers = [min(int(p), 9999) if p else 0 for p in params.split(";")]
        if prefix == "?":
            if final in _PRIVATE_OK:
                getattr(self, name)(*numbers, private=True)
            elif final == "n":
                self.report_device_status(*numbers)
            return
        getattr(self, name)(*numbers)

    def _osc(self, body: str) -> None:
        code, _, text = body.partition(";")
        if code in ("0", "1"):
            self.set_icon_name(text)
        if code in ("0", "2"):
            self.set_title(text)

    # ------------------------------------------------------------------ drawing

    def draw(self, data: str) -> None:
        """Draw a run of printable text at the cursor."""
        if self.charset:
            data = data.translate(self.g1_charset)
        elif self.g0_charset is not charsets.LAT1_MAP:
            data = data.translate(self.g0_charset)
        if data.isascii() and mo.IRM not in self.mode:
            self._draw_ascii(data)
        else:
            self._draw_slow(data)

    def _draw_ascii(self, data: str) -> None:
        cursor, columns = self.cursor, self.columns
        attrs = cursor.attrs
        self._after_zwj = False
        # A style drawn twice in a row (plain output) reuses cached cells; a new style (coloured runs,
        # redraws) is stored as (character, attributes) pairs that C code builds without a call per character.
        cached = self._cells.attrs is attrs
        if not cached:
            self._cells = _CellCache(attrs)
        get = self._cells.__getitem__
        i, n = 0, len(data)
        while i < n:
            if cursor.x >= columns:
                if mo.DECAWM in self.mode:
                    self.dirty.add(cursor.y)
                    cursor.x = 0
                    self.linefeed()
                else:
                    self.buffer[cursor.y][columns - 1] = (data[-1], attrs)
                    break
            line = self.buffer[cursor.y]
            x = cursor.x
            take = min(n - i, columns - x)
            if x and line.get(x, DEFAULT_CELL)[0] == "":
                line[x - 1] = attrs  # overwriting half of a wide character blanks its other half
            if cached:
                line.update(zip(range(x, x + take), map(get, data[i : i + take]), strict=False))
            else:
                line.update(zip(range(x, x + take), zip(data[i : i + take], repeat(attrs)), strict=False))
            after = line.get(x + take)
            if after is not None and after[0] == "":
                line[x + take] = attrs
            cursor.x = x + take
            i += take
        self.dirty.add(cursor.y)

    def _draw_slow(self, data: str) -> None:
        cursor, columns = self.cursor, self.columns
        for ch in data:
            width = char_width(ch)
            if width == 0 or self._after_zwj:
                self._join_previous(ch)
                self._after_zwj = ch == ZWJ
                continue
            if cursor.x >= columns or (width == 2 and cursor.x == columns - 1):
                if mo.DECAWM in self.mode:
                    if cursor.x < columns:
                        self.buffer[cursor.y][cursor.x] = cursor.attrs
                    self.dirty.add(cursor.y)
                    cursor.x = 0
                    self.linefeed()
                else:
                    cursor.x = columns - width
            if mo.IRM in self.mode:
                self.insert_characters(width)
            line = self.buffer[cursor.y]
            x = cursor.x
            if x and line.get(x, DEFAULT_CELL)[0] == "":
                line[x - 1] = cursor.attrs
            line[x] = (ch, cursor.attrs)
            if width == 2:
                line[x + 1] = ("", cursor.attrs)
            after = line.get(x + width)
            if after is not None and after[0] == "":
                line[x + width] = cursor.attrs
            cursor.x = x + width
        self.dirty.add(cursor.y)

    def _join_previous(self, ch: str) -> None:
        """A zero-width character (or one after a ZWJ) belongs to the cell before the cursor."""
        x, y = self.cursor.x, self.cursor.y
        if x == 0:
            if y == 0:
                return
            y -= 1
            x = self.columns
        line = self.buffer[y]
        x -= 1
        if x > 0 and line[x][0] == "":
            x -= 1
        last = line[x]
        line[x] = (unicodedata.normalize("NFC", last[0] + ch), attrs_of(last))
        self.dirty.add(y)

    # ------------------------------------------------------------------ SGR

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        """pyte's entry point (used by its own mode handling); takes integer parameters."""
        self._sgr(";".join(map(str, attrs)))

    def _sgr(self, params: str) -> None:
        key = (self.cursor.attrs, params)
        attrs = self._sgr_cache.get(key)
        if attrs is None:
            if len(self._sgr_cache) > 4096:
                self._sgr_cache.clear()
            attrs = self._sgr_cache[key] = _apply_sgr(self.cursor.attrs, params, self.default_char)
        self.cursor.attrs = attrs

    # ------------------------------------------------------------------ modes, scrolling, answers

    @property
    def display(self) -> list[str]:
        """pyte's text view, from our cells."""
        return self.text_rows()

    def _as_cells(self) -> None:
        """Turn (character, attributes) pairs back into Cells, for pyte code that edits cells in place."""
        for line in self.buffer.values():
            for x, cell in list(line.items()):
                if len(cell) == 2:
                    line[x] = cell[1]._replace(data=cell[0])

    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        if kwargs.get("private") and 5 in modes:
            self._as_cells()  # DECSCNM rewrites every cell with _replace
        if kwargs.get("private"):
            for mode in _ALT_SCREEN_MODES.intersection(modes):
                self._enter_alternate(save_cursor=mode == 1049)
        super().set_mode(*modes, **kwargs)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        if kwargs.get("private") and 5 in modes:
            self._as_cells()
        if kwargs.get("private"):
            for mode in _ALT_SCREEN_MODES.intersection(modes):
                self._leave_alternate(restore_cursor=mode == 1049)
        super().reset_mode(*modes, **kwargs)

    def _enter_alternate(self, save_cursor: bool) -> None:
        if self._primary is not None:
            return
        if save_cursor:
            self.save_cursor()
        self._primary = self.buffer
        self.buffer = self._new_buffer()
        self.dirty.update(range(self.lines))

    def _leave_alternate(self, restore_cursor: bool) -> None:
        if self._primary is None:
            return
        self.buffer = self._primary
        self._primary = None
        if restore_cursor:
            self.restore_cursor()
        self.dirty.update(range(self.lines))

    def index(self) -> None:
        """Move down one line, scrolling at the bottom margin; lines leaving the top go to the scrollback."""
        top, bottom = self.margins or (0, self.lines - 1)
        cursor = self.cursor
        if cursor.y != bottom:
            if cursor.y < self.lines - 1:
                cursor.y += 1
            return
        dropped = self.buffer.scroll_up(top, bottom)
        if top == 0 and self._primary is None and self.history.maxlen:
            self.history.append(dropped)
        self.dirty.update(range(self.lines))

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        super().resize(lines, columns)
        self.buffer.fit(self.lines)
        if self._primary is not None:
            self._primary.fit(self.lines)

    def write_process_input(self, data: str) -> None:
        """Answers to queries (cursor position, device attributes) go back to the program."""
        self.answers.append(data)
        if len(self.answers) > 64:
            del self.answers[:-64]
        if self.on_answer is not None:
            self.on_answer(data)

    # ------------------------------------------------------------------ reading

    def text_rows(self) -> list[str]:
        """Exactly ``lines`` rows of ``columns`` cells; a wide character's second cell adds nothing."""
        columns = range(self.columns)
        rows = []
        for y in range(self.lines):
            line = self.buffer.get(y)
            if not line:
                rows.append(" " * self.columns)
                continue
            get = line.get
            rows.append("".join([get(x, DEFAULT_CELL)[0] for x in columns]))
        return rows

    def cursor_at(self) -> tuple[int, int]:
        """(row, column), zero-based; the column may equal the width while a wrap is pending."""
        return self.cursor.y, self.cursor.x

    def style_runs(self) -> list[list[StyleRun]]:
        """Per row, runs of equal non-default style (colours and attributes)."""
        rows: list[list[StyleRun]] = []
        for y in range(self.lines):
            line = self.buffer.get(y) or {}
            runs: list[StyleRun] = []
            x = 0
            while x < self.columns:
                style = attrs_of(line.get(x, DEFAULT_CELL))[1:]
                start = x
                x += 1
                while x < self.columns and attrs_of(line.get(x, DEFAULT_CELL))[1:] == style:
                    x += 1
                if style != DEFAULT_CELL[1:]:
                    runs.append(StyleRun(start, x - start, dict(zip(_STYLE_FIELDS, style, strict=True))))
            rows.append(runs)
        return rows

    def snapshot(self) -> Shot:
        """The screen as a value: text rows, cursor and style runs."""
        return Shot(
            width=self.columns,
            height=self.lines,
            rows=tuple(self.text_rows()),
            cursor=self.cursor_at(),
            styles=tuple(tuple(r) for r in self.style_runs()),
        )


_SGR_DELTAS: dict[str, tuple[bool, dict[str, Any]]] = {}


def _apply_sgr(attrs: Cell, params: str, default: Cell) -> Cell:
    """The attributes after one SGR sequence; the parse of each parameter string is cached."""
    delta = _SGR_DELTAS.get(params)
    if delta is None:
        if len(_SGR_DELTAS) > 8192:
            _SGR_DELTAS.clear()
        delta = _SGR_DELTAS[params] = _parse_sgr(params)
    reset, replace = delta
    base = default if reset else attrs
    return base._replace(**replace) if replace else base


def _parse_sgr(params: str) -> tuple[bool, dict[str, Any]]:
    """(resets first?, fields to set) for one SGR parameter string; `;` and `:` forms of colours."""
    reset = False
    tokens = params.split(";") if params else ["0"]
    replace: dict[str, Any] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        subs = token.split(":")
        try:
            code = int(subs[0] or 0)
        except ValueError:
            continue
        if code == 0:
            reset, replace = True, {}
        elif code in (38, 48, 58):
            if len(subs) > 1:
                colour = _extended_colour(subs[1:])
            else:
                colour, used = _extended_colour_semicolon(tokens[i:])
                i += used
            if colour is not None and code != 58:
                replace["fg" if code == 38 else "bg"] = colour
        elif code == 4 and len(subs) > 1:
            replace["underscore"] = subs[1] not in ("", "0")
        elif code in _SIMPLE:
            replace.update(_SIMPLE[code])
        elif code in graphics.FG_ANSI:
            replace["fg"] = graphics.FG_ANSI[code]
        elif code in graphics.BG_ANSI:
            replace["bg"] = graphics.BG_ANSI[code]
        elif code in graphics.FG_AIXTERM:
            replace["fg"] = graphics.FG_AIXTERM[code]
        elif code in graphics.BG_AIXTERM:
            replace["bg"] = graphics.BG_AIXTERM[code]
    return reset, replace


_SIMPLE: dict[int, dict[str, bool]] = {
    1: {"bold": True}, 2: {"dim": True}, 3: {"italics": True}, 4: {"underscore": True}, 5: {"blink": True},
    6: {"blink": True}, 7: {"reverse": True}, 9: {"strikethrough": True}, 21: {"underscore": True},
    22: {"bold": False, "dim": False}, 23: {"italics": False}, 24: {"underscore": False}, 25: {"blink": False},
    27: {"reverse": False}, 29: {"strikethrough": False},
}  # fmt: skip


def _extended_colour(subs: list[str]) -> str | None:
    """`5:n` or `2:[colourspace]:r:g:b` (the colon form)."""
    try:
        if subs[0] == "5" and len(subs) >= 2:
            return str(graphics.FG_BG_256[int(subs[1]) % 256])
        if subs[0] == "2":
            rgb = subs[2:5] if len(subs) >= 5 else subs[1:4]
            if len(rgb) == 3:
                return "".join(f"{min(int(c or 0), 255):02x}" for c in rgb)
    except ValueError:
        return None
    return None


def _extended_colour_semicolon(rest: list[str]) -> tuple[str | None, int]:
    """`5;n` or `2;r;g;b` after a 38/48: the colour and how many tokens it used."""
    if not rest:
        return None, 0
    try:
        if rest[0] == "5" and len(rest) >= 2:
            return str(graphics.FG_BG_256[int(rest[1] or 0) % 256]), 2
        if rest[0] == "2" and len(rest) >= 4:
            return "".join(f"{min(int(c or 0), 255):02x}" for c in rest[1:4]), 4
    except ValueError:
        return None, len(rest)
    return None, len(rest)
