"""Headless helpers of the app: saving, validating unsaved text, verdicts, screenshot pairs.

Nothing here imports Textual, so it is cheap to test and to call from worker threads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.scenario.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:  # the screen model and the schema load after the app's first frame, where they are used
    from workbench.scenario.model import Scenario
    from workbench.terminal import GoldenStore, Shot
    from workbench.timeline import Schedule


@dataclass
class Validation:
    """What the validator says about a buffer: diagnostics, and the schedule when it compiles."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    scenario: Scenario | None = None
    schedule: Schedule | None = None

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == Severity.ERROR]


def validate_text(path: Path, text: str) -> Validation:
    """Load and compile unsaved ``text`` as if it were ``path``; never raises for bad input."""
    from workbench.timeline.prepare import prepare

    try:
        prepared = prepare(path, text=text)
    except Exception as exc:  # a loader bug must not take the editor down
        from workbench.scenario.diagnostics import Pos

        return Validation([Diagnostic(Pos(str(path)), f"internal error while validating: {exc!r}")])
    scenario = prepared.scenario
    schedule = prepared.schedule if scenario is not None and scenario.format != "claudeless" else None
    return Validation(prepared.diagnostics, scenario, schedule)


# --------------------------------------------------------------------------- verdicts


def last_verdicts(out_dir: Path) -> dict[str, str]:
    """Scenario name -> status of its newest run under ``out_dir`` (from the traces' result records)."""
    newest: dict[str, tuple[str, str]] = {}
    if not out_dir.is_dir():
        return {}
    for trace in out_dir.glob("*/*/*/trace.jsonl"):
        run_dir = trace.parent
        name = run_dir.parent.parent.name
        stamp = run_dir.name
        if name in newest and newest[name][0] >= stamp:
            continue
        status = _result_status(trace)
        if status is not None:
            newest[name] = (stamp, status)
    return {name: status for name, (_, status) in newest.items()}


def _result_status(trace: Path) -> str | None:
    try:
        record = _result_record(trace)
    except OSError:
        return None
    return str(record.get("status", "?")) if record is not None else "running?"


def _result_record(trace: Path) -> dict[str, Any] | None:
    """The result record at the end of a trace (None: the run has not ended); raises OSError."""
    import json  # here: the verdicts are read after the first frame

    with trace.open("rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 65536))
        tail = f.read().decode("utf-8", errors="replace").splitlines()
    for line in reversed(tail):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == "result":
            return record
    return None


def last_result(out_dir: Path, scenario: Scenario) -> dict[str, Any] | None:
    """The result record of ``scenario``'s newest run under ``out_dir`` (a `workbench run` or the app's, at its
    terminal's size); None if it never ran there, its run has not ended or its trace cannot be read."""
    from workbench.scenario.names import folder_name

    folder = out_dir / folder_name(scenario.name) / scenario.terminal.id
    traces = sorted(folder.glob("*/trace.jsonl")) if folder.is_dir() else []
    try:
        return _result_record(traces[-1]) if traces else None
    except OSError:
        return None


def scenario_name(path: Path) -> str:
    """The scenario's `name` without a full load (cheap enough for a file list); else the file stem."""
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:4000]
    except OSError:
        return path.stem
    for line in head.splitlines():
        stripped = line.strip()
        for prefix in ("name:", '"name":', "name ="):
            if line.startswith(prefix) or (path.suffix == ".json" and stripped.startswith(prefix)):
                value = stripped[len(prefix) :].strip().rstrip(",").strip().strip("\"'")
                if value:
                    return value
    return path.stem


# --------------------------------------------------------------------------- screenshots


@dataclass
class ShotPair:
    """A screenshot label of one scenario: its golden and its latest actual capture."""

    label: str
    golden_path: Path
    actual_path: Path
    golden: str | None
    actual: str | None

    @property
    def status(self) -> str:
        from workbench.terminal import compare_text

        if self.actual is None:
            return "no capture"
        if self.golden is None:
            return "missing"
        return "match" if compare_text(self.golden, self.actual) is None else "mismatch"

    @property
    def diff(self) -> str | None:
        from workbench.terminal import compare_text

        if self.golden is None or self.actual is None:
            return None
        return compare_text(self.golden, self.actual)


def golden_store(goldens_dir: Path, out_dir: Path, scenario: Scenario) -> GoldenStore:
    """The store the runner uses for this scenario (same folders), never in CI mode, never auto-updating."""
    from workbench.scenario.names import folder_name
    from workbench.terminal import GoldenStore

    return GoldenStore(goldens_dir, folder_name(scenario.name), scenario.terminal.id, ci=False, update=False,
                       actual_dir=out_dir)  # fmt: skip


def shot_pairs(store: GoldenStore) -> list[ShotPair]:
    store.settle()  # a capture and its sidecar of one write, even if a run was killed while writing them
    labels: set[str] = set()
    for folder in (store.folder, store.actual_folder):
        if folder.is_dir():
            labels.update(p.name.removesuffix(".golden") for p in folder.glob("*.golden"))
    pairs = []
    for label in sorted(labels):
        g, a = store.golden_path(label), store.actual_path(label)
        pairs.append(ShotPair(label, g, a, _read(g), _read(a)))
    return pairs


def recorded_pairs(screenshots: list[dict[str, Any]]) -> list[ShotPair]:
    """The screenshots of a run's result record (``{"label", "golden", "actual"}``), read from disk now."""
    pairs = []
    for shot in screenshots:
        golden, actual = Path(str(shot.get("golden", ""))), Path(str(shot.get("actual", "")))
        pairs.append(ShotPair(str(shot.get("label", "?")), golden, actual, _read(golden), _read(actual)))
    return pairs


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def actual_shot(pair: ShotPair, width: int, height: int) -> Shot:
    """The actual capture as a Shot, with its colours from the style sidecar when there is one."""
    import json

    from workbench.terminal import Shot
    from workbench.terminal.shot import runs_from_json

    assert pair.actual is not None
    shot = Shot.from_text(pair.actual, width, height)
    sidecar = pair.actual_path.with_name(pair.label + ".style.json")
    try:
        data = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return shot
    if not isinstance(data, dict):  # a sidecar edited by hand or cut short: the text alone, never a crash
        return shot
    try:
        styles = runs_from_json(data.get("rows"))
        cursor_data = data.get("cursor") or {}
        if not isinstance(cursor_data, dict):
            return shot
        cursor = (int(cursor_data.get("row", 0)), int(cursor_data.get("col", 0)))
    except (KeyError, TypeError, ValueError):
        return shot
    return Shot(shot.width, shot.height, shot.rows, cursor, styles, bool(cursor_data.get("visible", True)))
