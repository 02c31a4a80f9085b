"""Goldens: where screenshots live, how they are compared, and how they are updated.

Paths follow docs/design.md §6: the golden is
``<goldens>/<scenario>/<profile>/<label>.golden`` with an optional
``<label>.style.json`` sidecar, and every capture is also written to
``<actual root>/<scenario>/<profile>/screenshots/<label>.golden`` (root
``target/tmp/workbench`` by default) so a failed run leaves the actual screen
next to the expected one.

Comparison is of the text only and ignores trailing spaces on each row, so an
editor that trims lines does not break a golden; colours live in the sidecar
and never fail a comparison. ``ci`` never writes a golden (a missing one is
``missing``, a failure); otherwise a missing golden is written and reported
``new``, and ``update`` rewrites a mismatching one (``updated``). A capture and
its sidecar are written as one (:func:`workbench.atomic.write_group_atomic`):
read through :meth:`GoldenStore.read`, they are both old or both new, whatever
moment a kill came at.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from workbench.atomic import NotAFileError, read_group, settle, write_group_atomic
from workbench.names import DEFAULT_OUT_DIR
from workbench.records import frozen
from workbench.scenario.diagnostics import count

from .shot import Shot
from .width import split_cells

Status = Literal["match", "mismatch", "missing", "new", "updated"]
CONTEXT_ROWS = 1
DEFAULT_ACTUAL_ROOT = DEFAULT_OUT_DIR


@frozen
class GoldenOutcome:
    """What :meth:`GoldenStore.check` found; ``diff`` is set for ``mismatch``, ``updated`` and ``missing``."""

    status: Status
    golden_path: Path
    actual_path: Path
    diff: str | None = None
    problem: str | None = None  # what is wrong with the golden itself (not text): the failure's own words

    @property
    def failed(self) -> bool:
        return self.status in ("mismatch", "missing")


def compare_text(expected: str, actual: str) -> str | None:
    """None if two screens agree (ignoring trailing spaces on each row), else a readable diff.

    Each changed row is shown with its 1-based number as the expected row
    (``-``) and the actual row (``+``), then a caret line under the changed
    columns and their numbers; unchanged rows around them give context::

        ...
            3 |$ ls
        -   4 |README.md setup.py
        +   4 |README.md setup.cfg
                               ^^^  (columns 17-19)
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
        lines.append(
            f"the golden has {count(len(want), 'row')}, the screen {len(got)}: a golden is the whole screen, "
            "a line per row"
        )
    previous = -1
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
        carets, columns = _carets(a, b)
        lines.append(f"{'':7}{carets}  (column{'s' if len(columns) > 1 else ''} {_ranges(columns)})")
    return "\n".join(lines)


def _row(rows: list[str], i: int) -> str:
    return rows[i] if i < len(rows) else ""


def _carets(a: str, b: str) -> tuple[str, list[int]]:
    """A caret under every display column where the rows differ, and those 1-based columns."""
    ca, cb = split_cells(a), split_cells(b)
    n = max(len(ca), len(cb))
    ca += [" "] * (n - len(ca))
    cb += [" "] * (n - len(cb))
    marks = ["^" if x != y else " " for x, y in zip(ca, cb, strict=True)]
    return "".join(marks).rstrip(), [i + 1 for i, m in enumerate(marks) if m == "^"]


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
    """The goldens of one scenario and terminal profile, and where its actual screenshots go."""

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
        self.folder = Path(goldens_dir) / scenario / profile_id
        root = DEFAULT_ACTUAL_ROOT if actual_dir is None else Path(actual_dir)
        self.actual_folder = root / scenario / profile_id / "screenshots"
        self.ci = ci
        self.update = update and not ci

    def golden_path(self, label: str) -> Path:
        return self.folder / f"{label}.golden"

    def actual_path(self, label: str) -> Path:
        return self.actual_folder / f"{label}.golden"

    def check(self, label: str, shot: Shot) -> GoldenOutcome:
        """Compare ``shot`` with the golden of ``label``; write the actual capture and, if allowed, the golden."""
        golden, actual = self.golden_path(label), self.actual_path(label)
        text = shot.text()
        write_group_atomic(
            {actual: text, _style_path(actual): json.dumps(shot.style_json(), indent=1) + "\n"},
            durable=False,  # the run's capture: the next run writes it again
        )
        try:
            expected, _ = self.read(label)
        except UnicodeDecodeError as exc:  # a golden is text: one saved in another encoding, or not text
            return self._unreadable(label, shot, exc)
        except (
            NotAFileError
        ) as exc:  # a folder, a named pipe or a device (a symlink to one) where a golden goes
            return self._not_a_file(label, shot, exc)
        if expected is None:
            if self.ci:
                return GoldenOutcome("missing", golden, actual, f"no golden at {golden} (this run writes none: "
                                     f"accept the capture in the app, or run without --ci){self._elsewhere(label)}")  # fmt: skip
            self._write(golden, shot)
            return GoldenOutcome("new", golden, actual)
        diff = compare_text(expected, text)
        if diff is None:
            return GoldenOutcome("match", golden, actual)
        if self.update:
            self._write(golden, shot)
            return GoldenOutcome("updated", golden, actual, diff)
        return GoldenOutcome("mismatch", golden, actual, diff)

    def _elsewhere(self, label: str) -> str:
        """Where goldens of ``label`` are for other terminal profiles: a golden that seems missing after the
        scenario's `terminal` changed is there, under the size it was taken at."""
        others = sorted(p for p in self.folder.parent.glob(f"*/{label}.golden") if p.parent != self.folder)
        if not others:
            return ""
        sizes = ", ".join(p.parent.name for p in others)
        return f"; there is one for {sizes} ({others[0]}): did the scenario's `terminal` change?"

    def _not_a_file(self, label: str, shot: Shot, exc: NotAFileError) -> GoldenOutcome:
        """A golden (or its sidecar) that is no file: a mismatch that says so; ``update`` puts a file in the
        place of a named pipe or a device (of the symlink to one, never writing into it), not of a folder."""
        golden, actual = self.golden_path(label), self.actual_path(label)
        note = (f"{exc}: a golden is a file of text; --update-goldens (or accepting the capture) puts one in its "
                "place, once a folder there is removed")  # fmt: skip
        if self.update and not any(p.is_dir() for p in (golden, _style_path(golden))):
            self._write(golden, shot)  # renamed into its place: a symlink is replaced, not followed
            return GoldenOutcome("updated", golden, actual, problem=note)
        return GoldenOutcome("mismatch", golden, actual, problem=note)

    def _unreadable(self, label: str, shot: Shot, exc: UnicodeDecodeError) -> GoldenOutcome:
        """A golden (or its sidecar) that is not UTF-8 text: a mismatch that says so, rewritten by ``update``."""
        golden, actual = self.golden_path(label), self.actual_path(label)
        bad = golden if _undecodable(golden) else _style_path(golden)
        byte = exc.object[exc.start : exc.start + 1].hex()
        note = (f"{bad} is not UTF-8 text (byte 0x{byte} at offset {exc.start}): a golden is the screen as "
                "UTF-8 text; rewrite it with --update-goldens, or accept the capture in the app")  # fmt: skip
        if self.update:
            self._write(golden, shot)
            return GoldenOutcome("updated", golden, actual, problem=note)
        return GoldenOutcome("mismatch", golden, actual, problem=note)

    def accept(self, label: str, shot: Shot) -> Path:
        """Make ``shot`` the golden of ``label``: a person's explicit accept (the app), allowed even with ``ci``."""
        golden = self.golden_path(label)
        self._write(golden, shot)
        return golden

    def read(self, label: str) -> tuple[str | None, str | None]:
        """The golden of ``label`` and its style sidecar (None where there is none), both of one write."""
        golden, style = read_group([self.golden_path(label), _style_path(self.golden_path(label))])
        return golden, style

    def settle(self) -> None:
        """Finish (or drop) what a writer killed mid-way left in this store's folders, before reading them."""
        settle(self.folder)
        settle(self.actual_folder)

    def _write(self, golden: Path, shot: Shot) -> None:
        style = json.dumps(shot.style_json(), indent=1) + "\n" if shot.has_styles() else None
        write_group_atomic(
            {golden: shot.text(), _style_path(golden): style}
        )  # no colours: no old sidecar kept


def _undecodable(path: Path) -> bool:
    try:
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return True
    except OSError:
        return False
    return False


def _style_path(golden: Path) -> Path:
    return golden.with_name(golden.name.removesuffix(".golden") + ".style.json")
