"""The terminal emulator: pyte's VT semantics on row storage that can keep up with real programs.

:class:`Terminal` subclasses :class:`pyte.Screen`. pyte keeps what it does
well and cheaply (cursor motion, margins, modes, tab stops, save/restore of the
cursor, charsets, titles); this class replaces what is slow or wrong in stock
pyte 0.8.2:

* **storage** (:mod:`.rows`): each row is its cells (a ``str`` while each
  cell is one narrow character, else a list) and its :class:`~.style.Style`
  objects (one shared tuple while all default, runs while written left to
  right, else a list), so a run of text is a join and two appends, or two
  slice assignments, instead of one ``Char`` per character in a dict of dicts;
* **parsing**: :meth:`Terminal.feed` cuts an unfinished sequence off the end
  of the read (kept for the next one), splits the rest into tokens with one
  compiled regex (:data:`.parser.FAST`, ``findall``) and hands them to
  :func:`.fastpath.feed_tokens` (compiled with mypyc where it was built so:
  :mod:`.loop`), which applies the frequent ones (SGR, text and CR LF as one
  token, CR/LF, cursor position) on local variables; anything else syncs the
  cursor and goes through :meth:`Terminal.sequence`;
* **width rules** of :mod:`.width` (tmux 3.3a): text after emoji with U+FE0F
  or a ZWJ lands in the right column (stock pyte drops the rest of the run), a
  wide character that does not fit in the last column wraps (pyte cuts it in
  half), overwriting half of a wide character blanks the other half (pyte
  leaves a row wider than the screen);
* the **alternate screen** (``?1049``, ``?1047``, ``?47``, and ``?1048``
  cursor save): a fresh buffer while it is shown, the primary screen and cursor
  back when it is left; pyte ignores these modes and overwrites the screen;
* **SGR**: colon sub-parameters, dim, underline styles (:mod:`.style`);
* **queries**: cursor position (``CSI 6n``, ``CSI ?6n``), status (``CSI 5n``),
  primary and secondary device attributes (``CSI c``, ``CSI >c``) and the
  colour queries ``OSC 10/11 ?`` are answered through :attr:`Terminal.on_answer`
  so programs that wait for an answer do not stall;
* **scrollback**: lines scrolled off the top of the whole primary screen go to a
  bounded deque (tmux's rule: not from the alternate screen, not from a partial
  scroll region);
* a few sequences pyte lacks: ``CSI S``/``T`` (scroll), ``CSI b`` (repeat, used
  by ncurses), ``CSI I``/``Z`` (tabs), ``CSI s``/``u``, ``CSI ! p``, ``ESC E``
  with its carriage return, ``ED 3`` clearing the scrollback.

Deliberate differences from pyte: erased and inserted cells take the current
background colour only (xterm's and tmux's "background colour erase"), not
every attribute; DECCOLM (``?3h``) clears the screen without resizing it (as
tmux); combining marks are kept as sent, not NFC-normalised (tmux shows them as
sent); the line-drawing charset (``ESC ( 0``) works in UTF-8 as in tmux (pyte's
stream ignores it); cursor up and down
(``CSI A``/``B``) end a pending wrap in the last column while LF, RI and VPA
keep it pending (tmux 3.3a; pyte keeps it pending for all of them); delete
lines (``CSI M``) blanks a line whose replacement below was never written (as
every terminal; pyte 0.8.2's sparse buffer keeps the old line there); restoring
the cursor (``ESC 8``) restores the origin mode, set or not, and leaves the
autowrap mode alone (tmux, xterm; pyte sets both back when they were saved set).
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable
from typing import Any

import pyte
from pyte import charsets
from pyte import modes as mo
from pyte.screens import Cursor, Margins, Savepoint

from . import parser as p
from .loop import feed_tokens
from .rows import Cells, Row, RowStore, Styles, blank_styles, style_cells, style_spans
from .style import DEFAULT, Style
from .width import NARROW_RUN, ZWJ, char_width

DA1_ANSWER = "\x1b[?62;22c"  # VT220 with ANSI colour
DA2_ANSWER = "\x1b[>1;10;0c"  # VT220, firmware 10: too old for programs to try xterm-only queries
COLOUR_ANSWERS = {"10": "rgb:d4d4/d4d4/d4d4", "11": "rgb:1e1e/1e1e/1e1e"}  # the SVG palette's fg and bg
_LAT1 = charsets.LAT1_MAP
_NARROW = NARROW_RUN.fullmatch
_ALT_MODES = (47, 1047, 1049)
_MAX_ANSWERS = 64

# CSI final byte -> (method, how many parameters it takes)
_CSI: dict[str, tuple[str, int]] = {
    "@": ("insert_characters", 1), "A": ("cursor_up", 1), "B": ("cursor_down", 1), "C": ("cursor_forward", 1),
    "D": ("cursor_back", 1), "E": ("cursor_down1", 1), "F": ("cursor_up1", 1), "G": ("cursor_to_column", 1),
    "H": ("cursor_position", 2), "I": ("tab_forward", 1), "J": ("erase_in_display", 1), "K": ("erase_in_line", 1),
    "L": ("insert_lines", 1), "M": ("delete_lines", 1), "P": ("delete_characters", 1), "S": ("scroll_up", 1),
    "X": ("erase_characters", 1), "Z": ("tab_backward", 1), "`": ("cursor_to_column", 1), "a": ("cursor_forward", 1),
    "b": ("repeat_last", 1), "c": ("report_device_attributes", 1), "d": ("cursor_to_line", 1),
    "e": ("cursor_down", 1), "f": ("cursor_position", 2), "g": ("clear_tab_stop", 1),
    "n": ("report_device_status", 1), "r": ("set_margins", 2),
}  # fmt: skip
_ESC: dict[str, str] = {"c": "reset", "D": "index", "E": "next_line", "M": "reverse_index", "H": "set_tab_stop",
                        "7": "save_cursor", "8": "restore_cursor"}  # fmt: skip


class Terminal(RowStore, pyte.Screen):  # type: ignore[misc]
    """A pyte screen with our storage, parser and fixes (see the module docstring).

    pyte's ``dirty`` set is not kept up to date by the fast paths: readers take
    the whole screen (:meth:`~.screen.Screen.snapshot` costs well under a millisecond).
    """

    cursor: Cursor
    margins: Margins | None
    mode: set[int]
    columns: int
    lines: int

    def __init__(self, columns: int, lines: int, scrollback: int = 1000) -> None:
        # pyte.Screen.__init__ would build pyte's dict buffer; this does the same setup for our rows.
        self.columns = max(1, columns)
        self.lines = max(1, lines)
        self.savepoints: list[Savepoint] = []
        self.dirty: set[int] = set()
        self.history: deque[Cells] = deque(maxlen=max(0, scrollback))  # cells only: see .rows
        self.on_answer: Callable[[str], None] | None = None
        self.answers: deque[str] = deque(maxlen=_MAX_ANSWERS)
        self.reset()

    # ------------------------------------------------------------------ state

    def reset(self) -> None:
        """RIS: a blank screen, home cursor, default modes, tab stops and charsets (scrollback is kept)."""
        self._chars: list[Cells] = self._blank_rows(self.lines)
        self._styles: list[Styles] = [blank_styles(self.columns)] * self.lines
        self._primary: tuple[list[Cells], list[Styles]] | None = None
        self._alt_cursor: Savepoint | None = None
        self._saved_1048: Savepoint | None = None
        self._pending = ""
        self._skipping = ""  # the kind of an overlong OSC/DCS being dropped until its terminator
        self._after_zwj = False
        # No cell is the second half of a wide character (``""``) while this is False, so the fast path
        # need not look for one at the edges of what it writes; set for good by the first wide character.
        self._wide = False
        self._cup: dict[str, tuple[int, int]] = {}
        self.dirty.update(range(self.lines))
        self.margins = None
        self.mode = {mo.DECAWM, mo.DECTCEM}
        self.title = ""
        self.icon_name = ""
        self.charset = 0
        self.g0_charset = _LAT1
        self.g1_charset = charsets.VT100_MAP
        self.tabstops = set(range(8, self.columns, 8))
        self.cursor = Cursor(0, 0, DEFAULT)
        self.saved_columns = None

    @property
    def default_char(self) -> Style:
        """The style of a blank cell (reverse while DECSCNM is set, as pyte)."""
        return DEFAULT.replace(reverse=True) if mo.DECSCNM in self.mode else DEFAULT

    @property
    def alternate(self) -> bool:
        """True while the alternate screen buffer is shown."""
        return self._primary is not None

    @property
    def rows(self) -> list[Row]:
        """The cells of the visible buffer, row by row (lists, some of them live: do not modify)."""
        return [[*rc] if isinstance(rc, str) else rc for rc in self._chars]

    @property
    def style_rows(self) -> list[tuple[Style, ...] | list[Style]]:
        """The styles of the visible buffer, one per cell, parallel to :attr:`rows` (do not modify)."""
        cols = self.columns
        return [style_cells(rs, cols) for rs in self._styles]

    def style_spans(self) -> list[list[tuple[int, int, Style]]]:
        """Per row of the visible buffer, its maximal spans ``(start, end, style)`` of a style not the default."""
        cols = self.columns
        return [style_spans(rs, cols) for rs in self._styles]

    def style_at(self, y: int, x: int) -> Style:
        """The style of one cell of the visible buffer."""
        return style_cells(self._styles[y], self.columns)[x]

    @property
    def buffer(self) -> dict[int, dict[int, tuple[str, Style]]]:
        """A copy of the screen in pyte's shape (``{row: {column: (character, style)}}``), for debugging."""
        return {
            y: dict(enumerate(zip(chars, styles, strict=True)))
            for y, (chars, styles) in enumerate(zip(self._chars, self.style_rows, strict=True))
        }

    @property
    def display(self) -> list[str]:
        """pyte's text view: one string per row; a wide character's second cell adds nothing."""
        return ["".join(row) for row in self._chars]

    # ------------------------------------------------------------------ parsing

    def feed(self, data: str) -> None:
        """Interpret decoded terminal output; reads may be split anywhere, even inside a sequence."""
        if self._pending:
            data = self._pending + data
            self._pending = ""
        if self._skipping:
            data = self._skip_string(data)
        tail = p.incomplete_tail(data)
        head = data if tail < 0 else data[:tail]
        tokens, ascii = iter(p.FAST.findall(head)), head.isascii()
        while feed_tokens(self, tokens, ascii):
            pass
        if tail >= 0:  # kept after the tokens before it, which may reset the terminal
            if len(data) - tail <= p.MAX_PENDING:
                self._pending = data[tail:]
            elif data[tail + 1] in "]PX^_":
                # An endless string: stop buffering it and drop the rest of it as it arrives.
                self._skipping = data[tail + 1]
                self._pending = "\x1b" if data.endswith("\x1b") else ""

    def _skip_string(self, data: str) -> str:
        """Inside a string too long to keep: drop text up to its terminator; return what follows it."""
        ends = [i for i in (data.find("\x1b"), data.find("\x07") if self._skipping == "]" else -1) if i >= 0]
        if not ends:
            return ""
        i = min(ends)
        if data[i] == "\x07":
            rest = data[i + 1 :]
        elif i + 1 == len(data):
            self._pending = "\x1b"  # ST may be cut in two: decide with the next read
            return ""
        else:
            rest = data[i + 2 :] if data[i + 1] == "\\" else data[i:]
        self._skipping = ""
        return rest

    def _control(self, c: str) -> None:
        if c == "\t":
            self.tab()
        elif c == "\x0e":
            self.shift_out()
        elif c == "\x0f":
            self.shift_in()
        elif c == "\x07":
            self.bell()
        # NUL, DEL, ENQ, C1 controls...: nothing to show

    def sequence(self, token: str) -> None:
        """One whole sequence the fast path leaves to the emulator (in :data:`.parser.FAST`'s group 3)."""
        m = p.TOKEN.match(token)
        if m is None:
            return
        k = m.lastindex
        if k == p.CSI_FINAL:
            self._csi(m[p.CSI_PARAMS], m[p.CSI_INTER], m[p.CSI_FINAL])
        elif k == p.CUP_COL:  # cursor position under origin mode
            self.cursor_position(int(m[p.CUP_ROW] or 0), int(m[p.CUP_COL] or 0))
        elif k == p.OSC_END:
            self._osc(m[p.OSC], m[p.OSC_END])
        elif k == p.ESC_FINAL:
            self._esc(m[p.ESC_INTER], m[p.ESC_FINAL])

    def _csi(self, params: str, inter: str, final: str) -> None:
        prefix = ""
        if params and params[0] in "<=>?":
            prefix, params = params[0], params[1:]
        if inter:
            if inter == "!" and final == "p" and not prefix:
                self.soft_reset()
            return  # DECSCUSR (cursor shape), DECRQM, ...: nothing to show
        args = p.numbers(params)
        if prefix == "?":
            if final == "h":
                self.set_mode(*args, private=True)
            elif final == "l":
                self.reset_mode(*args, private=True)
            elif final == "J":
                self.erase_in_display(args[0])
            elif final == "K":
                self.erase_in_line(args[0])
            elif final == "n" and args[0] == 6:
                row, col = self._cursor_report()
                self.write_process_input(f"\x1b[?{row};{col}R")
            return
        if prefix == ">":
            if final == "c" and args[0] == 0:
                self.write_process_input(DA2_ANSWER)
            return
        if prefix:
            return
        if final == "s" or final == "u":
            if not params:
                (self.save_cursor if final == "s" else self.restore_cursor)()
            return
        if final == "T":
            if len(args) == 1:  # CSI T with 5 parameters is a mouse-tracking request, not a scroll
                self.scroll_down(args[0])
            return
        if final == "h" or final == "l":
            (self.set_mode if final == "h" else self.reset_mode)(*args)
            return
        entry = _CSI.get(final)
        if entry is None:
            return
        name, arity = entry
        getattr(self, name)(*(args if arity < 0 else args[:arity]))

    def _osc(self, body: str, terminator: str) -> None:
        code, _, text = body.partition(";")
        if code in ("0", "1"):
            self.set_icon_name(text)
        if code in ("0", "2"):
            self.set_title(text)
        if code in COLOUR_ANSWERS and text == "?":
            self.write_process_input(f"\x1b]{code};{COLOUR_ANSWERS[code]}{terminator}")

    def _esc(self, inter: str, final: str) -> None:
        if not inter:
            name = _ESC.get(final)
            if name is not None:
                getattr(self, name)()
        elif inter == "#" and final == "8":
            self.alignment_display()
        elif inter in ("(", ")"):
            self.define_charset(final, inter)
        # ESC % G, ESC SP F, ESC = / ESC > (keypad modes), ...: nothing to show

    # ------------------------------------------------------------------ drawing

    def draw(self, data: str) -> None:
        """Draw printable text at the cursor with our width rules; runs of narrow characters go in bulk."""
        if self.charset:
            data = data.translate(self.g1_charset)
        elif self.g0_charset is not _LAT1:
            data = data.translate(self.g0_charset)
        pos, end = 0, len(data)
        while pos < end:
            if not self._after_zwj or ord(data[pos]) < 0x80:
                run = NARROW_RUN.match(data, pos)
                if run is not None:
                    self._after_zwj = False
                    self._draw_narrow(run.group())
                    pos = run.end()
                    continue
            self._draw_char(data[pos])
            pos += 1

    def _draw_narrow(self, s: str) -> None:
        """Draw characters that take one column each, wrapping at the right edge."""
        cursor, cols = self.cursor, self.columns
        attr = cursor.attrs
        while s:
            if cursor.x >= cols:
                if mo.DECAWM in self.mode:
                    cursor.x = 0
                    self._line_down()
                else:
                    cursor.x = cols - 1
                    s = s[-1]
            x = cursor.x
            n = min(len(s), cols - x)
            if mo.IRM in self.mode:
                self.insert_characters(n)
            rc, rs = self._cells(cursor.y), self._style_row(cursor.y)
            if x and rc[x] == "":
                rc[x - 1] = " "
            if x + n < cols and rc[x + n] == "":
                rc[x + n] = " "
            rc[x : x + n] = s[:n]
            rs[x : x + n] = [attr] * n
            cursor.x = x + n
            s = s[n:]

    def _draw_char(self, ch: str) -> None:
        """One character of any width, with the joining rules of :mod:`.width`."""
        if ch == ZWJ:
            self._after_zwj = True  # kept only if something joins after it, as tmux does
            return
        width = char_width(ch)
        if width == 0:
            self._join(ZWJ + ch if self._after_zwj else ch)
            self._after_zwj = False
            return
        if self._after_zwj:
            self._after_zwj = False
            if self._join(ZWJ + ch):
                return
        cursor, cols = self.cursor, self.columns
        if width == 2 and cols < 2:
            ch, width = " ", 1  # a one-column screen cannot show a wide character
        if cursor.x >= cols or (width == 2 and cursor.x == cols - 1):
            if mo.DECAWM in self.mode:
                # A wide character that does not fit wraps and leaves the last column as it was (tmux):
                # blanking it would cut a wide character that ends there in half.
                cursor.x = 0
                self._line_down()
            else:
                cursor.x = cols - width
        if mo.IRM in self.mode:
            self.insert_characters(width)
        x, attr = cursor.x, cursor.attrs
        rc, rs = self._cells(cursor.y), self._style_row(cursor.y)
        if x and rc[x] == "":
            rc[x - 1] = " "
        if x + width < cols and rc[x + width] == "":
            rc[x + width] = " "
        rc[x] = ch
        rs[x] = attr
        if width == 2:
            self._wide = True
            rc[x + 1] = ""
            rs[x + 1] = attr
        cursor.x = x + width

    def _join(self, s: str) -> bool:
        """Add zero-width text to the cell before the cursor; False if there is none (start of a row)."""
        x = min(self.cursor.x, self.columns)
        if x == 0:
            return False
        rc = self._cells(self.cursor.y)
        x -= 1
        if rc[x] == "" and x:
            x -= 1
        rc[x] += s
        return True

    def repeat_last(self, count: int | None = None) -> None:
        """REP (``CSI n b``): draw the character before the cursor again ``n`` times."""
        x = min(self.cursor.x, self.columns) - 1
        if x < 0:
            return
        rc = self._chars[self.cursor.y]
        if rc[x] == "" and x:
            x -= 1
        ch = rc[x]
        if ch:
            self.draw(ch * min(count or 1, self.columns * self.lines))

    # ------------------------------------------------------------------ cursor

    def cursor_up(self, count: int | None = None) -> None:
        self.cursor.x = self._x()
        top = self.margins.top if self.margins and self.cursor.y >= self.margins.top else 0
        self.cursor.y = max(self.cursor.y - (count or 1), top)

    def cursor_down(self, count: int | None = None) -> None:
        self.cursor.x = self._x()
        bottom = (
            self.margins.bottom if self.margins and self.cursor.y <= self.margins.bottom else self.lines - 1
        )
        self.cursor.y = min(self.cursor.y + (count or 1), bottom)

    def cursor_to_line(self, line: int | None = None) -> None:
        y = (line or 1) - 1
        if mo.DECOM in self.mode and self.margins is not None:
            y += self.margins.top
        self.cursor.y = y
        self.ensure_vbounds()

    def tab_forward(self, count: int | None = None) -> None:
        for _ in range(min(count or 1, self.columns)):
            self.tab()

    def tab_backward(self, count: int | None = None) -> None:
        for _ in range(min(count or 1, self.columns)):
            x = self._x()
            self.cursor.x = max((stop for stop in self.tabstops if stop < x), default=0)

    def _cursor_report(self) -> tuple[int, int]:
        row, col = self.cursor.y + 1, min(self.cursor.x, self.columns - 1) + 1
        if mo.DECOM in self.mode and self.margins is not None:
            row -= self.margins.top
        return row, col

    def save_cursor(self) -> None:
        self.savepoints.append(self._savepoint())
        del self.savepoints[:-16]  # programs that save and never restore must not grow memory

    def _savepoint(self) -> Savepoint:
        return Savepoint(copy.copy(self.cursor), self.g0_charset, self.g1_charset, self.charset,
                         mo.DECOM in self.mode, mo.DECAWM in self.mode)  # fmt: skip

    def restore_cursor(self) -> None:
        """DECRC: what DECSC saved, as tmux and xterm restore it: the cursor with its attributes, the
        character sets, and the origin mode set or cleared as saved; the autowrap mode stays as it is.

        pyte sets DECOM and DECAWM back when they were saved set, through mode numbers that
        :meth:`set_mode` (rightly) reads as ANSI modes, so neither came back here; with nothing saved it
        clears the origin mode the same way and homes the cursor, as here."""
        if not self.savepoints:
            self.mode.discard(mo.DECOM)
            self.cursor_position()
            return
        point = self.savepoints.pop()
        self.g0_charset, self.g1_charset, self.charset = point.g0_charset, point.g1_charset, point.charset
        (self.mode.add if point.origin else self.mode.discard)(mo.DECOM)
        self.cursor = point.cursor
        self.ensure_hbounds()
        self.ensure_vbounds(use_margins=True)

    def _restore(self, point: Savepoint) -> None:
        self.savepoints.append(point)
        self.restore_cursor()

    def soft_reset(self) -> None:
        """DECSTR (``CSI ! p``): modes, margins and attributes back to defaults; the screen stays."""
        self.mode.difference_update({mo.IRM, mo.DECOM})
        self.mode.update({mo.DECAWM, mo.DECTCEM})
        self.cursor.hidden = False
        self.margins = None
        self.cursor.attrs = DEFAULT
        self.charset, self.g0_charset, self.g1_charset = 0, _LAT1, charsets.VT100_MAP
        self.savepoints.clear()

    # ------------------------------------------------------------------ modes

    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        modes = self._own_modes(modes, kwargs.get("private", False), on=True)
        super().set_mode(*modes, **kwargs)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        modes = self._own_modes(modes, kwargs.get("private", False), on=False)
        super().reset_mode(*modes, **kwargs)

    def _own_modes(self, modes: tuple[int, ...], private: bool, on: bool) -> tuple[int, ...]:
        """Handle the modes we implement ourselves; return the ones left for pyte."""
        if not private:
            # Only IRM and LNM are ANSI modes pyte handles; any other number could collide with a private
            # mode shifted left by 5 (96 is DECCOLM's 3 << 5) and run pyte's code on our storage.
            return tuple(mode for mode in modes if mode in (mo.IRM, mo.LNM))
        rest = []
        for mode in modes:
            if mode in _ALT_MODES:
                (self._enter_alternate if on else self._leave_alternate)(mode == 1049)
            elif mode == 1048:
                if on:
                    self._saved_1048 = self._savepoint()
                elif self._saved_1048 is not None:
                    self._restore(self._saved_1048)
            elif mode == 3:  # DECCOLM: clear and home, no resize (as tmux)
                self._erase_all()
                self.cursor_position()
            elif mode == 5:  # DECSCNM: reverse video of the whole screen
                if (mo.DECSCNM in self.mode) != on:
                    self._styles = [
                        [s.replace(reverse=not s.reverse) for s in row] for row in self.style_rows
                    ]
                    self.cursor.attrs = self.cursor.attrs.replace(reverse=on)
            else:
                rest.append(mode)
                continue
            shifted = mode << 5
            (self.mode.add if on else self.mode.discard)(shifted)
        return tuple(rest)

    def _erase_all(self) -> None:
        self._chars = self._blank_rows(self.lines)
        self._styles = [blank_styles(self.columns)] * self.lines

    def _enter_alternate(self, save_cursor: bool) -> None:
        if self._primary is not None:
            return
        if save_cursor:
            self._alt_cursor = self._savepoint()
        self._primary = (self._chars, self._styles)
        self._erase_all()
        self.dirty.update(range(self.lines))

    def _leave_alternate(self, restore_cursor: bool) -> None:
        if self._primary is None:
            return
        self._chars, self._styles = self._primary
        self._primary = None
        if restore_cursor and self._alt_cursor is not None:
            self._restore(self._alt_cursor)
            self._alt_cursor = None
        self.dirty.update(range(self.lines))

    # ------------------------------------------------------------------ SGR

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        """pyte's entry point, with integer parameters."""
        self._sgr_numbers(*attrs)

    def _sgr_numbers(self, *attrs: int) -> None:
        self.cursor.attrs = self.cursor.attrs.after("\x1b[" + ";".join(map(str, attrs)) + "m")

    # ------------------------------------------------------------------ answers

    def report_device_attributes(self, mode: int = 0, **kwargs: bool) -> None:
        if mode == 0 and not kwargs.get("private"):
            self.write_process_input(DA1_ANSWER)

    def report_device_status(self, mode: int = 0) -> None:
        if mode == 5:
            self.write_process_input("\x1b[0n")
        elif mode == 6:
            row, col = self._cursor_report()
            self.write_process_input(f"\x1b[{row};{col}R")

    def write_process_input(self, data: str) -> None:
        """Answers to queries go back to the program through :attr:`on_answer` (and are kept in :attr:`answers`)."""
        self.answers.append(data)
        if self.on_answer is not None:
            self.on_answer(data)
