"""The timeline scrubber: one mark per step of the compiled schedule.

A mark's colour is its actor (agent, user, control; theme variables
``actor-*``) and its glyph its state: ``·`` pending, ``●`` passed, ``✗`` failed.
The cursor is drawn reversed; the step the engine is at is underlined. When the
steps fit, each sits at its virtual time along a rail (``─``) as wide as the
widget, nudged only as far as needed to keep one cell per step; when they do not,
they are placed one cell per step in schedule order and the view scrolls to keep
the cursor visible. The second row tells the cursor step's virtual time. Pressing on a mark, dragging along the rail or the arrow keys move the
cursor; what to do with it (show a recorded screen, run to it) is the screen's
business, told with :class:`TimelineBar.CursorMoved`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len
from rich.style import Style as RichStyle
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.dom import NoScreen
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets._toast import ToastRack

from workbench.app.core.session import step_failed
from workbench.scenario.diagnostics import count

if TYPE_CHECKING:  # the schedule's types: the compiler loads with the first validation, after the first frame
    from workbench.engine.trace import StepRecord
    from workbench.timeline import Step

PENDING, PASSED, FAILED = "pending", "passed", "failed"
GLYPHS = {PENDING: "·", PASSED: "●", FAILED: "✗"}


@dataclass
class Mark:
    index: int
    at_ms: int
    actor: str
    action: str
    summary: str
    line: int
    state: str = PENDING
    files: tuple[str, ...] = ()  # what the step changed in the workspace: "+added", "~modified", "-deleted"
    acp: tuple[str, ...] = ()  # the ACP messages of the step, one summary line each (a recorded ACP run)


def marks_from_schedule(steps: Iterable[Step]) -> list[Mark]:
    """One pending mark per step of a compiled schedule."""
    return [Mark(s.index, s.at_ms, s.actor, s.action, s.summary, s.pos.line) for s in steps]


def marks_from_records(records: Iterable[StepRecord], failed_steps: set[int],
                       acp: dict[int, list[str]] | None = None) -> list[Mark]:  # fmt: skip
    """The marks of a recorded run (its step records), with their states, files and ACP messages."""
    marks: list[Mark] = []
    for record in records:
        mark = Mark(record.index, record.at_ms, record.actor, record.action, record.summary, record.line,
                    record_state(record), record_files(record), tuple((acp or {}).get(record.index, ())))  # fmt: skip
        if record.index in failed_steps:
            mark.state = FAILED
        marks.append(mark)
    return marks


def record_state(record: StepRecord) -> str:
    """A step record's state: failed if any of its checks failed."""
    return FAILED if step_failed(record) else PASSED


_CHANGE_SIGNS = {"added": "+", "modified": "~", "deleted": "-"}


def record_files(record: StepRecord) -> tuple[str, ...]:
    """The files a step changed, as ``+added ~modified -deleted`` paths."""
    return tuple(f"{_CHANGE_SIGNS.get(str(f.get('change')), '?')}{f.get('path')}" for f in record.files)


class TimelineBar(Widget, can_focus=True):
    """Marks along the schedule with a cursor; see the module docstring."""

    DEFAULT_CSS = """
    TimelineBar {
        height: 5;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        border: round $foreground 30%;
        border-title-color: $text;
        padding: 0 1;
    }
    TimelineBar:focus {
        border: round $primary;
    }
    """

    BORDER_TITLE = "Timeline"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "Prev step", show=False, id="timeline-prev"),
        Binding("right", "move(1)", "Next step", show=False, id="timeline-next"),
        Binding("home", "move_to(0)", "First step", show=False, id="timeline-first"),
        Binding("end", "move_to(-1)", "Last step", show=False, id="timeline-last"),
    ]

    cursor: reactive[int] = reactive(-1)
    engine_step: reactive[int] = reactive(-1)
    status: reactive[str] = reactive("")
    notice: reactive[tuple[str, str] | None] = reactive(None)  # (text, severity) the status row shows for now

    class CursorMoved(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.marks: list[Mark] = []
        self._offset = 0

    # ------------------------------------------------------------------ data

    def set_steps(self, marks: list[Mark]) -> None:
        self.marks = marks
        self._offset = 0
        self.cursor = min(self.cursor, len(marks) - 1)
        self.refresh()

    def lines_inserted(self, after: int, count: int) -> None:
        """``count`` lines went into the scenario after line ``after`` (steps recorded while a run goes on): the
        marks below it follow their steps' lines. The run's steps stay those of the file it started from."""
        for mark in self.marks:
            if mark.line > after:
                mark.line += count
        self.refresh()

    def set_state(self, index: int, state: str, files: tuple[str, ...] | None = None) -> None:
        if 0 <= index < len(self.marks):
            self.marks[index].state = state
            if files is not None:
                self.marks[index].files = files
            self.refresh()

    def set_acp(self, messages: dict[int, list[str]]) -> None:
        """The ACP messages of each step (index -> summary lines), as a live ACP run records them."""
        for mark in self.marks:
            mark.acp = tuple(messages.get(mark.index, ()))
        self.watch_cursor()

    def set_record(self, record: StepRecord) -> None:
        """A step has run: its state and files from its record (a failed mark stays failed)."""
        if 0 <= record.index < len(self.marks) and self.marks[record.index].state == FAILED:
            return
        self.set_state(record.index, record_state(record), record_files(record))

    def set_failed(self, index: int) -> None:
        self.set_state(index, FAILED)

    def reset_states(self) -> None:
        for mark in self.marks:
            mark.state = PENDING
            mark.files = ()
        self.engine_step = -1
        self.refresh()

    # ------------------------------------------------------------------ input

    def action_move(self, delta: int) -> None:
        self.move_cursor(max(0, self.cursor + delta) if self.cursor >= 0 else 0)

    def action_move_to(self, index: int) -> None:
        self.move_cursor(index if index >= 0 else len(self.marks) - 1)

    def move_cursor(self, index: int) -> None:
        if not self.marks:
            return
        index = max(0, min(index, len(self.marks) - 1))
        self.cursor = index
        self.post_message(self.CursorMoved(index))

    _dragging = False

    def _index_at(self, x: int) -> int:
        columns = self._columns(self._width())
        if columns is None:
            return self._offset + x
        return min(range(len(columns)), key=lambda i: abs(columns[i] - x))

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """Pressing on the marks selects at once; dragging scrubs (the screen follows the pointer)."""
        x = event.x - self.gutter.left
        if event.y - self.gutter.top != 0 or x < 0 or not self.marks:
            return
        self._dragging = True
        self.capture_mouse()
        self.move_cursor(self._index_at(x))

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if not self._dragging or not self.marks:
            return
        index = self._index_at(max(0, event.x - self.gutter.left))
        if index != self.cursor:
            self.move_cursor(index)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging:
            self._dragging = False
            self.release_mouse()

    def _width(self) -> int:
        return max(1, self.content_region.width or self.size.width or 80)

    def _columns(self, width: int) -> list[int] | None:
        """The column of each mark along virtual time, or None when they do not fit one per cell."""
        n = len(self.marks)
        if n == 0 or n > width:
            return None
        total = max(self.marks[-1].at_ms, 1)
        columns = [round(mark.at_ms / total * (width - 1)) for mark in self.marks]
        for i in range(n):  # at least one cell after the previous mark ...
            if i and columns[i] <= columns[i - 1]:
                columns[i] = columns[i - 1] + 1
        for i in range(n - 1, -1, -1):  # ... and room left for the marks after it
            columns[i] = min(columns[i], width - (n - i))
            if i + 1 < n and columns[i] >= columns[i + 1]:
                columns[i] = columns[i + 1] - 1
        return columns

    ACP_ROWS = 5  # at most this many message rows under the status; more are counted on the last

    def watch_cursor(self) -> None:
        """The widget grows by the selected step's ACP message rows (none for runs without ACP)."""
        if not any(mark.acp for mark in self.marks):
            self.refresh()
            return
        rows = len(self.marks[self.cursor].acp) if 0 <= self.cursor < len(self.marks) else 0
        self.styles.height = 5 + min(rows, self.ACP_ROWS)
        self.refresh(layout=True)

    def watch_engine_step(self) -> None:
        self.refresh()

    def watch_status(self) -> None:
        self.refresh()
        self._leave_the_status_to_toasts()

    def on_resize(self) -> None:
        self._leave_the_status_to_toasts()

    # a toast's width: Textual's 60, down to 40 beside a long status (wrapped, it grows up over the rows above)
    TOAST_WIDTHS = (40, 60)

    def _leave_the_status_to_toasts(self) -> None:
        """Toasts sit at the bottom right over these rows (app.tcss), each as wide as its rack: the rack starts
        after the status text, so a toast never hides what the run is doing ("viewing a recorded step", "Esc
        stops")."""
        try:
            rack = self.screen.get_child_by_type(ToastRack)
        except (NoMatches, NoScreen):
            return
        content = self.content_region
        if not content.width:  # not laid out yet: on_resize comes
            return
        narrowest, widest = self.TOAST_WIDTHS
        after_status = max(content.x + cell_len(self.status) + 2, content.right - widest)
        left = max(0, min(after_status, content.right - narrowest))
        rack.styles.margin = (0, 0, 2, left)  # above the timeline's bottom border and the footer (app.tcss)
        rack.styles.width = max(1, content.right - left)

    def watch_notice(self) -> None:
        self.refresh()

    # ------------------------------------------------------------------ drawing

    def _actor_style(self, actor: str) -> RichStyle:
        from workbench.app.themes import DEFAULT_VARIABLES

        key = f"actor-{actor}" if actor in ("agent", "user") else "actor-control"
        variables = self.app.current_theme.variables if self.is_attached else {}
        return RichStyle(color=variables.get(key) or DEFAULT_VARIABLES[key])

    def _mark_style(self, mark: Mark, errors: str) -> RichStyle:
        style = self._actor_style(mark.actor)
        if mark.state == FAILED:
            style = RichStyle(color=errors, bold=True)
        elif mark.state == PENDING:
            style += RichStyle(dim=True)
        if mark.index == self.engine_step:
            style += RichStyle(underline=True)
        if mark.index == self.cursor:
            style += RichStyle(reverse=True)
        return style

    def render(self) -> Text:
        width = self._width()
        n = len(self.marks)
        marks = Text(no_wrap=True, overflow="crop")
        if n == 0:
            marks.append("(no steps: the scenario does not compile yet)", style="dim")
        errors = (self.app.current_theme.error if self.is_attached else None) or "red"
        columns = self._columns(width)
        if columns is not None:
            self._offset = 0
            rail = RichStyle(dim=True)
            x = 0
            for mark, column in zip(self.marks, columns, strict=True):
                marks.append("─" * (column - x), style=rail)
                marks.append(GLYPHS[mark.state], style=self._mark_style(mark, errors))
                x = column + 1
            marks.append("─" * (width - x) if n else "", style=rail)
        else:
            if self.cursor >= 0:
                if self.cursor < self._offset:
                    self._offset = self.cursor
                elif self.cursor >= self._offset + width:
                    self._offset = self.cursor - width + 1
            for mark in self.marks[self._offset : self._offset + width]:
                marks.append(GLYPHS[mark.state], style=self._mark_style(mark, errors))
        info = Text(no_wrap=True, overflow="ellipsis")
        if 0 <= self.cursor < n:
            mark = self.marks[self.cursor]
            # The short facts first, the summary and files (whole in the Step view) last: a narrow
            # row cuts what has another place to be read, never the step's state or line.
            info.append(f"step {mark.index + 1}/{n}", style="bold")
            info.append(f"  {mark.at_ms / 1000:.3f}s  line {mark.line}  ")
            info.append(mark.state, style=self._mark_style(mark, errors) if mark.state == FAILED else "")
            info.append("  ")
            info.append(f"{mark.actor} {mark.action}", style=self._actor_style(mark.actor))
            if mark.acp:
                info.append(f"  acp: {len(mark.acp)}", style="bold")
            info.append(f"  {mark.summary}")
            if mark.files:
                info.append("  files: ", style="bold")
                info.append(" ".join(mark.files))
        elif n:
            info.append(count(n, "step"), style="bold")
        status = Text(self.status, no_wrap=True, overflow="ellipsis", style="italic")
        if self.notice is not None:
            text, severity = self.notice
            colour = {
                "error": errors,
                "warning": self.app.current_theme.warning if self.is_attached else None,
            }
            style = RichStyle(
                bold=True, color=colour.get(severity) or ("yellow" if severity == "warning" else None)
            )
            # a notice longer than the row takes the step's row above it too, for as long as it is shown: cut,
            # it lost its end, often the key that acts on it ("...; ctrl+r restarts")
            lines = textwrap.wrap(text, width) if len(text) > width else [text]
            if len(lines) > 1:
                info = Text(lines[0], no_wrap=True, overflow="ellipsis", style=style)
            status = Text(" ".join(lines[1:]) or text, no_wrap=True, overflow="ellipsis", style=style)
        return Text("\n", no_wrap=True, overflow="ellipsis").join([marks, info, status, *self._acp_rows()])

    def _acp_rows(self) -> list[Text]:
        """The selected step's ACP messages, one a row; the last row counts what does not fit."""
        if not 0 <= self.cursor < len(self.marks):
            return []
        lines = list(self.marks[self.cursor].acp)
        if len(lines) > self.ACP_ROWS:
            lines = [*lines[: self.ACP_ROWS - 1], f"… {len(lines) - self.ACP_ROWS + 1} more ACP messages"]
        return [Text(line, no_wrap=True, overflow="ellipsis") for line in lines]
