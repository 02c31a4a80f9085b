"""The emulator's parse loop: the frequent tokens on local variables, anything else handed back.

:func:`feed_tokens` is the hot path of every screen the workbench keeps (each
pty session's, the app's live pane). It takes the tokens of one read
(:data:`.parser.FAST`, ``findall``: a tuple of four groups each, no match objects)
and applies the frequent ones itself: runs of text with the SGR sequences
before them and the CR LF after them, CR/LF and the whole-screen scroll into
the scrollback, cursor positions. Any other token syncs the cursor back to the
emulator and goes through its methods; the loop then returns, and is called
again with its locals loaded afresh, going on with the next token.

Runs of text written one after the other on a row stored as a ``str`` (the
pieces of a line of highlighted code, a full-screen redraw's row) are kept as
pending pieces and joined into the row once, when the cursor leaves them (a
line feed, a cursor move, any other token, the end of the read), instead of
rebuilding the row for each; their styles are appended to the row's runs
(:mod:`.rows`) while each starts where the last ended.

It lives in a module of its own, with its locals typed, so that it can be
compiled with mypyc (``WORKBENCH_MYPYC=1`` at install time, ``setup.py``;
:mod:`.loop` picks the build or this source): the same source runs as plain
Python wherever the compiled module is absent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from pyte import modes as mo
from pyte.charsets import LAT1_MAP

from .parser import CUP
from .rows import blank_styles, styled
from .style import DEFAULT, Style
from .width import NARROW_RUN

_IRM: Final = mo.IRM
_DECOM: Final = mo.DECOM
_LNM: Final = mo.LNM
_CUP_CACHE_LIMIT: Final = 8192


def feed_tokens(vt: Any, tokens: Iterator[tuple[str, ...]], ascii: bool) -> bool:
    """Apply tokens to ``vt`` (a :class:`~.vt.Terminal`) until one may have changed any state.

    ``ascii`` says that the whole read is ASCII (checked once, in C), so that no run of text needs the
    check. Returns True after such a token (call again to go on), False when ``tokens`` is used up.
    """
    rows: list[str | list[str]] = vt._chars
    style_rows: list[Any] = vt._styles
    cursor = vt.cursor
    x: int = cursor.x
    y: int = cursor.y
    attr: Style = cursor.attrs
    cols: int = vt.columns
    lines: int = vt.lines
    mode: set[int] = vt.mode
    fast = _IRM not in mode and not vt.charset and vt.g0_charset is LAT1_MAP
    decom = _DECOM in mode
    lnm = _LNM in mode
    margins = vt.margins
    top: int = 0 if margins is None else margins[0]
    bottom: int = lines - 1 if margins is None else margins[1]
    history = vt.history
    full = top == 0 and bottom == lines - 1 and vt._primary is None and bool(history.maxlen)
    blank, plain = " " * cols, blank_styles(cols)
    zwj: bool = vt._after_zwj
    wide: bool = vt._wide  # a cell may be half of a wide character: what text overwrites must not cut one
    # Text may go in as a run up to this column (none after a ZWJ: the next character may join the cell).
    room = cols if fast and not zwj else -1
    cup: dict[str, tuple[int, int]] = vt._cup
    default = DEFAULT
    # The current row: its cells (a str while each cell is one narrow character, else a list: see .rows)
    # and its styles (the shared blank tuple, runs, or one per cell), with what the loop keeps of them:
    # shared: the blank tuple; listed: one style per cell; end: where the last run ends (runs only, else
    # -1), so that text written there appends its run; clean: every style from this column on is DEFAULT
    # (known for the blank row and runs over it), so text in the default style there needs no style
    # written: most of a log's or a listing's.
    rc: Any = rows[y]
    rs: Any = style_rows[y]
    flat = isinstance(rc, str)
    shared, listed, end, clean = _styles_state(rs, cols)
    pending: list[str] = []  # text written on the str row rc from column px to x, not joined into it yet
    # True while each piece of pending text has its run appended too (so the runs end at x, and end and clean
    # are brought up to date when the cursor leaves): the next run of text written at x is three appends.
    chain = False
    px = 0
    sgr: str
    s: str
    c: str
    o: str
    for sgr, s, c, o in tokens:
        if sgr:  # SGR sequences, before text or a CR LF or alone
            if sgr == attr._sgr:  # the transition this style made first (see Style._sgr)
                attr = attr._to
            else:
                try:
                    attr = attr._next[sgr]
                except KeyError:
                    attr = attr.after(sgr)
        if s:  # text, maybe with SGR sequences before it and a CR LF after it
            e = x + len(s)
            if chain and e <= room and (ascii or s.isascii() or NARROW_RUN.fullmatch(s) is not None):
                pending.append(s)
                rs.append(e)
                rs.append(attr)
                x = e
            elif e <= room and (ascii or s.isascii() or NARROW_RUN.fullmatch(s) is not None):
                if flat:  # (a str row has no wide character to keep whole)
                    if pending:
                        pending.append(s)
                    elif c:  # a CR LF leaves the row at once: no pieces to keep
                        rc = rows[y] = f"{rc[:x]}{s}{rc[e:]}"  # (one join of three: 10 % faster than two +)
                    else:
                        px = x
                        pending.append(s)
                else:
                    if wide:
                        if x and rc[x] == "":
                            rc[x - 1] = " "
                        if e < cols and rc[e] == "":
                            rc[e] = " "
                    if e - x == 1:
                        rc[x] = s
                    else:
                        rc[x:e] = [*s]  # (a list: assigning the str itself is slower)
                if attr is not default or x < clean:
                    if shared:  # the blank row: runs of its own
                        rs = style_rows[y] = [None, x, default, e, attr] if x else [None, e, attr]
                        end = clean = e
                        shared = False
                    elif end == cols and not x:  # a redraw from column 0 over runs that cover the row
                        rs[0] = None  # (what was under them shows nowhere)
                        rs = style_rows[y] = [rs, e, attr]
                        end = e
                    elif x == end:  # where the last run ended: one more run
                        rs.append(e)
                        rs.append(attr)
                        end = e
                        if e > clean:
                            clean = e
                    elif listed and x:
                        rs[x:e] = [attr] * (e - x)
                    else:
                        rs, listed, end, clean = styled(style_rows, y, x, e, attr, cols)
                    chain = end == e and flat and not c  # (then the text went into pending)
                x = e
            else:  # wide or joining characters, a wrap, a charset: the emulator's own draw
                if pending:
                    if px:
                        pending.insert(0, rc[:px])
                    pending.append(rc[x:])
                    rc = rows[y] = "".join(pending)
                    pending = []
                    chain = False
                cursor.x, cursor.y, cursor.attrs = x, y, attr
                vt.draw(s)
                x, y, zwj, wide = cursor.x, cursor.y, vt._after_zwj, vt._wide
                room = cols if fast and not zwj else -1
                rc, rs = rows[y], style_rows[y]
                flat = isinstance(rc, str)
                shared, listed, end, clean = _styles_state(rs, cols)
            if not c:
                continue
        elif sgr:  # SGR sequences alone (applied above), maybe with a CR LF after them
            if not c:
                continue
        elif o and o[0] == "\x1b":  # a sequence
            if not decom:
                at = cup.get(o)
                if at is None:
                    m = CUP.fullmatch(o)
                    if m is not None:  # cursor position
                        row, col = m.groups()
                        at = (
                            min(max(int(row), 1), lines) - 1 if row else 0,
                            min(max(int(col), 1), cols) - 1 if col else 0,
                        )
                        if len(cup) > _CUP_CACHE_LIMIT:
                            cup.clear()
                        cup[o] = at
                if at is not None:
                    if pending:
                        if px:
                            pending.insert(0, rc[:px])
                        pending.append(rc[x:])
                        rc = rows[y] = "".join(pending)
                        pending = []
                        chain = False
                    y, x = at
                    rc, rs = rows[y], style_rows[y]
                    flat = isinstance(rc, str)
                    shared, listed, end, clean = _styles_state(rs, cols)
                    continue
            # Any other sequence: it may change anything, so the locals are loaded again after it.
            if pending:
                if px:
                    pending.insert(0, rc[:px])
                pending.append(rc[x:])
                rc = rows[y] = "".join(pending)
                pending = []
            cursor.x, cursor.y, cursor.attrs = x, y, attr
            vt._after_zwj = zwj
            vt.sequence(o)
            return True
        elif o:
            c = o
        else:
            continue  # ignored: a string (DCS...), a broken one, a lone ESC
        # a control character (or the CR LF after text): every one moves the cursor or leaves the loop
        if pending:
            if px:
                pending.insert(0, rc[:px])
            pending.append(rc[x:])
            rc = rows[y] = "".join(pending)
            pending = []
            if chain:  # the cursor may stay on this row: where the runs end now
                chain = False
                end = x
                if x > clean:
                    clean = x
        if c == "\r\n" or c == "\n" or c == "\x0b" or c == "\x0c":
            if c == "\r\n" or lnm:
                x = 0
            if y == bottom:
                if full:  # the whole screen scrolls: the top row goes to the scrollback, a blank one comes in
                    history.append(rows.pop(0))
                    del style_rows[0]
                    rows.append(blank)
                    style_rows.append(plain)
                    rc, rs, flat, shared, listed, end, clean = blank, plain, True, True, False, -1, 0
                    continue
                vt._scroll_up(top, bottom, 1)
            elif y < lines - 1:
                y += 1
            rc, rs = rows[y], style_rows[y]
            flat = isinstance(rc, str)
            shared, listed, end, clean = _styles_state(rs, cols)
        elif c == "\r":
            x = 0
        elif c == "\x08":
            x = max(0, min(x, cols - 1) - 1)
        else:
            cursor.x, cursor.y, cursor.attrs = x, y, attr
            vt._after_zwj = zwj
            vt._control(c)
            return True
    if pending:
        if px:
            pending.insert(0, rc[:px])
        pending.append(rc[x:])
        rc = rows[y] = "".join(pending)
        pending = []
    cursor.x, cursor.y, cursor.attrs = x, y, attr
    vt._after_zwj = zwj
    return False


def _styles_state(rs: Any, cols: int) -> tuple[bool, bool, int, int]:
    """What the loop keeps of a row's styles as stored (see :func:`feed_tokens`): shared, listed, end, clean."""
    if rs.__class__ is tuple:
        return True, False, -1, 0
    if rs[0].__class__ is Style:
        return False, True, -1, cols
    end: int = rs[-2]
    return False, False, end, end if rs[0] is None else cols
