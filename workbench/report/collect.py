"""One scenario's page of the report, gathered from its JSON report entry and its run folder.

The run folder holds what happened: ``trace.jsonl`` (every step with its screen,
checks, changed files and their diffs), ``terminal.cast`` (the raw terminal
stream), ``llm-requests.jsonl`` (what a real agent asked the mock model) and
``acp.jsonl`` (the ACP messages). The entry says how it ended. A scenario
without a run folder (skipped, or given by a JSON report alone) still gets a
page with its status, reason and failures.

Model requests carry no time of their own: a request answered by a scenario step
names that step's line (``(line N)`` in its outcome) and goes to that step; one
that no step answered goes to the step of the request before it. ACP messages
are placed by their wall clock, as the app does (:mod:`workbench.engine.acp_trace`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.engine.acp_trace import read_messages, step_of_each, summary
from workbench.engine.agent_requests import request_log
from workbench.engine.trace import Trace, read_records
from workbench.report.cast import cast_frames
from workbench.report.screens import ScreenStore, shot_of
from workbench.report.source import highlighted_lines
from workbench.terminal.screen_diff import Row, diff_screens
from workbench.terminal.shot import Shot
from workbench.terminal.width import split_cells

_ANSWERED_BY = re.compile(r"\(line (\d+)\)")
JSON_CHARS = 20_000  # one message shown in the report is cut to this


@dataclass
class ScenarioInput:
    """What the report knows of one scenario: its report entry, and its run folder when there is one."""

    entry: dict[str, Any]
    run_dir: Path | None = None
    tags: tuple[str, ...] = field(default=())
    reason: str = ""  # why it was skipped, when the entry does not say (`skip_reason`)


def first_failure(entry: dict[str, Any]) -> dict[str, Any] | None:
    failures = entry.get("failures") or []
    return failures[0] if failures and isinstance(failures[0], dict) else None


def summary_row(n: int, item: ScenarioInput) -> dict[str, Any]:
    """The scenario's line on the summary page (and, verbatim, its JSON report entry, for `report merge`)."""
    e = item.entry
    return {"id": n, "name": e.get("name", ""), "file": e.get("file", ""), "mode": e.get("mode", ""),
            "agent": e.get("agent") or "", "status": e.get("status", ""), "duration_ms": e.get("duration_ms", 0),
            "virtual_ms": e.get("virtual_ms", 0), "reason": e.get("skip_reason") or item.reason,
            "first_failure": first_failure(e), "tags": list(item.tags), "entry": e}  # fmt: skip


def scenario_page(item: ScenarioInput, store: ScreenStore) -> dict[str, Any]:
    """Everything the scenario's page shows; screens go to ``store`` and are named by id."""
    e = item.entry
    page: dict[str, Any] = {"failures": e.get("failures") or [], "skipped_checks": e.get("skipped_checks") or [],
                            "steps": [], "shots": [], "source": highlighted_lines(Path(e.get("file", ""))),
                            "cast": None, "profile": None}  # fmt: skip
    trace = _trace(item.run_dir)
    width, height = 80, 24
    if trace is not None:
        profile = trace.header.get("profile") or {}
        width, height = int(profile.get("width", 80)), int(profile.get("height", 24))
        page["profile"] = {"id": profile.get("id", ""), "width": width, "height": height}
        traffic = _traffic(item.run_dir, trace.steps) if item.run_dir else {}
        page["steps"] = [_step(record, store, width, height, traffic.get(record.get("index", -1), []))
                         for record in trace.steps]  # fmt: skip
        if item.run_dir is not None:
            page["cast"] = cast_frames(item.run_dir / "terminal.cast", store)
    page["shots"] = [
        _shot(shot, store, width, height, page["failures"]) for shot in e.get("screenshots") or []
    ]
    return page


def _trace(run_dir: Path | None) -> Trace | None:
    if run_dir is None:
        return None
    try:
        return Trace.read(run_dir)
    except (OSError, ValueError):
        return None


def _step(
    record: dict[str, Any], store: ScreenStore, width: int, height: int, traffic: list[dict[str, Any]]
) -> dict[str, Any]:
    screen = record.get("screen") or []
    shot = shot_of(screen, record.get("style"), width, height, record.get("cursor"))
    diffs = record.get("diffs") or {}
    files = [{"path": f.get("path", ""), "change": f.get("change", ""), "diff": diffs.get(f.get("path", ""), "")}
             for f in record.get("files") or []]  # fmt: skip
    return {"index": record.get("index", 0), "at_ms": record.get("at_ms", 0), "wall_ms": record.get("wall_ms", 0),
            "actor": record.get("actor", ""), "action": record.get("action", ""), "summary": record.get("summary", ""),
            "line": record.get("line", 0), "screen": store.add(shot) if screen else None,
            "files": files,
            "checks": record.get("checks") or [], "traffic": traffic}  # fmt: skip


def _read_text(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8") if path else None
    except (OSError, UnicodeDecodeError):
        return None


def _sidecar(path: str) -> Any:
    if not path.endswith(".golden"):
        return None
    text = _read_text(path[: -len(".golden")] + ".style.json")
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _shot(
    shot: dict[str, Any], store: ScreenStore, width: int, height: int, failures: list[Any]
) -> dict[str, Any]:
    """A screenshot of the entry: golden and actual, and when they differ both with the changed cells marked."""
    label, status = str(shot.get("label", "")), str(shot.get("status", ""))
    out: dict[str, Any] = {"label": label, "status": status, "golden": None, "actual": None,
                           "golden_marked": None, "actual_marked": None, "changed": 0, "rows": [], "step": None}  # fmt: skip
    for failure in failures:
        if (
            isinstance(failure, dict)
            and failure.get("kind") == "screenshot"
            and f"`{label}`" in str(failure.get("message", ""))
        ):
            out["step"] = failure.get("step")
    shots: dict[str, Shot] = {}
    for side in ("golden", "actual"):
        path = str(shot.get(side, ""))
        text = _read_text(path)
        if text is not None:
            shots[side] = shot_of(text.split("\n"), _sidecar(path), width, height)
            out[side] = store.add(shots[side])
    if status == "mismatch" and len(shots) == 2:
        diff = diff_screens(shots["golden"].text(), shots["actual"].text(), width, height)
        out["golden_marked"] = store.add(shots["golden"], [changed_columns(row) for row in diff.before])
        out["actual_marked"] = store.add(shots["actual"], [changed_columns(row) for row in diff.after])
        out["changed"], out["rows"] = diff.changed_cells, [y + 1 for y in diff.changed_rows]
    return out


def changed_columns(row: Row) -> frozenset[int]:
    """The columns of a row of :func:`diff_screens` whose cells changed (a wide character is two)."""
    columns: set[int] = set()
    x = 0
    for span in row:
        width = len(split_cells(span.text))
        if span.changed:
            columns.update(range(x, x + width))
        x += width
    return frozenset(columns)


def _json_text(value: Any) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return (
        text
        if len(text) <= JSON_CHARS
        else text[:JSON_CHARS] + f"\n... {len(text) - JSON_CHARS} more characters"
    )


def _traffic(run_dir: Path, steps: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """Each step's model requests and ACP messages (by step index)."""
    out: dict[int, list[dict[str, Any]]] = {}
    by_line = {
        int(s.get("line", 0)): int(s.get("index", 0)) for s in steps if s.get("action") != "screenshot"
    }
    current = int(steps[0].get("index", 0)) if steps else 0
    for request in read_records(request_log(run_dir)):
        match = _ANSWERED_BY.search(str(request.get("outcome", "")))
        if match and int(match.group(1)) in by_line:
            current = by_line[int(match.group(1))]
        title = f"{request.get('method', '')} {request.get('path', '')} → {request.get('outcome', '')}"
        out.setdefault(current, []).append(
            {"kind": "model", "title": title.strip(), "json": _json_text(request)}
        )
    messages = read_messages(run_dir)
    placed = step_of_each({int(s.get("index", 0)): int(s.get("wall_ms", 0)) for s in steps}, messages)
    for at, message in zip(placed, messages, strict=False):
        out.setdefault(at, []).append({"kind": "acp", "title": summary(message),
                                       "json": _json_text(message.get("message"))})  # fmt: skip
    return out
