"""The terminal pane: the program under test drawn from our screen model with the Line API.

Live, a 30 fps timer compares each row (text and style runs) with what was last
drawn and refreshes only the rows that changed (plus any the emulator marked
dirty), so a busy program costs one row conversion per changed row. Stepping
back shows a recorded screen from the trace instead: text rows (and colours when
the step recorded them), instantly, with no replay.

Focus mode (:attr:`TerminalView.passthrough`) hands the keyboard to the program
under test: every key, the app's own bindings included, is encoded as xterm
sends it (cursor keys follow the program's DECCKM mode, pastes its bracketed
paste mode) and posted as :class:`TerminalView.Input`; only the leave binding
(``ctrl+]``, as telnet and ``docker attach``; remappable by its id) and moving
the focus away end it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

if TYPE_CHECKING:  # the screen model loads with the first run or recorded screen, after the first frame
    from workbench.terminal import Screen, StyleRun
    from workbench.terminal.style import Style

FPS = 30
_NAMED = {
    "black": 0, "red": 1, "green": 2, "brown": 3, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
}  # fmt: skip


def _colour(name: str) -> str | None:
    if not name or name == "default":
        return None
    if name in _NAMED:
        return f"color({_NAMED[name]})"
    if name.startswith("bright"):
        base = name.removeprefix("bright").lstrip("_")
        if base in _NAMED:
            return f"color({_NAMED[base] + 8})"
    if len(name) == 6:
        try:
            int(name, 16)
        except ValueError:
            return None
        return f"#{name}"
    return None


_RICH_CACHE: dict[Style, RichStyle] = {}


def rich_style(style: Style) -> RichStyle:
    """Our cell style as a Rich style (cached per interned style)."""
    cached = _RICH_CACHE.get(style)
    if cached is None:
        cached = RichStyle(
            color=_colour(style.fg), bgcolor=_colour(style.bg), bold=style.bold or None, dim=style.dim or None,
            italic=style.italics or None, underline=style.underscore or None, strike=style.strikethrough or None,
            reverse=style.reverse or None, blink=style.blink or None,
        )  # fmt: skip
        if len(_RICH_CACHE) > 4096:
            _RICH_CACHE.clear()
        _RICH_CACHE[style] = cached
    return cached


# Textual key names -> our key notation (keys.py), for keys without a character of their own.
_TEXTUAL_KEYS = {
    "up": "Up", "down": "Down", "left": "Left", "right": "Right", "home": "Home", "end": "End",
    "pageup": "PageUp", "pagedown": "PageDown", "insert": "Insert", "delete": "Delete",
    "shift+tab": "S-Tab", "escape": "Esc", "enter": "Enter", "tab": "Tab", "backspace": "BS",
    **{f"f{n}": f"F{n}" for n in range(1, 13)},
}  # fmt: skip
# xterm's modifier parameter (1 + shift 1, alt 2, ctrl 4) and the final bytes of the keys that take it.
_MODIFIERS = {"shift": 1, "alt": 2, "ctrl": 4}
_CURSOR_FINALS = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
_TILDE_CODES = {"insert": 2, "delete": 3, "pageup": 5, "pagedown": 6}
_CTRL_SYMBOLS = {
    "at": "@", "left_square_bracket": "[", "backslash": "\\", "right_square_bracket": "]",
    "circumflex_accent": "^", "underscore": "_", "space": "Space", "question_mark": "?",
}  # fmt: skip


def key_bytes(key: str, character: str | None, *, application_cursor: bool = False) -> bytes:
    """What xterm sends for a Textual key event (``b""`` for a key with no encoding)."""
    from workbench.terminal.keys import key_sequence

    *mods, base = key.split("+") if key != "+" else ["+"]
    if mods and all(m in _MODIFIERS for m in mods) and (base in _CURSOR_FINALS or base in _TILDE_CODES):
        param = 1 + sum(_MODIFIERS[m] for m in set(mods))
        if base in _CURSOR_FINALS:
            return f"\x1b[1;{param}{_CURSOR_FINALS[base]}".encode()
        return f"\x1b[{_TILDE_CODES[base]};{param}~".encode()
    name = _TEXTUAL_KEYS.get(key)
    if name is not None:
        sequence = key_sequence(name) or ""
        if application_cursor and key in _CURSOR_FINALS:
            sequence = "\x1bO" + _CURSOR_FINALS[key]
        return sequence.encode()
    if mods == ["ctrl"]:
        control = key_sequence(f"C-{_CTRL_SYMBOLS.get(base, base)}")
        if control is not None:
            return control.encode()
    if mods == ["alt"] and character is None and len(base) == 1:
        return b"\x1b" + base.encode()
    if character is not None:
        return character.encode("utf-8", errors="replace")
    return b""


class TerminalView(ScrollView, can_focus=True):
    """A fixed-size view of a terminal screen: live from a :class:`Screen`, or a recorded one.

    The view asks for the program's size plus its border; when the window gives it less,
    it scrolls and says so in its border ("showing 60x17 of 80x24") instead of cutting silently.
    """

    DEFAULT_CSS = """
    TerminalView {
        max-width: 100%;
        max-height: 100%;
        background: black;
        color: white;
        border: round $foreground 30%;
        border-title-color: #d0d0d0;  /* on the pane's own black, whatever the theme's text colour */
        scrollbar-size: 0 1;  /* panning across is shown by the marker in the border, not a row less */
    }
    TerminalView:focus {
        border: round $accent;
    }
    TerminalView.-passthrough {
        border: heavy $warning;
        border-subtitle-color: $warning;
    }
    TerminalView.-scaled {
        border-subtitle-color: $warning;
    }
    """
    BORDER_TITLE = "Terminal"
    VIEW: ClassVar[str] = "terminal"  # its number key and tab (workbench.app.actions.VIEWS)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+right_square_bracket", "leave_focus_mode", "Leave focus mode", priority=True,
                id="terminal-leave-focus-mode"),
        Binding("ctrl+backslash", "record_screenshot", "Screenshot step", priority=True,
                id="terminal-record-screenshot"),
        Binding("z", "zoom", "Zoom", id="terminal-zoom"),
    ]  # fmt: skip
    source: reactive[str] = reactive("idle")  # idle | live | recorded
    passthrough: reactive[bool] = reactive(False)
    recording = False  # focus mode records the keys (the screen inserts them as steps when it ends)

    class Input(Message):
        """Bytes typed in focus mode, for the program under test."""

        def __init__(self, data: bytes) -> None:
            super().__init__()
            self.data = data

    class ScreenshotRequested(Message):
        """While recording: the user asked for a screenshot step here."""

    class FocusModeLeft(Message):
        """Focus mode ended (the leave key, or the focus moved away)."""

    def __init__(self, width: int = 80, height: int = 24, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._cells_size = (width, height)
        self._rows: list[str] = [" " * width] * height
        self._runs: list[list[StyleRun]] = [[] for _ in range(height)]
        self._cursor: tuple[int, int] | None = None
        self._screen: Screen | None = None
        self._timer: Timer | None = None
        self.lines_refreshed = 0  # for tests and benchmarks: rows repainted since the view was made
        self.virtual_size = Size(width, height)
        self._fit()

    def _fit(self) -> None:
        width, height = self._cells_size
        self.styles.width = width + 2  # the border
        self.styles.height = height + 2

    # ------------------------------------------------------------------ focus mode

    def enter_focus_mode(self) -> None:
        self.passthrough = True
        self.focus()

    def action_focus_mode(self) -> None:
        """Hand the keyboard to the program under test until ctrl+] (ctrl+g anywhere; alt+r records it)."""
        if not self.is_live:
            self.notify("no program is running: start a run first (F5 or F8)", severity="warning")
            return
        self.enter_focus_mode()  # its border, the footer and the status line say so: no toast over the program

    def action_leave_focus_mode(self) -> None:
        self.passthrough = False

    def action_record_screenshot(self) -> None:
        self.post_message(self.ScreenshotRequested())

    def watch_passthrough(self, was: bool, on: bool) -> None:
        self.set_class(on, "-passthrough")
        self._subtitle()
        self.refresh_bindings()
        if was and not on:
            self.post_message(self.FocusModeLeft())

    def _subtitle(self) -> None:
        width, height = self._cells_size
        shown = (self.scrollable_content_region.width, self.scrollable_content_region.height)
        scaled = self.is_mounted and shown[0] > 0 and (shown[0] < width or shown[1] < height)
        self.set_class(scaled, "-scaled")
        if self.passthrough:
            # the footer's notation (^\ is ctrl+backslash), short enough for the narrowest pane's border
            self.border_subtitle = ("● recording · ^\\ screenshot · ^] ends" if self.recording
                                    else "keys go to the program · ^] leaves")  # fmt: skip
        elif scaled:
            self.border_subtitle = (
                pan_marker((int(self.scroll_x), int(self.scroll_y)), shown, (width, height)) + " · z zoom"
            )
        else:
            self.border_subtitle = ""

    def watch_scroll_x(self, old: float, new: float) -> None:
        super().watch_scroll_x(old, new)
        self._subtitle()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._subtitle()

    def _follow_cursor(self) -> None:
        """Pan so the program's cursor is in view (a view narrower than the program follows the typing)."""
        if self._cursor is None or not self.is_mounted:
            return
        row, col = self._cursor
        view_w, view_h = self.scrollable_content_region.width, self.scrollable_content_region.height
        if view_w <= 0 or view_h <= 0:
            return
        x, y = int(self.scroll_x), int(self.scroll_y)
        if not x <= col < x + view_w:
            x = max(0, col - view_w + 1) if col >= x + view_w else col
        if not y <= row < y + view_h:
            y = max(0, row - view_h + 1) if row >= y + view_h else row
        if (x, y) != (int(self.scroll_x), int(self.scroll_y)):
            self.scroll_to(x, y, animate=False, immediate=True)

    def on_resize(self) -> None:
        self._subtitle()

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return self.passthrough  # hides every app binding but our own leave key

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_focus_mode":
            return self.passthrough
        if action == "record_screenshot":
            return self.passthrough and self.recording
        if action == "zoom":
            return not self.passthrough  # in focus mode z is the program's
        return True

    async def action_zoom(self) -> None:
        """The workspace gives this pane the program's whole width (again: back)."""
        await self.run_action("screen.pane('Workspace', 'zoom_terminal')")

    def on_blur(self) -> None:
        self.passthrough = False

    def on_key(self, event: events.Key) -> None:
        if not self.passthrough:
            return
        event.stop()
        event.prevent_default()
        screen = self._screen
        data = key_bytes(event.key, event.character,
                         application_cursor=screen is not None and screen.application_cursor_keys)  # fmt: skip
        if data:
            self.post_message(self.Input(data))

    def on_paste(self, event: events.Paste) -> None:
        if not self.passthrough:
            return
        event.stop()
        text = event.text.replace("\r\n", "\r").replace("\n", "\r")
        if self._screen is not None and self._screen.bracketed_paste:
            text = f"\x1b[200~{text}\x1b[201~"
        self.post_message(self.Input(text.encode("utf-8", errors="replace")))

    # ------------------------------------------------------------------ sources

    def resize_screen(self, width: int, height: int) -> None:
        if (width, height) != self._cells_size:
            self._cells_size = (width, height)
            self.virtual_size = Size(width, height)
            self._rows = [" " * width] * height
            self._runs = [[] for _ in range(height)]
            self._fit()
            self.refresh()
            self._subtitle()

    def clear(self) -> None:
        """Blank the view (another file was opened)."""
        height = self._cells_size[1]
        self.source = "idle"
        self._set([""] * height, [], None, force=True)

    def attach(self, screen: Screen) -> None:
        """Follow a live screen until :meth:`detach`."""
        self._screen = screen
        self.resize_screen(screen.width, screen.height)
        self.source = "live"
        self._poll(force=True)
        if self._timer is None:
            self._timer = self.set_interval(1 / FPS, self._poll, name="terminal-refresh")

    def detach(self) -> None:
        """Stop following (the run ended); what is shown stays."""
        if self._screen is not None:
            self._poll()
        self._screen = None
        self.passthrough = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.source == "live":
            self.source = "idle"

    @property
    def is_live(self) -> bool:
        return self._screen is not None and self.source == "live"

    def follow_live(self) -> None:
        """Back from a recorded step to the live screen (if a run is live)."""
        if self._screen is not None:
            self.source = "live"
            self._poll(force=True)

    def show_recorded(
        self, rows: list[str], cursor: tuple[int, int] | None = None, style: Any | None = None
    ) -> None:
        """Show a recorded screen (trace rows); ``style`` is a sidecar-shaped dict or None."""
        self.source = "recorded"
        runs: list[list[StyleRun]] = []
        if isinstance(style, dict):
            from workbench.terminal.shot import runs_from_json

            runs = [list(row) for row in runs_from_json(style.get("rows"))]
        height = self._cells_size[1]
        rows = list(rows) + [""] * max(0, height - len(rows))
        self._set(rows[:height], runs, cursor)

    # ------------------------------------------------------------------ drawing

    def text(self) -> str:
        """What the pane shows, as plain text (trailing spaces removed)."""
        return "\n".join(row.rstrip() for row in self._rows)

    def _poll(self, force: bool = False) -> None:
        screen = self._screen
        if screen is None or self.source != "live":
            return
        if (screen.width, screen.height) != self._cells_size:
            self.resize_screen(screen.width, screen.height)
            force = True
        dirty: set[int] = screen.vt.dirty
        forced_rows = set(dirty)
        dirty.clear()  # the renderer consumes the emulator's dirty rows (nothing else reads them)
        cursor = screen.cursor_position() if screen.cursor_visible else None
        self._set(screen.text_rows(), screen.style_runs(), cursor, force=force, extra=forced_rows)

    def _set(
        self,
        rows: list[str],
        runs: list[list[StyleRun]],
        cursor: tuple[int, int] | None,
        *,
        force: bool = False,
        extra: set[int] | None = None,
    ) -> None:
        height = self._cells_size[1]
        changed: set[int] = set(range(height)) if force else {y for y in (extra or set()) if y < height}
        for y in range(height):
            row = rows[y] if y < len(rows) else ""
            row_runs = runs[y] if y < len(runs) else []
            if row != self._rows[y] or row_runs != self._runs[y]:
                changed.add(y)
            self._rows[y] = row
            self._runs[y] = list(row_runs)
        if cursor != self._cursor:
            for c in (self._cursor, cursor):
                if c is not None and c[0] < height:
                    changed.add(c[0])
            self._cursor = cursor
        if cursor is not None and self.source == "live":
            self._follow_cursor()
        if changed:
            self.lines_refreshed += len(changed)
            for y in sorted(changed):
                self.refresh_line(y)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row_index = y + scroll_y
        width = self._cells_size[0]
        if row_index >= len(self._rows):
            return Strip.blank(self.size.width)
        cells = _cells(self._rows[row_index], width)
        styles: list[RichStyle | None] = [None] * width
        for run in self._runs[row_index]:
            rs = rich_style(run.style)
            for x in range(run.col, min(width, run.col + run.length)):
                styles[x] = rs
        if self._cursor is not None and self._cursor[0] == row_index and 0 <= self._cursor[1] < width:
            x = self._cursor[1]
            styles[x] = (styles[x] or RichStyle()) + RichStyle(reverse=True)
        segments: list[Segment] = []
        start = 0
        for x in range(1, width + 1):
            if x == width or styles[x] is not styles[start]:
                text = "".join(cells[start:x])
                if text:
                    segments.append(Segment(text, styles[start]))
                start = x
        strip = Strip(segments, width)
        if self._base_style is None:
            self._base_style = self.rich_style  # walks the ancestors: once per style change, not per line
        return strip.crop(scroll_x, scroll_x + self.size.width).apply_style(self._base_style)

    _base_style: RichStyle | None = None

    def notify_style_update(self) -> None:
        self._base_style = None
        super().notify_style_update()


def pan_marker(offset: tuple[int, int], shown: tuple[int, int], size: tuple[int, int]) -> str:
    """Which part of the program a panned view shows: ``◀ cols 21-68 of 100 ▶`` (and rows when cut)."""
    (x, y), (view_w, view_h), (width, height) = offset, shown, size
    parts = []
    if view_w < width:
        left, right = ("◀ " if x > 0 else "  "), (" ▶" if x + view_w < width else "  ")
        parts.append(f"{left}cols {x + 1}-{min(width, x + view_w)}/{width}{right}")
    if view_h < height:
        parts.append(f"rows {y + 1}-{min(height, y + view_h)}/{height}")
    return " · ".join(parts)


def _cells(row: str, width: int) -> list[str]:
    """A row as ``width`` cells: a wide character keeps its cell, the one after it is empty."""
    if row.isascii() and row.isprintable():
        return list(row[:width].ljust(width))
    cells: list[str] = []
    for ch in row:
        if len(cells) >= width:
            break
        if cell_len(ch) == 0 and cells:
            cells[-1] += ch
            continue
        cells.append(ch)
        if cell_len(ch) == 2:
            cells.append("")
    return (cells + [" "] * width)[:width]
