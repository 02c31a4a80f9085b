"""A screenshot as a value: the text grid of the golden format, the cursor, and style runs.

The golden format (docs/design.md §6) is UTF-8 text of exactly ``height``
rows, each padded with spaces to ``width`` columns, joined by ``\\n``, with no
trailing newline and no escape codes. Colours and attributes live apart, in a
style sidecar of runs (:meth:`Shot.style_json`), so a golden stays readable in
a code review and a colour change does not hide a text change.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from workbench.records import frozen

from . import render
from .style import FIELDS, Style, make_style
from .width import char_width, split_cells

STYLE_VERSION = 1


@frozen
class StyleRun:
    """``length`` cells from column ``col`` sharing one style that is not the default."""

    col: int
    length: int
    style: Style

    def to_json(self) -> dict[str, Any]:
        """``{"col", "len", "fg", "bg"}`` plus the attributes that are on."""
        style = self.style
        out: dict[str, Any] = {"col": self.col, "len": self.length, "fg": style.fg, "bg": style.bg}
        for name in style.flags:
            out[name] = True
        return out


@frozen
class Shot:
    """One screenshot. ``cells`` (when taken from a screen) are the exact cells renderers use."""

    width: int
    height: int
    rows: tuple[str, ...]
    cursor: tuple[int, int] = (0, 0)
    styles: tuple[tuple[StyleRun, ...], ...] = ()
    cursor_visible: bool = True
    cells: tuple[tuple[str, ...], ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def from_text(cls, text: str, width: int | None = None, height: int | None = None) -> Shot:
        """A screenshot of plain text (a golden read back), padded or cut to the size."""
        rows = text.split("\n")
        width = width if width is not None else max((len(split_cells(r)) for r in rows), default=0)
        height = height if height is not None else len(rows)
        rows = (rows + [""] * height)[:height]
        return cls(width=width, height=height, rows=tuple(rows))

    def text(self) -> str:
        """The golden format: ``height`` rows of ``width`` columns joined by ``\\n``."""
        return "\n".join("".join(self.row_cells(y)) for y in range(self.height))

    def row_cells(self, y: int) -> list[str]:
        """Row ``y`` as exactly ``width`` cells (a wide character, then ``""``).

        The live cells are used while they still spell the row (a screenshot
        whose rows were replaced, e.g. masked, is cut into cells again).
        """
        row = self.rows[y] if y < len(self.rows) else ""
        if y < len(self.cells) and "".join(self.cells[y]) == row and len(self.cells[y]) == self.width:
            return list(self.cells[y])
        cells = split_cells(row)[: self.width]
        if len(cells) == self.width and cells[-1] and char_width(cells[-1][0]) == 2:
            cells[-1] = " "  # a wide character cut by the right edge
        return cells + [" "] * (self.width - len(cells))

    def runs(self, y: int) -> tuple[StyleRun, ...]:
        return self.styles[y] if y < len(self.styles) else ()

    def style_json(self) -> dict[str, Any]:
        """The style sidecar: per row, the runs of non-default style (default runs are omitted)."""
        return {
            "version": STYLE_VERSION,
            "width": self.width,
            "height": self.height,
            "cursor": {"row": self.cursor[0], "col": self.cursor[1], "visible": self.cursor_visible},
            "rows": [[run.to_json() for run in self.runs(y)] for y in range(self.height)],
        }

    def has_styles(self) -> bool:
        return any(self.styles)

    def to_ansi(self) -> str:
        """The screenshot as text with SGR codes, for a terminal or a log (see :mod:`.render`)."""
        return render.to_ansi(self)

    def to_svg(self) -> str:
        """A standalone SVG picture of the screenshot (see :mod:`.render`)."""
        return render.to_svg(self)


def runs_from_json(rows: Any) -> tuple[tuple[StyleRun, ...], ...]:
    """The style runs of a trace record or a sidecar (``[[{"col", "len", "fg", "bg", attrs...}]]``), the
    inverse of :meth:`Shot.style_json`'s rows.

    What a file says is data that may be damaged: a row or a run of the wrong shape is
    taken as absent, a bad column or length as 0 (a run of no length is dropped), never a crash.
    """
    if not isinstance(rows, list):
        return ()
    out = []
    for row in rows:
        runs = []
        for run in row if isinstance(row, list) else ():
            if not isinstance(run, dict):
                continue
            key = tuple(str(run.get(name, "default")) if name in ("fg", "bg") else run.get(name) is True
                        for name in FIELDS)  # fmt: skip
            col, length = coordinate(run.get("col")), coordinate(run.get("len"))
            if length:
                runs.append(StyleRun(col, length, make_style(key)))
        out.append(tuple(runs))
    return tuple(out)


def coordinate(value: Any) -> int:
    """A column, a length or a cursor coordinate read from a file; what is not a small natural number is 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100_000 else 0
