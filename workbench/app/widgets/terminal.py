"""The terminal pane: the program under test drawn from our screen model with the Line API.

Live, a 30 fps timer compares each row (text and style runs) with what was last
drawn and refreshes only the rows that changed (plus any the emulator marked
dirty), so a busy program costs one row conversion per changed row. Stepping
back shows a recorded screen from the trace instead: text rows (and colours when
the step recorded them), instantly, with no replay.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from workbench.terminal import Screen, StyleRun
from workbench.terminal.style import FIELDS, Style, make_style

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


def runs_from_json(rows: list[list[dict[str, Any]]]) -> list[list[StyleRun]]:
    """Style runs of a trace record or a sidecar (``{"col", "len", "fg", "bg", attrs...}``)."""
    out = []
    for row in rows:
        runs = []
        for run in row:
            key = tuple(
                run.get(name, "default") if name in ("fg", "bg") else bool(run.get(name, False))
                for name in FIELDS
            )
            runs.append(StyleRun(int(run.get("col", 0)), int(run.get("len", 0)), make_style(key)))
        out.append(runs)
    return out


class TerminalView(ScrollView, can_focus=True):
    """A fixed-size view of a terminal screen: live from a :class:`Screen`, or a recorded one."""

    BORDER_TITLE = "Terminal"
    source: reactive[str] = reactive("idle")  # idle | live | recorded

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

    # ------------------------------------------------------------------ sources

    def resize_screen(self, width: int, height: int) -> None:
        if (width, height) != self._cells_size:
            self._cells_size = (width, height)
            self.virtual_size = Size(width, height)
            self._rows = [" " * width] * height
            self._runs = [[] for _ in range(height)]
            self._fit()
            self.refresh()

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
        if isinstance(style, dict) and isinstance(style.get("rows"), list):
            runs = runs_from_json(style["rows"])
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
        dirty = getattr(screen, "dirty", None)
        if dirty is None:
            dirty = getattr(screen.vt, "dirty", set())
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
        return strip.crop(scroll_x, scroll_x + self.size.width).apply_style(self.rich_style)


def _cells(row: str, width: int) -> list[str]:
    """A row as ``width`` cells: a wide character keeps its cell, the one after it is empty."""
    from rich.cells import cell_len

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
