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

import functools
import json
import re
from dataclasses import dataclass, field
from itertools import compress
from operator import ne
from pathlib import Path
from typing import Any

from workbench.engine.acp_trace import read_messages, step_of_each, summary
from workbench.engine.agent_requests import request_log
from workbench.engine.trace import TRACE_FILE, Trace, read_records
from workbench.report.cast import cast_frames
from workbench.report.screens import ScreenStore, shot_of
from workbench.report.source import highlighted_lines, read_named
from workbench.report.text_diff import side_by_side
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
            "virtual_ms": e.get("virtual_ms", 0), "reason": e.get("skip_reason") or e.get("reason") or item.reason,
            "first_failure": first_failure(e), "tags": list(item.tags), "entry": e}  # fmt: skip


MAX_SIDE = 1000  # columns or rows of a terminal: a trace claiming more is not believed


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _side(value: Any, default: int) -> int:
    return min(max(_int(value, default), 1), MAX_SIDE)


def scenario_page(item: ScenarioInput, store: ScreenStore) -> dict[str, Any]:
    """Everything the scenario's page shows; screens go to ``store`` and are named by id.

    A run folder is read as data that may be damaged (a run killed mid-write, a file
    edited by hand): a field of the wrong type is taken as absent, never a crash.
    """
    e = item.entry
    page: dict[str, Any] = {"failures": _dicts(e.get("failures")), "skipped_checks": _dicts(e.get("skipped_checks")),
                            "steps": [], "shots": [], "source": highlighted_lines(Path(_str(e.get("file")))),
                            "cast": None, "profile": None}  # fmt: skip
    trace = read_trace(item.run_dir)
    width, height = 80, 24
    if trace is not None:
        profile = trace.header.get("profile")
        profile = profile if isinstance(profile, dict) else {}
        width, height = _side(profile.get("width"), 80), _side(profile.get("height"), 24)
        page["profile"] = {"id": _str(profile.get("id")), "width": width, "height": height}
        traffic = _traffic(item.run_dir, trace.steps) if item.run_dir else {}
        before: Shot | None = None
        for record in trace.steps:
            step, shot = _step(record, store, width, height, traffic.get(_int(record.get("index"), -1), []))
            if shot is not None and before is not None and (changed := changed_since(before, shot)):
                step["changes"] = store.add(shot, changed)
            before = shot if shot is not None else before
            page["steps"].append(step)
        if item.run_dir is not None:
            page["cast"] = cast_frames(item.run_dir / "terminal.cast", store)
        page["steps"] += _unfinished_steps(page, e)
        if not any(step["at_ms"] for step in page["steps"]):
            # a scenario that gives no times (a real agent's, answered as it asks) puts every step at 0 ms
            # virtual: that is no time, and the page shows none rather than a column of "0 ms"
            for step in page["steps"]:
                step["at_ms"] = None
    page["shots"] = [
        _shot(shot, store, width, height, page["failures"]) for shot in _dicts(e.get("screenshots"))
    ]
    page["mismatches"] = [_mismatch(found) for found in _dicts(e.get("mismatches"))]
    return page


def _mismatch(found: dict[str, Any]) -> dict[str, Any]:
    """A text the run found different (the agent's prompt): both sides, the words that differ marked."""
    return {"step": _int(found.get("step"), -1), "line": _int(found.get("line")), "what": _str(found.get("what")),
            **side_by_side(_str(found.get("expected")), _str(found.get("actual")))}  # fmt: skip


def _unfinished_steps(page: dict[str, Any], entry: dict[str, Any]) -> list[dict[str, Any]]:
    """A step for each failure at a step the trace does not hold: where the run stopped or ended.

    A step that never finished (a `waitFor` that timed out, a program that hung) is not in the
    trace, nor are the checks made after the last step (`expect`). Without a step of their own
    the viewer would open at the last step that did finish, with its line and screen, which is
    not where the scenario failed: this step has the failure's line and the last screen the
    terminal showed (the recording's last frame, else the last step's).
    """
    steps = page["steps"]
    last = max((s["index"] for s in steps), default=-1)
    at: dict[int, list[dict[str, Any]]] = {}
    for failure in page["failures"]:
        index = _int(failure.get("step"), -1)
        if index > last:
            at.setdefault(index, []).append(failure)
    if not at:
        return []
    frames = page["cast"]["frames"] if page["cast"] else []
    screen = (
        frames[-1][1]
        if frames
        else next((s["screen"] for s in reversed(steps) if s["screen"] is not None), None)
    )
    end_ms = steps[-1]["at_ms"] if steps else 0
    out = []
    for index, failures in sorted(at.items()):
        first = failures[0]
        message = _str(first.get("message"))
        out.append({"index": index, "at_ms": max(end_ms, _int(entry.get("virtual_ms"))), "wall_ms": _int(entry.get("duration_ms")),
                    "actor": "run", "action": _str(first.get("kind")), "summary": message.splitlines()[0] if message else "",
                    "line": _int(first.get("line")), "screen": screen, "changes": None, "files": [],
                    "checks": [{"ok": False, "message": _str(f.get("message"))} for f in failures], "traffic": []})  # fmt: skip
    return out


def read_trace(run_dir: Path | None) -> Trace | None:
    """The run's trace, whatever of it can be read: a run killed mid-line leaves its earlier records."""
    if run_dir is None or not (run_dir / TRACE_FILE).is_file():
        return None
    records = read_records(run_dir / TRACE_FILE)
    header = next((r for r in records if r.get("type") == "run"), {})
    result = next((r for r in records if r.get("type") == "result"), None)
    return Trace(header, [r for r in records if r.get("type") == "step"], result)


def changed_since(before: Shot, after: Shot) -> list[frozenset[int]]:
    """Per row of ``after``, the columns whose character differs from ``before`` (none when nothing does).

    Rows are compared as text first, so a step that changes one line cuts only that line into cells.
    """
    changed: list[frozenset[int]] = []
    for y in range(after.height):
        old = before.rows[y] if y < len(before.rows) else ""
        new = after.rows[y] if y < len(after.rows) else ""
        if old.rstrip() == new.rstrip():
            changed.append(frozenset())
            continue
        a, b = _cells(new), _cells(old)
        width = min(after.width, max(len(a), len(b)))
        pad = (" ",) * width  # a row shorter than the other is blank to its end
        changed.append(frozenset(compress(range(width), map(ne, a + pad, b + pad))))
    return changed if any(changed) else []


@functools.lru_cache(maxsize=8192)
def _cells(row: str) -> tuple[str, ...]:
    """A row cut into cells, once per distinct row (a run shows the same rows step after step)."""
    return tuple(split_cells(row))


def _step(
    record: dict[str, Any], store: ScreenStore, width: int, height: int, traffic: list[dict[str, Any]]
) -> tuple[dict[str, Any], Shot | None]:
    """The step's part of the page, and its screen (None when it recorded none)."""
    rows, found = record.get("screen"), record.get("diffs")
    screen = [row for row in rows if isinstance(row, str)] if isinstance(rows, list) else []
    shot = shot_of(screen, record.get("style"), width, height, record.get("cursor"))
    diffs: dict[str, Any] = found if isinstance(found, dict) else {}
    files = [{"path": _str(f.get("path")), "change": _str(f.get("change")), "diff": _str(diffs.get(_str(f.get("path"))))}
             for f in _dicts(record.get("files"))]  # fmt: skip
    checks = [
        {"ok": c.get("ok") if isinstance(c.get("ok"), bool) else None, "message": _str(c.get("message"))}
        for c in _dicts(record.get("checks"))
    ]
    step = {"index": _int(record.get("index")), "at_ms": _int(record.get("at_ms")), "wall_ms": _int(record.get("wall_ms")),
            "actor": _str(record.get("actor")), "action": _str(record.get("action")), "summary": _str(record.get("summary")),
            "line": _int(record.get("line")), "screen": store.add(shot) if screen else None, "changes": None,
            "files": files, "checks": checks, "traffic": traffic}  # fmt: skip
    return step, shot if screen else None


def _sidecar(path: str) -> Any:
    if not path.endswith(".golden"):
        return None
    text = read_named(Path(path[: -len(".golden")] + ".style.json"), (".style.json",))
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _shot(
    shot: dict[str, Any], store: ScreenStore, width: int, height: int, failures: list[Any]
) -> dict[str, Any]:
    """A screenshot of the entry: golden and actual, and when they differ both with the changed cells marked."""
    label, status = _str(shot.get("label")), _str(shot.get("status"))
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
        path = _str(shot.get(side))
        text = read_named(Path(path), (".golden",)) if path else None
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
    by_line = {_int(s.get("line")): _int(s.get("index")) for s in steps if s.get("action") != "screenshot"}
    current = _int(steps[0].get("index")) if steps else 0
    for request in read_records(request_log(run_dir)):
        match = _ANSWERED_BY.search(str(request.get("outcome", "")))
        if match and int(match.group(1)) in by_line:
            current = by_line[int(match.group(1))]
        title = f"{request.get('method', '')} {request.get('path', '')} → {request.get('outcome', '')}"
        out.setdefault(current, []).append(
            {"kind": "model", "title": title.strip(), "json": _json_text(request)}
        )
    messages = read_messages(run_dir)
    placed = step_of_each({_int(s.get("index")): _int(s.get("wall_ms")) for s in steps}, messages,
                          {_int(s.get("index")): str(s.get("action", "")) for s in steps})  # fmt: skip
    for at, message in zip(placed, messages, strict=False):
        out.setdefault(at, []).append({"kind": "acp", "title": summary(message),
                                       "json": _json_text(message.get("message"))})  # fmt: skip
    return out
