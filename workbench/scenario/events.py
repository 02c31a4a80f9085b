"""The vocabulary of step kinds, and the one table of event specs.

A compiled step has a :class:`StepKind`. Every player (the runner, the mock
agent, the REST events, the ACP agent, the LLM timeline responder, the drivers)
``match``es on it and ends with ``assert_never``, so that strict mypy names
every place a new kind must be handled. The agent kinds are :data:`AGENT_KINDS`.

Events the runner plays on its own (screenshots, asserts, user commands, logs...)
are all of kind :attr:`StepKind.CONTROL`; what tells them apart is their
:class:`EventSpec` in :data:`EVENT_SPECS`: the YAML key, the model class, the
name in traces, the one-line summary and the kind; the YAML keys a timeline
item may have are rows of :data:`EVENT_KEYS` (parser and JSON Schema fragment).
The loader, `workbench schema`, the timeline table and the app's summaries read
these tables, so a new control event is its model class, one :func:`register`
line (which brings its parser and schema), and its handler
(``workbench.engine.steps.register_handler``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from enum import StrEnum
from typing import Any

from workbench.records import frozen

from . import model as m
from .diagnostics import Pos


class StepKind(StrEnum):
    """What a step is, for the players. The values are the names traces use."""

    THINK = "think"
    ASSISTANT = "assistant"
    LLM_ERROR = "llm-error"
    LLM_RESPONSE = "llm-response"  # an llmResponse with nothing in it
    TOOL_START = "tool-start"
    TOOL_PROGRESS = "tool-progress"
    TOOL_OUTPUT = "tool-output"
    TOOL_RESULT = "tool-result"
    EDIT = "edit"
    ACP = "acp"
    INPUT = "input"
    KEY = "key"
    CANCEL = "cancel"
    ADVANCE = "advance"
    CONTROL = "control"  # played by the runner, as the event's spec says (screenshot, assert, log...)


AGENT_KINDS = frozenset(
    {StepKind.THINK, StepKind.ASSISTANT, StepKind.LLM_ERROR, StepKind.LLM_RESPONSE, StepKind.TOOL_START,
     StepKind.TOOL_PROGRESS, StepKind.TOOL_OUTPUT, StepKind.TOOL_RESULT, StepKind.EDIT, StepKind.ACP}
)  # fmt: skip
"""The kinds the agent side plays: what a driver answers for."""

Parser = Callable[[Any, Pos, Pos, Mapping[str, Any], Any], list[m.Event]]
"""``(value, pos, key_pos, meta, context) -> events``: how a YAML key's value becomes events."""


@frozen
class EventSpec:
    """Everything about one event: its YAML key, model class, parser, JSON Schema fragment, name in traces,
    one-line summary and step kind."""

    key: str
    model: type[m.Event]
    action: str
    summary: Callable[[Any], str]
    kind: StepKind = StepKind.CONTROL
    parse: Parser | None = None
    schema: Mapping[str, Any] = field(default_factory=dict)


EVENT_SPECS: dict[type[m.Event], EventSpec] = {}
"""Model class -> its spec: the one table."""

KEY_GROUPS = ("event", "tool", "acp", "extension")
"""The groups of timeline keys, in the order `workbench schema` lists them."""


@frozen
class EventKey:
    """One key a timeline item may have: how its value is parsed, and its JSON Schema fragment (built when
    `workbench schema` asks). Several keys may make one model class (``advanceMs``/``baseTimeDelta``, every
    tool call), and a group key (``agentActions``) makes other events."""

    key: str
    parse: Parser
    schema: Callable[[], Mapping[str, Any]]
    group: str = "event"  # one of KEY_GROUPS


EVENT_KEYS: dict[str, EventKey] = {}
"""YAML key -> its row, in the order the loader lists them: what the loader and `workbench schema` read.
The built-in rows are the Agent Harbor loader's (its parsers), an extension's come from its spec."""


def register(spec: EventSpec) -> EventSpec:
    """Add an event to the vocabulary (a new control event: its spec line, with its parser and schema)."""
    EVENT_SPECS[spec.model] = spec
    if spec.parse is not None:
        fragment = dict(spec.schema) or {"description": f"`{spec.key}`"}
        register_key(EventKey(spec.key, spec.parse, lambda: fragment, "extension"))
    return spec


def register_key(row: EventKey) -> EventKey:
    """Add a timeline key (the built-in events' keys are registered by the loader that parses them)."""
    EVENT_KEYS[row.key] = row
    return row


def spec_of(event: m.Event) -> EventSpec | None:
    return EVENT_SPECS.get(type(event))


def quote(value: Any, limit: int = 48) -> str:
    text = str(value).replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f'"{text}"'


def summarize(event: m.Event) -> str:
    """A one-line description of an event, for tables, traces and the app."""
    spec = spec_of(event)
    return spec.summary(event) if spec is not None else type(event).__name__


def _assert(event: m.Assert) -> str:
    parts = []
    for name, values in (("fs.exists", event.fs_exists), ("fs.notExists", event.fs_not_exists),
                         ("text.contains", event.text_contains),
                         ("git.commit.messageContains", event.git_commit_message_contains)):  # fmt: skip
        if values:
            parts.append(f"{name} {', '.join(values)}")
    parts += [f"json.file {c.path}{c.pointer}" for c in event.json_file]
    if event.acp:
        parts.append("acp")
    return "assert " + "; ".join(parts) if parts else "assert"


def _wait_for(event: m.WaitFor) -> str:
    return f"waitFor {quote(event.text) if event.text is not None else '/' + str(event.regex) + '/'}"


def _user_command(event: m.UserCommand) -> str:
    return "userCommand " + quote(event.cmd if event.cmd is not None else " ".join(event.argv or ()))


def _flag(event: m.Complete | m.Merge) -> str:
    return f"{type(event).__name__.lower()} {str(event.value).lower()}"


def _name(event: m.Event) -> str:
    return type(event).__name__


for _spec in (
    EventSpec("agentEdits", m.FileEdit, "edit",
              lambda e: f"edit {e.path} +{e.lines_added} -{e.lines_removed}", StepKind.EDIT),
    EventSpec("acp", m.AcpEvent, "acp", lambda e: f"acp {e.name}", StepKind.ACP),
    EventSpec("llmResponse", m.LlmResponse, "llm-response", _name, StepKind.LLM_RESPONSE),
    EventSpec("agentToolUse", m.ToolUse, "tool-start", _name, StepKind.TOOL_START),
    EventSpec("userInputs", m.UserInputs, "input", _name, StepKind.INPUT),
    EventSpec("key", m.KeyPress, "key", lambda e: f"key <{e.key}>", StepKind.KEY),
    EventSpec("userCancelSession", m.UserCancelSession, "cancel", lambda e: "userCancelSession", StepKind.CANCEL),
    EventSpec("advanceMs", m.AdvanceMs, "advance", lambda e: f"advance {e.ms} ms", StepKind.ADVANCE),
    EventSpec("userEdits", m.UserEdits, "user-edits", lambda e: f"userEdits {e.patch}"),
    EventSpec("userCommand", m.UserCommand, "user-command", _user_command),
    EventSpec("screenshot", m.Screenshot, "screenshot", lambda e: f"screenshot {e.label}"),
    EventSpec("waitFor", m.WaitFor, "wait-for", _wait_for),
    EventSpec("log", m.Log, "log", lambda e: f"log {quote(e.message)}"),
    EventSpec("status", m.Status, "status", lambda e: f"status {e.status}"),
    EventSpec("assert", m.Assert, "assert", _assert),
    EventSpec("assertGit", m.AssertGit, "assert-git",
              lambda e: "assertGit " + ", ".join(f"{k}={v}" for k, v in e.checks.items())),
    EventSpec("assertVm", m.AssertVm, "assert-vm",
              lambda e: "assertVm " + ", ".join(f"{k}={v}" for k, v in e.checks.items())),
    EventSpec("sse", m.SseEvent, "sse", lambda e: "sse " + str(e.event.get("type", ""))),
    EventSpec("complete", m.Complete, "complete", _flag),
    EventSpec("merge", m.Merge, "merge", _flag),
    EventSpec("applyPatch", m.ApplyPatch, "apply-patch",
              lambda e: f"applyPatch {e.path}" + (" (commit)" if e.commit else "")),
):  # fmt: skip
    register(_spec)


__all__ = ["AGENT_KINDS", "EVENT_KEYS", "EVENT_SPECS", "KEY_GROUPS", "EventKey", "EventSpec", "Parser", "StepKind",
           "quote", "register", "register_key", "spec_of", "summarize"]  # fmt: skip
