"""A run's ACP messages (``acp.jsonl``) beside its steps (``trace.jsonl``), for the app's timeline.

Both files time their records by the same wall clock of the run: a step's
``wall_ms`` is taken when the step ends, a message's ``t_ms`` when it crossed the
wire (the ACP driver's recorder counts from the run's start, as the trace does:
counted from its own start, half a second of workspace setup later, every message
looked that much earlier and all of them fell to the first step). A step
therefore starts where the one before it ended, and a message belongs to the last
step that started at or before it; messages after the last step stay with it.
What follows from a step goes to that step instead: a step of the agent's ends once
its model reply is sent, and the agent relays the reply after that, while the next
step runs, so its text, its tool call and what that call asks of the client
(``fs/*``, ``terminal/*``) belong to the last step of their kind that had ended by
then in the same turn, and the client's ``session/prompt`` to its input.

The file is read while a run may still be writing it, so a line that does not
parse (the last one, half written) is skipped rather than failing the view.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from workbench.engine.trace import StepRecord, read_records
from workbench.names import ACP_MESSAGES_FILE
from workbench.scenario.events import StepKind

ARROWS = {"client->agent": "→", "agent->client": "←"}


def read_messages(run_dir: Path) -> list[dict[str, Any]]:
    """The records of ``run_dir/acp.jsonl`` in file order; none when the file is absent or unreadable."""
    return [r for r in read_records(run_dir / ACP_MESSAGES_FILE) if _is_message(r)]


def _is_message(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("t_ms"), int | float)


def summary(record: dict[str, Any]) -> str:
    """One line for a message: its direction arrow, then its method or ``#id`` with result or error."""
    arrow = ARROWS.get(str(record.get("dir")), "?")
    message = record.get("message")
    if not isinstance(message, dict):
        return f"{arrow} (not a JSON-RPC object)"
    ident = f" #{message['id']}" if "id" in message else ""
    if "method" in message:
        return f"{arrow} {message['method']}{ident}"
    error = message.get("error")
    if isinstance(error, dict):
        return f"{arrow}{ident} error {error.get('code', '')}: {error.get('message', '')}".rstrip(": ")
    if "result" in message:
        return f"{arrow}{ident} result"
    return f"{arrow}{ident} (no method, result or error)"


_TOOL_STEPS = (
    StepKind.TOOL_START,
    StepKind.TOOL_RESULT,
    StepKind.TOOL_OUTPUT,
    StepKind.TOOL_PROGRESS,
    StepKind.EDIT,
)
_CAUSED_BY: dict[str, tuple[StepKind, ...]] = {
    "agent_message_chunk": (StepKind.ASSISTANT,), "agent_thought_chunk": (StepKind.THINK,), "plan": (StepKind.ACP,),
    "tool_call": _TOOL_STEPS, "tool_call_update": _TOOL_STEPS}  # fmt: skip
"""What an agent says in a ``session/update`` because of a model reply, and the steps that reply is."""


def _caused_by(record: dict[str, Any]) -> tuple[StepKind, ...]:
    """The step actions a message follows from: the agent's text from the reply's text, a tool call and
    what the agent asks the client for while running it (``fs/*``, ``terminal/*``, a permission) from the
    reply's tool step, the client's prompt from the input; () for the rest (the protocol's own requests and
    answers)."""
    message = record.get("message")
    if not isinstance(message, dict):
        return ()
    method = str(message.get("method", ""))
    if record.get("dir") == "client->agent":
        return (
            (StepKind.INPUT,) if method == "session/prompt" else ()
        )  # the input the client sends as a prompt
    if method.startswith(("fs/", "terminal/")) or method == "session/request_permission":
        return _TOOL_STEPS
    params = message.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    kind = update.get("sessionUpdate") if isinstance(update, dict) else None
    return _CAUSED_BY.get(str(kind), ())


def step_of_each(
    wall_ms: dict[int, int], messages: Iterable[dict[str, Any]], actions: dict[int, str] | None = None
) -> list[int]:
    """The step index (of ``{index: wall_ms}``) each message belongs to; see the module docstring. With the
    steps' ``actions``, what the agent says or does because of a model reply goes to the step of that reply
    (the last one of its kind that ended by then, in the same turn): a step ends once its reply was sent,
    and the agent relays it after, while the next step already runs."""
    ordered = sorted(wall_ms, key=lambda index: wall_ms[index])
    if not ordered:
        return []
    starts = [0] + [wall_ms[index] for index in ordered[:-1]]
    out = []
    for record in messages:
        position = max(0, bisect.bisect_right(starts, record["t_ms"]) - 1)
        kinds = _caused_by(record) if actions else ()
        for earlier in reversed(ordered[:position]):  # the steps that ended by the time it crossed the wire
            action = (actions or {}).get(earlier, "")
            if action in kinds:
                position = ordered.index(earlier)
                break
            if action == StepKind.INPUT:
                break  # an earlier turn's
        out.append(ordered[position])
    return out


def messages_by_step(steps: Iterable[StepRecord], messages: Iterable[dict[str, Any]]) -> dict[int, list[str]]:
    """Each step's messages (by step index) as :func:`summary` lines; see the module docstring."""
    records = list(messages)
    out: dict[int, list[str]] = {}
    steps = list(steps)
    actions = {s.index: s.action for s in steps}
    for index, record in zip(
        step_of_each({s.index: s.wall_ms for s in steps}, records, actions), records, strict=False
    ):
        out.setdefault(index, []).append(summary(record))
    return out


def step_messages(run_dir: Path, steps: Iterable[StepRecord]) -> dict[int, list[str]]:
    """:func:`messages_by_step` for a run folder's ``acp.jsonl``."""
    return messages_by_step(steps, read_messages(run_dir))


class GrowingMessages:
    """A live run's ``acp.jsonl`` as it grows: each :meth:`read` parses only the lines appended since the
    last (a step's view costs its own messages, not the whole run's so far). A line still half written
    waits for its end; a whole line that does not parse is skipped, as :func:`read_messages` skips it."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / ACP_MESSAGES_FILE
        self.records: list[dict[str, Any]] = []
        self._offset = 0
        self._pending = b""

    def read(self) -> list[dict[str, Any]]:
        """Every message so far, in file order."""
        try:
            with self.path.open("rb") as file:
                file.seek(self._offset)
                data = file.read()
        except OSError:
            return self.records
        self._offset += len(data)
        *lines, self._pending = (self._pending + data).split(b"\n")
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if _is_message(record):
                self.records.append(record)
        return self.records
