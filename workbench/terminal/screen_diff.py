"""Two screens compared cell by cell: which cells changed, as runs a pane or a report can mark.

The app's screenshot pane and step inspector and the HTML report draw the same
comparison, so it lives here, headless: each row of each side is a list of
:class:`Span` (text and whether those cells differ from the other side). A
"marked" view is one screen (the actual) with the changed cells flagged, for
windows too narrow for two screens side by side.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.terminal.shot import Shot


@dataclass(frozen=True)
class Span:
    """Consecutive cells of one row that are all changed or all unchanged."""

    text: str
    changed: bool


Row = tuple[Span, ...]


@dataclass(frozen=True)
class ScreenDiff:
    """``before`` and ``after`` as rows of spans; ``changed_rows`` are the 0-based rows with a change."""

    width: int
    height: int
    before: tuple[Row, ...]
    after: tuple[Row, ...]
    changed_rows: tuple[int, ...]
    changed_cells: int

    @property
    def same(self) -> bool:
        return self.changed_cells == 0


def _spans(cells: list[str], flags: list[bool]) -> Row:
    spans: list[Span] = []
    start = 0
    for x in range(1, len(cells) + 1):
        if x == len(cells) or flags[x] != flags[start]:
            spans.append(Span("".join(cells[start:x]), flags[start]))
            start = x
    return tuple(spans)


def diff_screens(before: str, after: str, width: int, height: int) -> ScreenDiff:
    """Compare two screen texts as ``width`` x ``height`` cells (wide characters keep two cells)."""
    b, a = Shot.from_text(before, width, height), Shot.from_text(after, width, height)
    rows_b: list[Row] = []
    rows_a: list[Row] = []
    changed_rows: list[int] = []
    count = 0
    for y in range(height):
        cells_b, cells_a = b.row_cells(y), a.row_cells(y)
        flags = [cells_b[x] != cells_a[x] for x in range(width)]
        changed = sum(flags)
        if changed:
            changed_rows.append(y)
            count += changed
        # a wide character's second cell is "" in row_cells: it takes no text of its own
        rows_b.append(_spans(cells_b, flags))
        rows_a.append(_spans(cells_a, flags))
    return ScreenDiff(width, height, tuple(rows_b), tuple(rows_a), tuple(changed_rows), count)
