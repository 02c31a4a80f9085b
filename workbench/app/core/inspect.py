"""What the step inspector shows for one step, gathered from the run's records without Textual.

For the selected step: the event (its kind, summary and the scenario lines that
wrote it), every check with its full message, the failures the run reported at
that step, the files it changed, the screen before and after (the previous
step's recorded screen, then this one's) compared cell by cell, and the
conversation that belongs to the step: the ACP messages of an ACP run, or the
model requests a step answered in real-agent mode. Nothing here is cut: the
pane wraps what it is given.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.engine.report import Failure
from workbench.engine.trace import StepRecord

if TYPE_CHECKING:  # the screen model loads with the first inspected step
    from workbench.terminal.screen_diff import ScreenDiff

REQUEST_LOG = "llm-requests.jsonl"
_ANSWERED_LINE = re.compile(r"\(line (\d+)\)")


@dataclass(frozen=True)
class Check:
    ok: bool
    message: str


@dataclass(frozen=True)
class StepDetails:
    """Everything the inspector says about one step."""

    index: int
    total: int
    actor: str
    action: str
    summary: str
    line: int
    at_ms: int | None  # None: the step has not run (its schedule entry only)
    wall_ms: int | None
    source: tuple[str, ...] = ()  # the scenario lines of the step, from ``line`` on
    checks: tuple[Check, ...] = ()
    failures: tuple[Failure, ...] = ()
    files: tuple[dict[str, str], ...] = ()
    screen: ScreenDiff | None = None  # before -> after; None when the step has not run
    conversation: tuple[str, ...] = field(default=())  # ACP messages or model requests, one entry each

    @property
    def ran(self) -> bool:
        return self.at_ms is not None

    @property
    def failed(self) -> bool:
        return bool(self.failures) or any(not c.ok for c in self.checks)


def step_source(text: str, line: int) -> tuple[str, ...]:
    """The YAML block that starts at 1-based ``line``: that line and the deeper-indented ones after it."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return ()
    first = lines[line - 1]
    indent = len(first) - len(first.lstrip())
    block = [first]
    for following in lines[line:]:
        if following.strip() and len(following) - len(following.lstrip()) <= indent:
            break
        block.append(following)
    while block and not block[-1].strip():
        block.pop()
    return tuple(block)


def _acp_messages(run_dir: Path, records: list[StepRecord]) -> dict[int, list[str]]:
    from workbench.engine.acp_trace import read_messages, summary

    messages = read_messages(run_dir)
    if not messages or not records:
        return {}
    ordered = sorted(records, key=lambda r: r.wall_ms)
    starts = [0] + [r.wall_ms for r in ordered[:-1]]
    out: dict[int, list[str]] = {}
    for record in messages:
        position = 0
        for i, start in enumerate(starts):
            if start <= record["t_ms"]:
                position = i
        body = json.dumps(record.get("message"), ensure_ascii=False, separators=(", ", ": "))
        out.setdefault(ordered[position].index, []).append(f"{summary(record)}  {body}")
    return out


def _model_requests(run_dir: Path) -> dict[int, list[str]]:
    """Scenario line -> the requests the step written there answered (real-agent mode's request log)."""
    try:
        text = (run_dir / REQUEST_LOG).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    out: dict[int, list[str]] = {}
    for raw in text.splitlines():
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        match = _ANSWERED_LINE.search(str(entry.get("outcome") or ""))
        if match is None:
            continue
        parts = [f"request {entry.get('seq', '?')}: {entry.get('outcome', '')}"]
        if entry.get("prompt"):
            parts.append(f"prompt: {entry['prompt']}")
        for result in entry.get("results") or ():
            if isinstance(result, dict):
                status = "error" if result.get("error") else "ok"
                parts.append(f"tool result {result.get('id', '')} {status}: {result.get('text', '')}")
        out.setdefault(int(match.group(1)), []).append("\n".join(parts))
    return out


def conversation(run_dir: Path | None, records: list[StepRecord]) -> dict[int, list[str]]:
    """Step index -> what crossed the agent's wire during it (ACP messages, or the model requests it answered)."""
    if run_dir is None:
        return {}
    by_step = _acp_messages(run_dir, records)
    by_line = _model_requests(run_dir)
    for record in records:
        if record.line in by_line:  # the request, then the reply this step gave it
            replies = [f"{request}\nreply: {record.summary}" for request in by_line[record.line]]
            by_step.setdefault(record.index, []).extend(replies)
    return by_step


def inspect_step(
    index: int,
    *,
    total: int,
    records: dict[int, StepRecord],
    planned: tuple[str, str, str, int] | None,
    failures: list[Failure],
    scenario_text: str,
    size: tuple[int, int],
    talk: dict[int, list[str]] | None = None,
) -> StepDetails:
    """The details of step ``index``: from its record when it ran, else from ``planned``
    (actor, action, summary, line of the schedule)."""
    record = records.get(index)
    width, height = size
    if record is None:
        actor, action, summary, line = planned or ("", "", "", 0)
        return StepDetails(index, total, actor, action, summary, line, None, None,
                           source=step_source(scenario_text, line))  # fmt: skip
    earlier = [i for i in records if i < index]
    before = records[max(earlier)].screen if earlier else []
    from workbench.terminal.screen_diff import diff_screens

    screen = diff_screens("\n".join(before), "\n".join(record.screen), width, height)
    return StepDetails(
        index, total, record.actor, record.action, record.summary, record.line, record.at_ms, record.wall_ms,
        source=step_source(scenario_text, record.line),
        checks=tuple(Check(bool(c.get("ok")), str(c.get("message", ""))) for c in record.checks),
        failures=tuple(f for f in failures if f.step == index), screen=screen,
        files=tuple({**f, "diff": (record.diffs or {}).get(f.get("path", ""), "")} for f in record.files),
        conversation=tuple((talk or {}).get(index, ())),
    )  # fmt: skip
