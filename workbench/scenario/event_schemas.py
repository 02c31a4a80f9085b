"""The JSON Schema fragments of the built-in timeline events (draft-07), one function per YAML key.

Each is named by its key's row in the event table (:data:`workbench.scenario.events.EVENT_KEYS`), from
which `workbench schema` reads them; built only when the schema is asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .vocabulary import EVENT_ARGUMENTS

Schema = dict[str, Any]

MS: Schema = {"type": "integer", "minimum": 0, "description": "milliseconds"}
LINES: Schema = {"type": "integer", "minimum": 0, "description": "a count of lines"}
STR: Schema = {"type": "string"}
STRS: Schema = {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}


def obj(props: dict[str, Schema], required: tuple[str, ...] = (), description: str = "") -> Schema:
    out: Schema = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    if description:
        out["description"] = description
    return out


def _content() -> Schema:
    from .agent_harbor import CONTENT_TYPES

    block = obj(
        {"type": {"enum": list(CONTENT_TYPES)}, "text": STR, "path": STR, "data": STR, "mimeType": STR,
         "uri": STR, "oldText": STR, "newText": STR},
        ("type",), "an ACP content block",
    )  # fmt: skip
    return {"oneOf": [{"type": "string"}, block, {"type": "array", "items": block}]}


def _timed(text_schema: Schema, what: str) -> Schema:
    tuple_form = {
        "type": "array", "minItems": 2, "maxItems": 2, "items": [MS, text_schema],
        "description": f"[ms, {what}]: shown ms after the previous item",
    }  # fmt: skip
    object_form = obj(
        {"relativeTime": {**MS, "description": "offset from the start of the element"}, "content": text_schema},
        ("content",), f"{{relativeTime, content}}: the {what} at an offset from the element's start",
    )  # fmt: skip
    return {"type": "array", "items": {"oneOf": [tuple_form, object_form]}}


def _tool_use() -> Schema:
    from .agent_harbor import TOOL_STATUSES

    return obj(
        {
            "toolName": {"type": "string", "description": "runCmd, readFile, writeFile, editFile, grep, ..."},
            "args": {"type": "object"},
            "progress": {"type": "array", "description": "[ms, message] lines, each ms after the previous"},
            "result": {"description": "the expected result, compared with the real one"},
            "status": {"enum": list(TOOL_STATUSES)},
            "toolCallId": STR,
            "toolExecution": obj(
                {
                    "startTimeMs": MS,
                    "events": {
                        "type": "array",
                        "items": obj(
                            {
                                "type": {"enum": ["stdout", "stderr", "progress", "completion"]},
                                "timeMs": MS,
                                "content": STR,
                                "exitCode": {"type": "integer"},
                            }
                        ),
                    },
                }
            ),
        },
        ("toolName",),
        "the agent calls a tool; it runs for real in the workspace",
    )


def llm_response() -> Schema:
    from .claudeless import FAILURE_FIELDS

    return {
        "type": "array",
        "description": "one model turn: thinking, assistant text, or an error",
        "items": obj(
            {
                "think": _timed(STR, "thought"),
                "assistant": _timed(_content(), "text"),
                "error": obj(
                    {
                        "errorType": STR,
                        "message": STR,
                        "statusCode": {"type": "integer"},
                        "details": {},
                        "retryAfterSeconds": {"type": "integer"},
                    },
                    ("errorType", "message"),
                ),
                "fault": obj(
                    {
                        "type": {"enum": list(FAILURE_FIELDS)},
                        "partial_text": STR,
                        "raw": STR,
                        "message": STR,
                        "after_ms": {"type": "integer"},
                        "retry_after": {"type": "integer"},
                    },
                    ("type",),
                ),
            }
        ),
    }


def think() -> Schema:
    return {**_timed(STR, "thought"), "description": "legacy: a one-element llmResponse"}


def assistant() -> Schema:
    return {**_timed(_content(), "text"), "description": "legacy: a one-element llmResponse"}


def agent_tool_use() -> Schema:
    return _tool_use()


def agent_edits() -> Schema:
    return obj(
        {"path": STR, "linesAdded": LINES, "linesRemoved": LINES},
        ("path",),
        "the agent edits a file; line counts are checked",
    )


def user_inputs() -> Schema:
    user_input = {
        "oneOf": [
            {"type": "array", "minItems": 2, "maxItems": 2, "items": [MS, _content()],
             "description": "[ms, input]: ms after the start of the segment"},
            obj({"relativeTime": {**MS, "description": "absolute from the scenario start"}, "input": _content(),
                  "target": {"enum": ["tui", "webui", "cli"]}, "expectedResponse": {"type": "object"}}, ("input",)),
        ]
    }  # fmt: skip
    return {
        "type": "array",
        "items": user_input,
        "description": "what the user types (`<Enter>` names a key)",
    }


def user_edits() -> Schema:
    return obj({"patch": STR}, ("patch",), "the user applies a patch (relative to the scenario)")


def user_command() -> Schema:
    return obj(
        {
            "cmd": STR,
            "cwd": STR,
            "program": STR,
            "args": {"type": "array"},
            "env": {"type": "object"},
            "expect": {"type": "object"},
        },
        description="the user runs a command in the workspace",
    )


def user_cancel_session() -> Schema:
    return {"type": "boolean"}


def agent_actions() -> Schema:
    return {"type": "array", "description": "a group of agent events"}


def user_actions() -> Schema:
    return {"type": "array", "description": "a group of user events"}


def advance_ms() -> Schema:
    return {**MS, "description": "close the segment: advance virtual time"}


def base_time_delta() -> Schema:
    return {**MS, "description": "same as advanceMs"}


def screenshot() -> Schema:
    return {
        "type": "string",
        "pattern": "^[A-Za-z0-9_.-]+$",
        "description": "capture and compare a golden",
    }


def wait_for() -> Schema:
    return {
        "description": "hold the timeline until the screen shows a text or matches a regex (timeoutMs: 10000)",
        "anyOf": [
            STR,
            {
                "type": "object",
                "properties": {"text": STR, "regex": STR, "timeoutMs": MS},
                "additionalProperties": False,
            },
        ],
    }


def log() -> Schema:
    return STR


def status() -> Schema:
    from .agent_harbor import SESSION_STATUSES

    return {"enum": list(SESSION_STATUSES)}


def assert_() -> Schema:
    return obj(
        {
            "fs": obj({"exists": STRS, "notExists": STRS}),
            "text": obj({"contains": STRS}),
            "json": obj({"file": obj({"path": STR, "pointer": STR, "equals": {}})}),
            "git": obj({"commit": obj({"messageContains": STRS})}),
        },
        description="checks on the workspace and the terminal screen",
    )


def assert_git() -> Schema:
    return obj(
        {
            "branch": STR,
            "exists": {"type": "boolean"},
            "commitsAheadOf": STR,
            "commitCount": {"type": "integer"},
            "headMessageContains": STR,
            "remoteExists": STR,
        }
    )


def complete() -> Schema:
    return {"type": "boolean"}


def merge() -> Schema:
    return {"type": "boolean"}


def apply_patch() -> Schema:
    return obj({"path": STR, "commit": {"type": "boolean"}, "message": STR}, ("path",))


def tool_call(name: str) -> Callable[[], Schema]:
    """A tool event's fragment (``runCmd``, ``writeFile``...): its arguments, and what a tool event also takes."""

    def fragment() -> Schema:
        from .agent_harbor import TOOL_STATUSES

        props: dict[str, Schema] = {f: {} for f in EVENT_ARGUMENTS[name]}
        props.update({"result": {}, "status": {"enum": list(TOOL_STATUSES)}, "progress": {"type": "array"}})
        return obj(props, description=f"tool call `{name}`")

    return fragment


def acp(name: str) -> Callable[[], Schema]:
    """An ACP event's fragment."""
    return lambda: {"type": "object", "description": f"ACP `{name}`"}
