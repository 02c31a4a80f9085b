"""Goldens: where screenshots live, how they are compared, and how they are updated.

Paths follow DESIGN.md section 6: the golden is
``<goldens>/<scenario>/<profile>/<label>.golden`` (with an optional
``<label>.style.json`` sidecar), and every capture is also written to
``<actual root>/<scenario>/<profile>/screenshots/<label>.golden`` so a failed
run leaves the actual screen next to the expected one. Comparison ignores
trailing spaces on each row. ``ci`` never writes a golden (a missing one fails);
otherwise a missing golden is written and reported ``new``, and ``update``
rewrites a mismatching one (``updated``). Every write is atomic.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .shot import Shot

Status = Literal["match", "mismatch", "missing", "new", "updated"]
CONTEXT_ROWS = 1


@dataclass(frozen=True)
class GoldenOutcome:
    status: Status
    golden_path: Path
    actual_path: Path
    diff: str | None = None


def write_atomic(path: Path, text: str) -> None:
    """Write a whole file or nothing: a temp file in the same folder, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def compare_text(expected: str, actual: str) -> str | None:
    """None if the screens agree (ignoring trailing spaces), else a readable row diff.

    Each changed row is shown as the expected (``-``) and actual (``+``) row with
    its 1-based number, and a caret line marking the changed columns.
    """
    want = [row.rstrip(" ") for row in expected.split("\n")]
    got = [row.rstrip(" ") for row in actual.split("\n")]
    if want == got:
        return None
    total = max(len(want), len(got))
    changed = [i for i in range(total) if _row(want, i) != _row(got, i)]
    shown: set[int] = set()
    for i in changed:
        shown.update(range(max(0, i - CONTEXT_ROWS), min(total, i + CONTEXT_ROWS + 1)))
    lines = []
    if len(want) != len(got):
        lines.append(f"expected {len(want)} rows, got {len(got)}")
    previous = -1  # no gap marker before row 1
    for i in sorted(shown):
        if i != previous + 1:
            lines.append("...")
        previous = i
        a, b = _row(want, i), _row(got, i)
        if a == b:
            lines.append(f"  {i + 1:3} |{a}")
            continue
        lines.append(f"- {i + 1:3} |{a}")
        lines.append(f"+ {i + 1:3} |{b}")
        carets = "".join(
            "^" if x >= len(a) or x >= len(b) or a[x] != b[x] else " " for x in range(max(len(a), len(b)))
        )
        cols = [x + 1 for x, c in enumerate(carets) if c == "^"]
        prefix = " " * len(f"+ {i + 1:3} |")  # the carets sit under the row's text
        lines.append(f"{prefix}{carets.rstrip()}  (columns {_ranges(cols)})")
    return "\n".join(lines)


def _row(rows: list[str], i: int) -> str:
    return rows[i] if i < len(rows) else ""


def _ranges(cols: list[int]) -> str:
    parts: list[str] = []
    start = prev = cols[0]
    for c in [*cols[1:], -1]:
        if c == prev + 1:
            prev = c
            continue
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
        start = prev = c
    return ", ".join(parts)


class GoldenStore:
    """Goldens of one scenario and terminal profile."""

    def __init__(
        self,
        goldens_dir: Path,
        scenario: str,
        profile_id: str,
        *,
        ci: bool,
        update: bool,
        actual_dir: Path | None = None,
    ) -> None:
        self.folder = goldens_dir / scenario / profile_id
        root = Path("target/tmp/workbench") if actual_dir is None else actual_dir
        self.actual_folder = root / scenario / profile_id / "screenshots"
        self.ci = ci
        self.update = update and not ci

    def golden_path(self, label: str) -> Path:
        return self.folder / f"{label}.golden"

    def check(self, label: str, shot: Shot) -> GoldenOutcome:
        golden = self.golden_path(label)
        actual = self.actual_folder / f"{label}.golden"
        text = shot.text()
        write_atomic(actual, text)
        write_atomic(actual.with_suffix(".style.json"), json.dumps(shot.style_json()) + "\n")
        if not golden.exists():
            if self.ci:
                return GoldenOutcome("missing", golden, actual, f"no golden at {golden}")
            self._write(golden, shot)
            return GoldenOutcome("new", golden, actual)
        diff = compare_text(golden.read_text(encoding="utf-8"), text)
        if diff is None:
            return GoldenOutcome("match", golden, actual)
        if self.update:
            self._write(golden, shot)
            return GoldenOutcome("updated", golden, actual, diff)
        return GoldenOutcome("mismatch", golden, actual, diff)

    def accept(self, label: str, shot: Shot) -> Path:
        """Make ``shot`` the golden of ``label`` (the app's explicit accept)."""
        golden = self.golden_path(label)
        self._write(golden, shot)
        return golden

    def _write(self, golden: Path, shot: Shot) -> None:
        write_atomic(golden, shot.text())
        if any(shot.styles):
            write_atomic(golden.with_suffix(".style.json"), json.dumps(shot.style_json(), indent=1) + "\n")
