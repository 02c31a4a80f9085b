"""The screen model: pyte's VT semantics, a fast parser, and the fixes agent output needs.

Stock pyte 0.8.2 parses one character at a time through a generator and builds
a new ``Char`` per printed character, which caps it at about 0.5 MB/s, and it
gets several things wrong that coding agents print all the time. This
:class:`Screen` subclasses :class:`pyte.Screen` (pyte keeps the cursor, margin,
erase, insert/delete and mode semantics) and replaces what is slow or wrong:

* the parser (:meth:`Screen.feed`): a regular expression splits the input into
  runs of printable text and whole control sequences, so a run of text is drawn
  in one step; a sequence split across two reads is kept until it is complete;
* drawing: an ASCII run is written into the row with one ``dict.update`` using
  cached cells; other text goes through a per-character path with our width rules;
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
from collections import defaultdict, deque
from collections.abc import Callable
from functools import lru_cache
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


class _CellCache(dict[str, Cell]):
    """Cells of one set of attributes, keyed by character: drawing reuses them instead of building tuples."""

    __slots__ = ("attrs",)

    def __init__(self, attrs: Cell) -> None:
        super().__init__()
        self.attrs = attrs

    def __missing__(self, ch: str) -> Cell:
        cell = self.attrs._replace(data=ch)
        self[ch] = cell
        return cell


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
        self._cells: dict[Cell, _CellCache] = {}
        super().__init__(columns, lines)

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

    def _new_buffer(self) -> Any:
        return defaultdict(lambda: StaticDefaultDict(self.default_char))

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
        text_match = _TEXT.match
        while pos < end:
            ch = data[pos]
            if ch == ESC:
                pos = self._escape(data, pos, end)
                if pos < 0:
                    return
                continue
            if ch >= " " and not "\x7f" <= ch <= "\x9f":
                match = text_match(data, pos)
                assert match is not None
                self.draw(match.group())
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

    def _cells_for(self, attrs: Cell) -> _CellCache:
        cells = self._cells.get(attrs)
        if cells is None:
            if len(self._cells) > 512:
                self._cells.clear()
            cells = self._cells[attrs] = _CellCache(attrs)
        return cells

    def _draw_ascii(self, data: str) -> None:
        cursor, columns = self.cursor, self.columns
        cells = self._cells_for(cursor.attrs)
        get = cells.__getitem__
        self._after_zwj = False
        i, n = 0, len(data)
        while i < n:
            if cursor.x >= columns:
                if mo.DECAWM in self.mode:
                    self.dirty.add(cursor.y)
                    cursor.x = 0
                    self.linefeed()
                else:
                    line = self.buffer[cursor.y]
                    line[columns - 1] = get(data[-1])
                    break
            line = self.buffer[cursor.y]
            x = cursor.x
            take = min(n - i, columns - x)
            if x and line.get(x, DEFAULT_CELL).data == "":
                line[x - 1] = get(" ")  # overwriting half of a wide character blanks its other half
            line.update(zip(range(x, x + take), map(get, data[i : i + take]), strict=False))
            after = line.get(x + take)
            if after is not None and after.data == "":
                line[x + take] = get(" ")
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
            if x and line.get(x, DEFAULT_CELL).data == "":
                line[x - 1] = cursor.attrs
            line[x] = cursor.attrs._replace(data=ch)
            if width == 2:
                line[x + 1] = cursor.attrs._replace(data="")
            after = line.get(x + width)
            if after is not None and after.data == "":
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
        if x > 0 and line[x].data == "":
            x -= 1
        last = line[x]
        line[x] = last._replace(data=unicodedata.normalize("NFC", last.data + ch))
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

    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        if kwargs.get("private"):
            for mode in _ALT_SCREEN_MODES.intersection(modes):
                self._enter_alternate(save_cursor=mode == 1049)
        super().set_mode(*modes, **kwargs)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
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
        buffer = self.buffer
        if top == 0 and self._primary is None and self.history.maxlen:
            self.history.append(buffer.pop(0, None) or {})
        for y in range(top, bottom):
            following = buffer.pop(y + 1, None)
            if following is None:
                buffer.pop(y, None)
            else:
                buffer[y] = following
        if top == bottom:
            buffer.pop(bottom, None)
        self.dirty.update(range(self.lines))

    def write_process_input(self, data: str) -> None:
        """Answers to queries (cursor position, device attributes) go back to the program."""
        self.answers.append(data)
        if len(self.answers) > 64:
            del self.answers[:-64]
        if self.on_answer is not None:
            self.on_answer(data)

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        super().resize(lines, columns)
        self._cells.clear()

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
            rows.append("".join([get(x, DEFAULT_CELL).data for x in columns]))
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
                cell = line.get(x, DEFAULT_CELL)
                style = cell[1:]
                start = x
                x += 1
                while x < self.columns and line.get(x, DEFAULT_CELL)[1:] == style:
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


def _apply_sgr(attrs: Cell, params: str, default: Cell) -> Cell:
    """The attributes after one SGR sequence; handles `;` and `:` forms of extended colours."""
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
            attrs, replace = default, {}
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
    return attrs._replace(**replace) if replace else attrs


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
