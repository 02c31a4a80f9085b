"""JSON Schema (draft-07) of the YAML scenario format, for editors.

An editor's YAML language server uses it for completion and hover text:
``# yaml-language-server: $schema=<path to the output of workbench schema>``.
The schema is permissive where the loader is (unknown keys are allowed, as Agent
Harbor is forward compatible) and precise about event names and field types,
so completion offers every event and field with a description.
"""

from __future__ import annotations

from . import agent_harbor  # noqa: F401  (its rows of the event table)
from .event_schemas import MS, STR, Schema, obj
from .events import EVENT_KEYS, KEY_GROUPS
from .on_screen import on_screen_schema


def _events() -> dict[str, Schema]:
    """Every timeline key's fragment, from the event table: the built-in events, then the tool calls, the
    ACP events and those an extension added."""
    rows = sorted(EVENT_KEYS.values(), key=lambda row: KEY_GROUPS.index(row.group))
    return {row.key: dict(row.schema()) for row in rows}


def _typed_step() -> Schema:
    return obj(
        {"type": {"enum": ["advanceMs", "baseTimeDelta", "screenshot", "snapshot", "userInputs", "key", "assertVm", "sse", "waitFor"]},
         "text": STR, "regex": STR, "timeoutMs": MS, "ms": MS, "name": STR, "inputs": {"type": "array"}, "key": STR, "event": {"type": "object"}},
        ("type",), "a type-tagged step",
    )  # fmt: skip


def scenario_schema() -> Schema:
    events = _events()
    item = {"oneOf": [_typed_step()] + [obj({name: schema}, (name,)) for name, schema in events.items()]}
    profile = obj({"name": STR, "width": {"type": "integer", "minimum": 2}, "height": {"type": "integer", "minimum": 2},
                    "theme": STR, "rendering": {"type": "object"}})  # fmt: skip
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://scenario-workbench.dev/schema/scenario.json",
        "title": "Scenario Workbench scenario (Agent Harbor family)",
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "the scenario's name (goldens live under it)"},
            "tags": {"type": "array", "items": STR},
            "description": STR,
            "initialPrompt": STR,
            "command": {
                "type": "array",
                "items": STR,
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
                "items": STR,
                "description": "regexes for volatile screen text; each match becomes `*` in every screenshot",
            },
            "onScreen": on_screen_schema(),
            "terminalRef": {
                "type": "string",
                "description": "a profile file (*.json) or a name like default-100x30",
            },
            "terminal": profile,
            "repo": obj(
                {
                    "init": {"type": "boolean"},
                    "commit": {
                        "type": "boolean",
                        "description": "with init: commit the seeded files (default)",
                    },
                    "branch": STR,
                    "dir": STR,
                    "files": {
                        "type": "array",
                        "items": obj(
                            {
                                "path": STR,
                                "contents": {"oneOf": [STR, obj({"base64": STR}, ("base64",))]},
                            },
                            ("path",),
                        ),
                    },
                }
            ),
            "ah": obj({"cmd": STR, "flags": {"type": "array", "items": STR}, "env": {"type": "object"}}),
            "server": obj(
                {
                    "mode": {"enum": ["none", "mock", "real"]},
                    "llmApiStyle": {"enum": ["openai", "anthropic"]},
                    "coalesceThinkingWithToolUse": {"type": "boolean"},
                }
            ),
            "acp": obj(
                {
                    "capabilities": {"type": "object"},
                    "cwd": STR,
                    "mcpServers": {"type": "array"},
                    "unstable": {"type": "boolean"},
                    "authenticate": STR,
                }
            ),
            "rules": {
                "type": "array",
                "items": obj(
                    {"when": STR, "default": {"type": "boolean"}, "config": {"type": ["object", "array"]}},
                    ("config",),
                ),
            },
            "timeline": {"type": "array", "items": item, "description": "the events, in order"},
            "steps": {"type": "array", "items": item, "description": "same as timeline"},
            "expect": obj(
                {
                    "exitCode": {"type": "integer"},
                    "artifacts": {
                        "type": "array",
                        "items": obj({"type": STR, "pattern": STR}, ("pattern",)),
                    },
                }
            ),
        },
        "definitions": {"event": item},
    }
