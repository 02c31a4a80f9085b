"""The trace of a run: what happened at every step, for the app and `workbench show`.

One JSON document per line in ``<run dir>/trace.jsonl``:

* a header: ``{"type": "run", "version": 1, "scenario", "file", "profile": {...}, "steps": N, "speed"}``
  (and ``tags`` when the scenario has any);
* a record per step: ``{"type": "step", "index", "at_ms", "wall_ms", "actor", "action",
  "summary", "line", "screen": [rows], "cursor": [x, y], "files": [{"path", "change": "added|modified|deleted"}],
  "checks": [{"ok", "message"}]}`` (``style``, the runs of non-default colours and attributes, when the screen has any;
  ``diffs``, ``{path: unified diff}`` of the files the step changed, when it changed any);
* the result: ``{"type": "result", ...}`` in the JSON report's scenario shape.

Screens are stored whole at every step so stepping back in the app is a lookup,
not a replay. 1,000 steps of an 80x24 screen are about 2 MB.
"""

from __future__ import annotations

import json
from dataclasses import field, fields
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from workbench.records import record

if TYPE_CHECKING:
    from workbench.engine.report import ScenarioResult
    from workbench.engine.runner import ScenarioRun

TRACE_FILE = "trace.jsonl"


@record
class StepRecord:
    index: int
    at_ms: int
    wall_ms: int
    actor: str
    action: str
    summary: str
    line: int
    screen: list[str]
    cursor: tuple[int, int] = (0, 0)
    files: list[dict[str, str]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    style: dict[str, Any] | None = None
    diffs: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        """The record for ``trace.jsonl``: its fields as they are (``asdict``'s deep copy of every screen row
        and style run cost more than the rest of a step at ``--speed max``; nothing here is kept or changed)."""
        data: dict[str, Any] = {"type": "step"}
        for f in _FIELDS:
            data[f] = getattr(self, f)
        for optional in ("style", "diffs"):
            if data[optional] is None:
                del data[optional]
        return data


_FIELDS = tuple(f.name for f in fields(StepRecord))


class TraceWriter:
    """Appends records as they happen, so a crashed run still leaves its trace."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file: IO[str] | None = path.open("w", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class TraceObserver:
    """Writes a run's trace as it goes: an observer of the run like the console and the app."""

    def __init__(self) -> None:
        self._writer: TraceWriter | None = None

    def _open(self, run: ScenarioRun) -> TraceWriter | None:
        if self._writer is None and run.run_dir is not None and run.scenario is not None:
            profile = run.scenario.terminal
            self._writer = TraceWriter(run.run_dir / TRACE_FILE)
            header = {"type": "run", "version": 1, "scenario": run.scenario.name,
                      "file": run.result.file if run.result else str(run.path),
                      "profile": {"id": profile.id, "width": profile.width, "height": profile.height},
                      "steps": len(run.schedule.steps) if run.schedule else 0,
                      "speed": run.options.speed_text}  # fmt: skip
            if run.scenario.tags:  # for the HTML report's tag filter (absent when there are none)
                header["tags"] = list(run.scenario.tags)
            self._writer.write(header)
        return self._writer

    def run_started(self, run: ScenarioRun) -> None:
        self._open(run)

    def step_finished(self, run: ScenarioRun, record: StepRecord) -> None:
        writer = self._open(run)
        if writer is not None:
            writer.write(record.to_json())

    def run_finished(self, run: ScenarioRun, result: ScenarioResult) -> None:
        writer = self._open(run)  # a run that failed before its program started still leaves a trace
        if writer is not None:
            writer.write({"type": "result", **result.to_json()})
            writer.close()


@record
class Trace:
    header: dict[str, Any]
    steps: list[dict[str, Any]]
    result: dict[str, Any] | None

    @classmethod
    def read(cls, run_dir: Path) -> Trace:
        path = run_dir / TRACE_FILE if run_dir.is_dir() else run_dir
        header: dict[str, Any] = {}
        steps: list[dict[str, Any]] = []
        result = None
        with path.open(encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                record = json.loads(line)
                kind = record.get("type")
                if kind == "run":
                    header = record
                elif kind == "step":
                    steps.append(record)
                elif kind == "result":
                    result = record
        return cls(header, steps, result)


def read_records(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines log (a trace, ``acp.jsonl``, ``llm-requests.jsonl``) in file order.

    The file may still be written (its last line half done) or be absent: what does not
    parse is skipped, and a missing file has no records.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    records = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
