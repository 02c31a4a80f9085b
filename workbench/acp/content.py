"""Scenario content in ACP shapes: content blocks, tool kinds, titles and locations.

Pure functions from the canonical model to ``acp.schema`` models, so the agent
and the client agree on how a scenario step looks on the wire.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, cast

from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ToolCallLocation,
    ToolKind,
    UserMessageChunk,
)
from pydantic import ValidationError

from workbench.agent.tools import canonical_name
from workbench.scenario import model as m

ChunkKind = type[AgentMessageChunk] | type[AgentThoughtChunk] | type[UserMessageChunk]
_NAMES = {AgentMessageChunk: "agent_message_chunk", AgentThoughtChunk: "agent_thought_chunk",
          UserMessageChunk: "user_message_chunk"}  # fmt: skip
_WIRE_TYPES = frozenset({"text", "image", "audio", "resource", "resource_link"})

KINDS = {
    "runCmd": "execute", "bashOutput": "execute", "killShell": "execute", "readFile": "read",
    "writeFile": "edit", "appendFile": "edit", "editFile": "edit", "sed": "edit", "notebookEdit": "edit",
    "grep": "search", "find": "search", "listDir": "search", "webFetch": "fetch", "webSearch": "fetch",
    "task": "think", "todoWrite": "think", "exitPlanMode": "switch_mode",
}  # fmt: skip
PATH_ARGS = ("path", "file_path", "notebook_path")


def block_dicts(content: m.Content) -> list[dict[str, Any]]:
    """Wire dicts of a scenario's content: text stays text; rich blocks the wire lacks become text."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    out: list[dict[str, Any]] = []
    for block in content:
        data = {k: v for k, v in block.data.items() if k != "path" or block.type == "diff"}
        if block.type in _WIRE_TYPES and (block.type not in ("image", "audio") or "data" in data):
            out.append({**data, "type": block.type})
        else:
            out.append({"type": "text", "text": block.text})
    return out


def chunks(kind: ChunkKind, content: m.Content) -> list[Any]:
    """``session/update`` payloads for one piece of text or content."""
    result = []
    for block in block_dicts(content):
        try:
            result.append(kind.model_validate({"sessionUpdate": _NAMES[kind], "content": block}))
        except ValidationError:
            text = block.get("text") or json.dumps(block)
            result.append(
                kind.model_validate(
                    {"sessionUpdate": _NAMES[kind], "content": {"type": "text", "text": text}}
                )
            )
    return result


def tool_kind(name: str) -> ToolKind:
    return cast(ToolKind, KINDS.get(canonical_name(name), "other"))


def tool_title(name: str, args: Mapping[str, Any]) -> str:
    """What a person reads in the client: the tool and its main argument."""
    for key in ("cmd", "command", *PATH_ARGS, "pattern", "query", "url", "description"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return f"{name} {value.splitlines()[0][:120]}"
    return name


def absolute(cwd: str, path: str) -> str:
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(cwd, path))


def tool_locations(cwd: str, args: Mapping[str, Any]) -> list[ToolCallLocation]:
    out = []
    for key in PATH_ARGS:
        value = args.get(key)
        if isinstance(value, str) and value:
            out.append(ToolCallLocation(path=absolute(cwd, value)))
    return out


def text_of(result: Any) -> str:
    if result is None:
        return ""
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
