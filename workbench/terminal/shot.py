"""A screenshot as a value: the text grid of the golden format, a cursor, and style runs.

The golden format (DESIGN.md section 6) is UTF-8 text of exactly ``height`` rows,
each padded with spaces to ``width`` columns, joined by ``\\n``, with no
trailing newline and no escape codes. Colours and attributes live apart, in a
style sidecar of runs, so a golden stays readable in a code review.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from wcwidth import wcswidth

STYLE_VERSION = 1


@dataclass(frozen=True, slots=True)
class StyleRun:
    """``length`` cells from column ``col`` sharing one non-default style."""

    col: int
    length: int
    style: dict[str, Any] = field(hash=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"col": self.col, "len": self.length}
        for key, value in self.style.items():
            if key in ("fg", "bg"):
                if value != "default":
                    out[key] = value
            elif value:
                out[key] = True
        return out


def pad_row(row: str, width: int) -> str:
    """Pad a row with spaces to ``width`` display columns (wide characters count twice)."""
    shown = wcswidth(row)
    if shown < 0:
        shown = len(row)
    return row + " " * max(0, width - shown)


@dataclass(frozen=True, slots=True)
class Shot:
    width: int
    height: int
    rows: tuple[str, ...]
    cursor: tuple[int, int] = (0, 0)
    styles: tuple[tuple[StyleRun, ...], ...] = ()

    def text(self) -> str:
        """The golden format."""
        return "\n".join(self.rows)

    def style_json(self) -> dict[str, Any]:
        """The style sidecar: per row, the runs of non-default style."""
        return {
            "version": STYLE_VERSION,
            "width": self.width,
            "height": self.height,
            "cursor": list(self.cursor),
            "rows": [[run.to_json() for run in row] for row in self.styles],
        }

    def to_ansi(self) -> str:
        """The screenshot as text with SGR codes, for a terminal or a log."""
        return "\n".join(_ansi_row(row, runs) for row, runs in zip(self.rows, self._styles(), strict=True))

    def to_svg(self, cell_width: float = 8.4, cell_height: float = 17.0) -> str:
        """A standalone SVG picture of the screen (monospace text on a dark background)."""
        width, height = self.width * cell_width, self.height * cell_height
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="DejaVu Sans Mono, Menlo, monospace" '
            f'font-size="{cell_height * 0.8:.1f}">',
            f'<rect width="100%" height="100%" fill="{_SVG_BG}"/>',
        ]
        for y, (row, runs) in enumerate(zip(self.rows, self._styles(), strict=True)):
            baseline = (y + 0.78) * cell_height
            for run in runs:
                bg = _svg_colour(run.style.get("bg", "default"), None)
                if run.style.get("reverse"):
                    bg = _svg_colour(run.style.get("fg", "default"), _SVG_FG)
                if bg is not None:
                    parts.append(
                        f'<rect x="{run.col * cell_width:.1f}" y="{y * cell_height:.1f}" '
                        f'width="{run.length * cell_width:.1f}" height="{cell_height:.1f}" fill="{bg}"/>'
                    )
            for start, text, style in _segments(row, runs):
                if not text.strip():
                    continue
                fg = _svg_colour(style.get("fg", "default"), _SVG_FG)
                if style.get("reverse"):
                    fg = _svg_colour(style.get("bg", "default"), _SVG_BG)
                attrs = f' fill="{fg}"'
                if style.get("bold"):
                    attrs += ' font-weight="bold"'
                if style.get("italics"):
                    attrs += ' font-style="italic"'
                if style.get("dim"):
                    attrs += ' opacity="0.6"'
                if style.get("underscore"):
                    attrs += ' text-decoration="underline"'
                parts.append(
                    f'<text x="{start * cell_width:.1f}" y="{baseline:.1f}" xml:space="preserve"{attrs}>'
                    f"{html.escape(text)}</text>"
                )
        parts.append("</svg>")
        return "\n".join(parts) + "\n"

    def _styles(self) -> tuple[tuple[StyleRun, ...], ...]:
        return self.styles or tuple(() for _ in self.rows)


def _segments(row: str, runs: tuple[StyleRun, ...]) -> list[tuple[int, str, dict[str, Any]]]:
    """Split a row (by display column) into pieces of equal style: (column, text, style)."""
    cells = _cells(row)
    out: list[tuple[int, str, dict[str, Any]]] = []
    col = 0
    for run in runs:
        if run.col > col:
            out.append((col, "".join(cells[col : run.col]), {}))
        out.append((run.col, "".join(cells[run.col : run.col + run.length]), run.style))
        col = run.col + run.length
    if col < len(cells):
        out.append((col, "".join(cells[col:]), {}))
    return out


def _cells(row: str) -> list[str]:
    """One string per column: a wide character, then an empty string for its second column."""
    cells: list[str] = []
    for ch in row:
        w = wcswidth(ch)
        if w <= 0 and cells:
            cells[-1] += ch
            continue
        cells.append(ch)
        if w == 2:
            cells.append("")
    return cells


_SGR_NAMES = {"black": 0, "red": 1, "green": 2, "brown": 3, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6,
              "white": 7}  # fmt: skip


def _sgr_colour(value: str, base: int) -> str:
    if value in _SGR_NAMES:
        return str(base + _SGR_NAMES[value])
    if value.startswith("bright") and value[6:] in _SGR_NAMES:
        return str(base + 60 + _SGR_NAMES[value[6:]])
    if len(value) == 6:
        r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
        return f"{base + 8};2;{r};{g};{b}"
    return ""


def _ansi_row(row: str, runs: tuple[StyleRun, ...]) -> str:
    out = []
    for _, text, style in _segments(row, runs):
        codes = [
            code
            for key, code in (("bold", "1"), ("dim", "2"), ("italics", "3"), ("underscore", "4"),
                              ("blink", "5"), ("reverse", "7"), ("strikethrough", "9"))
            if style.get(key)
        ]  # fmt: skip
        for key, base in (("fg", 30), ("bg", 40)):
            value = style.get(key, "default")
            if value != "default" and (code := _sgr_colour(value, base)):
                codes.append(code)
        out.append(f"\x1b[{';'.join(codes)}m{text}\x1b[0m" if codes else text)
    return "".join(out)


_SVG_BG, _SVG_FG = "#1e1e1e", "#d4d4d4"
_PALETTE = {"black": "#000000", "red": "#cd3131", "green": "#0dbc79", "brown": "#e5e510", "yellow": "#e5e510",
            "blue": "#2472c8", "magenta": "#bc3fbc", "cyan": "#11a8cd", "white": "#e5e5e5"}  # fmt: skip


def _svg_colour(value: str, default: str | None) -> str | None:
    if value == "default":
        return default
    if value in _PALETTE:
        return _PALETTE[value]
    if value.startswith("bright") and value[6:] in _PALETTE:
        return _PALETTE[value[6:]]
    if len(value) == 6:
        return "#" + value
    return default
