"""A scenario's steps as the REST API's session events (the JSON shapes of the service's spec).

String fields are JSON strings, times are ISO ``ts`` strings, each event's
``type`` is also its SSE event name. Times are virtual: ``ts`` is a fixed
epoch plus the step's scenario milliseconds, so a client shows the same thing
at every speed and on every day.

What each step becomes:

* thinking -> ``thought``; assistant text -> ``log`` (level ``info``);
* a tool call -> ``tool_use`` (``started``), then a ``log`` per progress line
  and per ``toolExecution`` output line (with the call's ``tool_execution_id``;
  stderr at level ``warn``), then ``tool_result`` ``completed`` or ``failed``
  (an error status, or a non-zero exit code in ``toolExecution``);
* a file edit -> ``file_edit``, plus a ``diff`` when the edit gives ``oldText``
  / ``newText``: over 64 KiB or 2,000 lines, only the first 200 and last 50
  lines of each side are sent, ``truncated: true`` and ``fullDiffUrl`` to fetch
  the whole;
* ``log`` -> ``log``; ``status`` -> ``status``; ``complete`` -> ``status``
  ``completed``; ``merge`` -> ``log`` ``merged`` and ``status`` ``completed``;
  an LLM error -> ``error`` and ``status`` ``failed``; ``sse`` -> its event as
  written (``ts`` added when missing);
* what the user does (`userInputs`, keys, `userCommand`: Agent Harbor's
  `userActions`) -> a ``log`` as the format's mock server writes it,
  ``user input (tui): TEXT`` and ``user command [cwd: DIR]: CMD``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, assert_never

from workbench.scenario import model as m
from workbench.timeline import Step, StepKind

EPOCH = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
"""Virtual time 0 of every session, as ``ts``."""

TRUNCATE_BYTES = 64 * 1024
TRUNCATE_LINES = 2000
HEAD_LINES = 200
TAIL_LINES = 50

EVENT_TYPES = ("status", "log", "thought", "tool_use", "tool_result", "file_edit", "diff", "error")
LEVELS = ("debug", "info", "warn", "error")
STATUSES = ("queued", "provisioning", "running", "pausing", "paused", "resuming", "stopping", "stopped",
            "completed", "failed", "cancelled")  # fmt: skip


def ts(at_ms: int) -> str:
    """The ISO time of virtual millisecond ``at_ms``."""
    moment = EPOCH + timedelta(milliseconds=at_ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_ts(text: str) -> datetime:
    """An ISO time from a filter (``Z`` or an offset; a date alone is midnight UTC); ValueError if it is not one."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


@dataclass
class FullDiff:
    path: str
    old_text: str
    new_text: str


@dataclass
class PtyFrame:
    """Terminal output of a tool, for the ``/pty`` stream."""

    data: bytes
    at_ms: int


@dataclass
class Played:
    """What one step produced: session events, full diffs kept for ``fullDiffUrl``, terminal output."""

    events: list[dict[str, Any]] = field(default_factory=list)
    diffs: list[FullDiff] = field(default_factory=list)
    pty: list[PtyFrame] = field(default_factory=list)


class EventMaker:
    """Turns one session's steps into events; remembers tool execution ids and counts diffs."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._exec_ids: dict[int, str] = {}
        self._diffs = 0

    def step(self, step: Step) -> Played:
        out = Played()
        at = step.at_ms
        event = step.event
        match step.kind:
            case StepKind.THINK:
                out.events.append(
                    {"type": "thought", "thought": step.text.text, "reasoning": None, "ts": ts(at)}
                )
            case StepKind.ASSISTANT:
                out.events.append(_log("info", step.text.text, None, at))
            case StepKind.LLM_ERROR:
                piece = step.error
                message = piece.message or piece.error_type
                out.events.append({"type": "error", "message": str(message), "ts": ts(at)})
                out.events.append(status_event("failed", at))
            case StepKind.TOOL_START:
                tool = step.tool
                out.events.append({"type": "tool_use", "tool_name": tool.tool_name, "tool_args": dict(tool.args),
                                   "tool_execution_id": self._exec_id(tool, step), "status": "started",
                                   "ts": ts(at)})  # fmt: skip
            case StepKind.TOOL_PROGRESS:
                out.events.append(_log("info", step.text.text, self._exec_id_of(step), at))
            case StepKind.TOOL_OUTPUT:
                self._tool_output(step, out)
            case StepKind.TOOL_RESULT:
                tool = step.tool
                out.events.append({"type": "tool_result", "tool_name": tool.tool_name,
                                   "tool_output": _output_text(tool.result),
                                   "tool_execution_id": self._exec_id(tool, step),
                                   "status": "failed" if _failed(tool) else "completed", "ts": ts(at)})  # fmt: skip
            case StepKind.EDIT:
                if isinstance(event, m.FileEdit):
                    self._edit(event, step, out)
            case StepKind.CONTROL:
                self._control(event, at, out)
            case StepKind.INPUT:
                target = step.input.target or "tui"
                out.events.append(_log("info", f"user input ({target}): {step.input.text}", None, at))
            case StepKind.KEY:
                if isinstance(event, m.KeyPress):
                    out.events.append(_log("info", f"user input (tui): <{event.key}>", None, at))
            case StepKind.LLM_RESPONSE | StepKind.ACP | StepKind.CANCEL | StepKind.ADVANCE:
                pass  # nothing a session shows
            case unknown:
                assert_never(unknown)
        return out

    @staticmethod
    def _control(event: m.Event, at: int, out: Played) -> None:
        if isinstance(event, m.Log):
            out.events.append(_log("info", event.message, None, at))
        elif isinstance(event, m.Status):
            out.events.append(status_event(event.status, at))
        elif isinstance(event, m.Complete) and event.value:
            out.events.append(status_event("completed", at))
        elif isinstance(event, m.Merge) and event.value:
            out.events.append(_log("info", "merged", None, at))
            out.events.append(status_event("completed", at))
        elif isinstance(event, m.UserCommand):
            command = event.cmd if event.cmd is not None else " ".join(event.argv or ())
            out.events.append(_log("info", f"user command [cwd: {event.cwd or '.'}]: {command}", None, at))
        elif isinstance(event, m.SseEvent):
            out.events.append({**dict(event.event), "ts": event.event.get("ts", ts(at))})

    def _exec_id(self, tool: m.ToolUse, step: Step) -> str:
        key = id(tool)
        if key not in self._exec_ids:
            self._exec_ids[key] = tool.tool_call_id or f"tool_exec_{step.index:04d}"
        return self._exec_ids[key]

    def _exec_id_of(self, step: Step) -> str | None:
        tools = [p for p in _pieces(step.event) if isinstance(p, m.ToolUse)]
        for tool in tools:
            if id(tool) in self._exec_ids and _owns(tool, step.item):
                return self._exec_ids[id(tool)]
        return None

    def _tool_output(self, step: Step, out: Played) -> None:
        item = step.output
        exec_id = self._exec_id_of(step)
        if item.type == "completion":
            out.events.append(_log("info", f"exited with code {item.exit_code}", exec_id, step.at_ms))
            return
        level = "warn" if item.type == "stderr" else "info"
        for line in item.content.splitlines() or [""]:
            out.events.append(_log(level, line, exec_id, step.at_ms))
        if item.type in ("stdout", "stderr"):
            text = item.content if item.content.endswith("\n") else item.content + "\n"
            out.pty.append(PtyFrame(text.replace("\r\n", "\n").replace("\n", "\r\n").encode(), step.at_ms))

    def _edit(self, event: m.FileEdit, step: Step, out: Played) -> None:
        at = step.at_ms
        description = event.extra.get("description")
        out.events.append({"type": "file_edit", "file_path": event.path, "lines_added": event.lines_added,
                           "lines_removed": event.lines_removed,
                           "description": None if description is None else str(description), "ts": ts(at)})  # fmt: skip
        old, new = event.extra.get("oldText"), event.extra.get("newText")
        if old is None and new is None:
            return
        old_text, new_text = str(old or ""), str(new or "")
        diff: dict[str, Any] = {"type": "diff", "tool_execution_id": None, "path": event.path}
        if _too_big(old_text) or _too_big(new_text):
            self._diffs += 1
            out.diffs.append(FullDiff(event.path, old_text, new_text))
            diff.update({
                "oldTextHead": _head(old_text), "oldTextTail": _tail(old_text),
                "newTextHead": _head(new_text), "newTextTail": _tail(new_text), "truncated": True,
                "fullDiffUrl": f"/api/v1/sessions/{self.session_id}/diff/{self._diffs}",
            })  # fmt: skip
        else:
            diff.update({"oldText": old_text, "newText": new_text})
        diff["ts"] = ts(at)
        out.events.append(diff)


def _log(level: str, message: str, exec_id: str | None, at: int) -> dict[str, Any]:
    return {"type": "log", "level": level, "message": message, "tool_execution_id": exec_id, "ts": ts(at)}


def status_event(status: str, at: int) -> dict[str, Any]:
    return {"type": "status", "status": status, "ts": ts(at)}


def _output_text(result: Any) -> str:
    if result is None:
        return ""
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def _failed(tool: m.ToolUse) -> bool:
    for item in tool.execution:
        if item.type == "completion" and item.exit_code is not None:
            return item.exit_code != 0
    return tool.status.lower() in ("error", "failed", "failure")


def _pieces(event: m.Event) -> tuple[Any, ...]:
    if isinstance(event, m.LlmResponse):
        return event.pieces
    return (event,)


def _owns(tool: m.ToolUse, item: Any) -> bool:
    return any(item is p for p in tool.progress) or any(item is e for e in tool.execution)


def _too_big(text: str) -> bool:
    return len(text.encode()) > TRUNCATE_BYTES or text.count("\n") + 1 > TRUNCATE_LINES


def _head(text: str) -> str:
    return "".join(text.splitlines(keepends=True)[:HEAD_LINES])


def _tail(text: str) -> str:
    return "".join(text.splitlines(keepends=True)[-TAIL_LINES:])


def initial_events(at_ms: int = 0) -> list[dict[str, Any]]:
    """What every session says first: it is running."""
    return [status_event("running", at_ms)]


def status_of(events: list[dict[str, Any]]) -> str:
    """A session's status: the last ``status`` event's."""
    for event in reversed(events):
        if event.get("type") == "status":
            return str(event.get("status"))
    return "queued"
