"""The screen model the workbench reads: what a user would see in the terminal.

:class:`Screen` wraps the emulator (:class:`~.vt.Terminal`, a pyte screen with
our storage, parser and fixes) and answers the questions the rest of the
workbench asks: the text rows, the cursor, the styles, a screenshot. It wraps
rather than subclasses pyte so its small API (``cursor_position()`` returning a
position, ``resize(width, height)``) does not collide with pyte's methods of
the same names; the emulator is :attr:`Screen.vt` for anything lower-level.

Rows are exactly ``width`` cells. A wide character (CJK, most emoji) takes two
cells: the character, then an empty string, so a row string is the character
followed by nothing and displays as ``width`` columns. What joins a character
(combining marks, U+FE0F, an emoji ZWJ sequence) stays in its cell.
"""

from __future__ import annotations

from collections.abc import Callable

from .shot import Shot, StyleRun
from .style import Style
from .vt import Terminal

# pyte keeps private modes (``CSI ? n h``) in ``mode`` shifted left by 5.
_PRIVATE_DECCKM = 1 << 5
_PRIVATE_PASTE = 2004 << 5


class Screen:
    """A terminal screen of ``width`` x ``height`` cells with a bounded scrollback."""

    def __init__(self, width: int, height: int, scrollback: int = 1000) -> None:
        self.vt = Terminal(width, height, scrollback=scrollback)

    @property
    def width(self) -> int:
        return self.vt.columns

    @property
    def height(self) -> int:
        return self.vt.lines

    def feed(self, text: str) -> None:
        """Interpret decoded terminal output (chunks may split anywhere)."""
        self.vt.feed(text)

    def resize(self, width: int, height: int) -> None:
        self.vt.resize(lines=height, columns=width)

    # ------------------------------------------------------------------ reading

    def text_rows(self) -> list[str]:
        """Exactly ``height`` rows of ``width`` columns (a wide character's second cell adds nothing)."""
        return self.vt.display

    def text(self) -> str:
        """The rows joined by newlines, trailing spaces removed: for messages and ``in`` checks."""
        return "\n".join(row.rstrip() for row in self.text_rows())

    def cursor_position(self) -> tuple[int, int]:
        """(row, column), zero-based; while a wrap is pending the column is the last one."""
        cursor = self.vt.cursor
        return cursor.y, min(cursor.x, self.vt.columns - 1)

    @property
    def cursor_visible(self) -> bool:
        return not self.vt.cursor.hidden

    @property
    def application_cursor_keys(self) -> bool:
        """DECCKM (``CSI ? 1 h``): the program wants cursor keys as ``ESC O A`` rather than ``ESC [ A``."""
        return _PRIVATE_DECCKM in self.vt.mode

    @property
    def bracketed_paste(self) -> bool:
        """``CSI ? 2004 h``: the program wants pasted text between ``ESC [200~`` and ``ESC [201~``."""
        return _PRIVATE_PASTE in self.vt.mode

    @property
    def alternate(self) -> bool:
        """True while the program shows the alternate screen (a full-screen program)."""
        return bool(self.vt.alternate)

    @property
    def title(self) -> str:
        return str(self.vt.title)

    def history_rows(self) -> list[str]:
        """The scrollback, oldest first (at most ``scrollback`` rows)."""
        return ["".join(chars) for chars in self.vt.history]

    def style_runs(self) -> list[list[StyleRun]]:
        """Per row, the maximal runs of equal style that is not the default."""
        return [
            [StyleRun(start, end - start, style) for start, end, style in row]
            for row in self.vt.style_spans()
        ]

    def style_at(self, row: int, col: int) -> Style:
        return self.vt.style_at(row, col)

    def snapshot(self) -> Shot:
        """The screen as an immutable value: text rows, cursor, style runs and cells."""
        return Shot(
            width=self.width,
            height=self.height,
            rows=tuple(self.text_rows()),
            cursor=self.cursor_position(),
            styles=tuple(tuple(runs) for runs in self.style_runs()),
            cursor_visible=self.cursor_visible,
            cells=tuple(tuple(row) for row in self.vt.rows),
        )

    # ------------------------------------------------------------------ answers to queries

    @property
    def responses(self) -> list[str]:
        """The latest answers to the program's queries (cursor position, device attributes)."""
        return list(self.vt.answers)

    @property
    def on_answer(self) -> Callable[[str], None] | None:
        """Called with each answer as it is made; the pty session writes it back to the program."""
        return self.vt.on_answer

    @on_answer.setter
    def on_answer(self, callback: Callable[[str], None] | None) -> None:
        self.vt.on_answer = callback
