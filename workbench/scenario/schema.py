"""JSON Schema (draft-07) of the YAML scenario format, for editors.

An editor's YAML language server uses it for completion and hover text:
``# yaml-language-server: $schema=<path to the output of workbench schema>``.
The schema is permissive where the loader is (unknown keys are allowed, as Agent
Harbor is forward compatible) and precise about event names and field types,
so completion offers every event and field with a description.
"""

from __future__ import annotations

from typing import Any

from .agent_harbor import ACP_EVENTS, CONTENT_TYPES, SESSION_STATUSES, TOOL_STATUSES
from .claudeless import FAILURE_FIELDS
from .events import EVENT_SPECS
from .on_screen import on_screen_schema
from .vocabulary import EVENT_ARGUMENTS

Schema = dict[str, Any]

_MS: Schema = {"type": "integer", "minimum": 0, "description": "milliseconds"}
_STR: Schema = {"type": "string"}
_STRS: Schema = {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}


def _obj(props: dict[str, Schema], required: tuple[str, ...] = (), description: str = "") -> Schema:
    out: Schema = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    if description:
        out["description"] = description
    return out


def _content() -> Schema:
    block = _obj(
        {"type": {"enum": list(CONTENT_TYPES)}, "text": _STR, "path": _STR, "data": _STR, "mimeType": _STR,
         "uri": _STR, "oldText": _STR, "newText": _STR},
        ("type",), "an ACP content block",
    )  # fmt: skip
    return {"oneOf": [{"type": "string"}, block, {"type": "array", "items": block}]}


def _timed(text_schema: Schema, what: str) -> Schema:
    tuple_form = {
        "type": "array", "minItems": 2, "maxItems": 2, "items": [_MS, text_schema],
        "description": f"[ms, {what}]: shown ms after the previous item",
    }  # fmt: skip
    object_form = _obj(
        {"relativeTime": {**_MS, "description": "offset from the start of the element"}, "content": text_schema},
        ("content",), f"{{relativeTime, content}}: the {what} at an offset from the element's start",
    )  # fmt: skip
    return {"type": "array", "items": {"oneOf": [tuple_form, object_form]}}


def _tool_use() -> Schema:
    return _obj(
        {
            "toolName": {"type": "string", "description": "runCmd, readFile, writeFile, editFile, grep, ..."},
            "args": {"type": "object"},
            "progress": {"type": "array", "description": "[ms, message] lines, each ms after the previous"},
            "result": {"description": "the expected result, compared with the real one"},
            "status": {"enum": list(TOOL_STATUSES)},
            "toolCallId": _STR,
            "toolExecution": _obj(
                {
                    "startTimeMs": _MS,
                    "events": {
                        "type": "array",
                        "items": _obj(
                            {
                                "type": {"enum": ["stdout", "stderr", "progress", "completion"]},
                                "timeMs": _MS,
                                "content": _STR,
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


def _events() -> dict[str, Schema]:
    user_input = {
        "oneOf": [
            {"type": "array", "minItems": 2, "maxItems": 2, "items": [_MS, _content()],
             "description": "[ms, input]: ms after the start of the segment"},
            _obj({"relativeTime": {**_MS, "description": "absolute from the scenario start"}, "input": _content(),
                  "target": {"enum": ["tui", "webui", "cli"]}, "expectedResponse": {"type": "object"}}, ("input",)),
        ]
    }  # fmt: skip
    events: dict[str, Schema] = {
        "llmResponse": {
            "type": "array",
            "description": "one model turn: thinking, assistant text, or an error",
            "items": _obj(
                {
                    "think": _timed(_STR, "thought"),
                    "assistant": _timed(_content(), "text"),
                    "error": _obj(
                        {
                            "errorType": _STR,
                            "message": _STR,
                            "statusCode": {"type": "integer"},
                            "details": {},
                            "retryAfterSeconds": {"type": "integer"},
                        },
                        ("errorType", "message"),
                    ),
                    "fault": _obj(
                        {
                            "type": {"enum": list(FAILURE_FIELDS)},
                            "partial_text": _STR,
                            "raw": _STR,
                            "message": _STR,
                            "after_ms": {"type": "integer"},
                            "retry_after": {"type": "integer"},
                        },
                        ("type",),
                    ),
                }
            ),
        },
        "think": {**_timed(_STR, "thought"), "description": "legacy: a one-element llmResponse"},
        "assistant": {**_timed(_content(), "text"), "description": "legacy: a one-element llmResponse"},
        "agentToolUse": _tool_use(),
        "agentEdits": _obj(
            {"path": _STR, "linesAdded": _MS, "linesRemoved": _MS},
            ("path",),
            "the agent edits a file; line counts are checked",
        ),
        "userInputs": {
            "type": "array",
            "items": user_input,
            "description": "what the user types (`<Enter>` names a key)",
        },
        "userEdits": _obj({"patch": _STR}, ("patch",), "the user applies a patch (relative to the scenario)"),
        "userCommand": _obj(
            {
                "cmd": _STR,
                "cwd": _STR,
                "program": _STR,
                "args": {"type": "array"},
                "env": {"type": "object"},
                "expect": {"type": "object"},
            },
            description="the user runs a command in the workspace",
        ),
        "userCancelSession": {"type": "boolean"},
        "agentActions": {"type": "array", "description": "a group of agent events"},
        "userActions": {"type": "array", "description": "a group of user events"},
        "advanceMs": {**_MS, "description": "close the segment: advance virtual time"},
        "baseTimeDelta": {**_MS, "description": "same as advanceMs"},
        "screenshot": {
            "type": "string",
            "pattern": "^[A-Za-z0-9_.-]+$",
            "description": "capture and compare a golden",
        },
        "waitFor": {
            "description": "hold the timeline until the screen shows a text or matches a regex (timeoutMs: 10000)",
            "anyOf": [
                _STR,
                {
                    "type": "object",
                    "properties": {"text": _STR, "regex": _STR, "timeoutMs": _MS},
                    "additionalProperties": False,
                },
            ],
        },
        "log": _STR,
        "status": {"enum": list(SESSION_STATUSES)},
        "assert": _obj(
            {
                "fs": _obj({"exists": _STRS, "notExists": _STRS}),
                "text": _obj({"contains": _STRS}),
                "json": _obj({"file": _obj({"path": _STR, "pointer": _STR, "equals": {}})}),
                "git": _obj({"commit": _obj({"messageContains": _STRS})}),
            },
            description="checks on the workspace and the terminal screen",
        ),
        "assertGit": _obj(
            {
                "branch": _STR,
                "exists": {"type": "boolean"},
                "commitsAheadOf": _STR,
                "commitCount": {"type": "integer"},
                "headMessageContains": _STR,
                "remoteExists": _STR,
            }
        ),
        "complete": {"type": "boolean"},
        "merge": {"type": "boolean"},
        "applyPatch": _obj({"path": _STR, "commit": {"type": "boolean"}, "message": _STR}, ("path",)),
    }
    for name, fields in EVENT_ARGUMENTS.items():
        props: dict[str, Schema] = {f: {} for f in fields}
        props.update({"result": {}, "status": {"enum": list(TOOL_STATUSES)}, "progress": {"type": "array"}})
        events[name] = _obj(props, description=f"tool call `{name}`")
    for name in ACP_EVENTS:
        events[name] = {"type": "object", "description": f"ACP `{name}`"}
    for spec in EVENT_SPECS.values():  # events an extension added, with their own parser
        if spec.parse is not None:
            events[spec.key] = dict(spec.schema) or {"description": f"`{spec.key}`"}
    return events


def _typed_step() -> Schema:
    return _obj(
        {"type": {"enum": ["advanceMs", "baseTimeDelta", "screenshot", "snapshot", "userInputs", "key", "assertVm", "sse", "waitFor"]},
         "text": _STR, "regex": _STR, "timeoutMs": _MS, "ms": _MS, "name": _STR, "inputs": {"type": "array"}, "key": _STR, "event": {"type": "object"}},
        ("type",), "a type-tagged step",
    )  # fmt: skip


def scenario_schema() -> Schema:
    events = _events()
    item = {"oneOf": [_typed_step()] + [_obj({name: schema}, (name,)) for name, schema in events.items()]}
    profile = _obj({"name": _STR, "width": {"type": "integer", "minimum": 2}, "height": {"type": "integer", "minimum": 2},
                    "theme": _STR, "rendering": {"type": "object"}})  # fmt: skip
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://scenario-workbench.dev/schema/scenario.json",
        "title": "Scenario Workbench scenario (Agent Harbor family)",
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "the scenario's name (goldens live under it)"},
            "tags": {"type": "array", "items": _STR},
            "description": _STR,
            "initialPrompt": _STR,
            "command": {
                "type": "array",
                "items": _STR,
                "minItems": 1,
                "description": "argv of the program under test (default: the built-in mock agent)",
            },
            "mode": {
                "type": "string",
                "description": "the mode the scenario is written for (mock-agent, program, real-agent, simulation...),"
                " used unless `run --mode` names another",
            },
            "masks": {
                "type": "array",
                "items": _STR,
                "description": "regexes for volatile screen text; each match becomes `*` in every screenshot",
            },
            "onScreen": on_screen_schema(),
            "terminalRef": {
                "type": "string",
                "description": "a profile file (*.json) or a name like default-100x30",
            },
            "terminal": profile,
            "repo": _obj(
                {
                    "init": {"type": "boolean"},
                    "commit": {
                        "type": "boolean",
                        "description": "with init: commit the seeded files (default)",
                    },
                    "branch": _STR,
                    "dir": _STR,
                    "files": {
                        "type": "array",
                        "items": _obj(
                            {
                                "path": _STR,
                                "contents": {"oneOf": [_STR, _obj({"base64": _STR}, ("base64",))]},
                            },
                            ("path",),
                        ),
                    },
                }
            ),
            "ah": _obj({"cmd": _STR, "flags": {"type": "array", "items": _STR}, "env": {"type": "object"}}),
            "server": _obj(
                {
                    "mode": {"enum": ["none", "mock", "real"]},
                    "llmApiStyle": {"enum": ["openai", "anthropic"]},
                    "coalesceThinkingWithToolUse": {"type": "boolean"},
                }
            ),
            "acp": _obj(
                {
                    "capabilities": {"type": "object"},
                    "cwd": _STR,
                    "mcpServers": {"type": "array"},
                    "unstable": {"type": "boolean"},
                    "authenticate": _STR,
                }
            ),
            "rules": {
                "type": "array",
                "items": _obj(
                    {"when": _STR, "default": {"type": "boolean"}, "config": {"type": ["object", "array"]}},
                    ("config",),
                ),
            },
            "timeline": {"type": "array", "items": item, "description": "the events, in order"},
            "steps": {"type": "array", "items": item, "description": "same as timeline"},
            "expect": _obj(
                {
                    "exitCode": {"type": "integer"},
                    "artifacts": {
                        "type": "array",
                        "items": _obj({"type": _STR, "pattern": _STR}, ("pattern",)),
                    },
                }
            ),
        },
        "definitions": {"event": item},
    }
