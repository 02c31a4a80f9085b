"""Claude Code's print-mode messages for one conversation, as version 2.1.12 writes them.

``system/init`` first (cwd, session, tools, model, permission mode, slash
commands, agents, ...), then for each model turn one ``assistant`` message per
content block (all with the turn's message id, as Claude Code streams them),
then a ``user`` message per tool result (with ``tool_use_result``), and last
the ``result`` (duration, turns, result text, cost, usage, ``modelUsage``,
``permission_denials``). An API failure is a synthetic assistant message with
an ``error`` class and an error result (``is_error``, ``api_error_status``).

With ``--include-partial-messages`` each turn is also told as Anthropic stream
events (``message_start``, ``content_block_*`` with text and JSON deltas,
``message_delta``, ``message_stop``) wrapped in ``stream_event`` messages, the
complete assistant message of a block following its ``content_block_stop``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from workbench.agent.claude import ids
from workbench.agent.claude.conversation import Conversation, ModelTurn

VERSION = "2.1.12"
# Claude Code 2.1.12's built-in tools, agents and slash commands, as its init message lists them.
TOOLS = ("Task", "TaskOutput", "Bash", "Glob", "Grep", "ExitPlanMode", "Read", "Edit", "Write", "NotebookEdit",
         "WebFetch", "TodoWrite", "WebSearch", "KillShell", "AskUserQuestion", "Skill", "EnterPlanMode", "MCPSearch")  # fmt: skip
AGENTS = ("Bash", "general-purpose", "statusline-setup", "Explore", "Plan", "claude-code-guide")
SLASH_COMMANDS = (
    "compact",
    "context",
    "cost",
    "init",
    "pr-comments",
    "release-notes",
    "review",
    "security-review",
)
MODEL_ALIASES = {"haiku": "claude-haiku-4-5-20251001", "sonnet": "claude-sonnet-4-5-20250929",
                 "opus": "claude-opus-4-5-20251101", "claude-3-5-haiku-latest": "claude-3-5-haiku-20241022",
                 "claude-3-5-sonnet-latest": "claude-3-5-sonnet-20241022"}  # fmt: skip
DEFAULT_MODEL = "claude-sonnet-4-5-20250929"
CONTEXT_WINDOW = 200_000
CHUNK = 20  # characters of text per streamed delta


@dataclass(eq=False)
class Call:
    """What the messages need besides the conversation (``model`` as requested; ``api_model`` resolved)."""

    session_id: str
    cwd: str
    model: str
    permission_mode: str
    disallowed: tuple[str, ...]
    api_key_source: str
    version: str = VERSION
    tools: tuple[str, ...] | None = None

    @property
    def api_model(self) -> str:
        return MODEL_ALIASES.get(self.model, self.model)


def _id() -> str:
    return ids.uuid4()


def init(call: Call) -> dict[str, Any]:
    tools = [t for t in TOOLS if t not in call.disallowed and (call.tools is None or t in call.tools)]
    return {"type": "system", "subtype": "init", "cwd": call.cwd, "session_id": call.session_id, "tools": tools,
            "mcp_servers": [], "model": call.model, "permissionMode": call.permission_mode,
            "slash_commands": list(SLASH_COMMANDS), "apiKeySource": call.api_key_source,
            "claude_code_version": call.version, "output_style": "default", "agents": list(AGENTS), "skills": [],
            "plugins": [], "uuid": _id()}  # fmt: skip


def blocks(turn: ModelTurn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if turn.text or not turn.tool_uses:
        out.append({"type": "text", "text": turn.text})
    for use in turn.tool_uses:
        out.append({"type": "tool_use", "id": use.id, "name": use.name, "input": dict(use.input)})
    return out


def usage(turn: ModelTurn) -> dict[str, Any]:
    return {"input_tokens": turn.input_tokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
            "output_tokens": turn.output_tokens}  # fmt: skip


def message(call: Call, turn: ModelTurn, block: dict[str, Any]) -> dict[str, Any]:
    return {"id": turn.message_id, "type": "message", "role": "assistant", "model": call.api_model,
            "content": [block], "stop_reason": None, "stop_sequence": None, "usage": usage(turn),
            "context_management": None}  # fmt: skip


def messages(call: Call, conv: Conversation, partial: bool) -> Iterator[dict[str, Any]]:
    """Every message after ``init``, in order, ending with the result."""
    for turn in conv.turns:
        content = blocks(turn)
        if partial:
            yield from _stream(call, turn, content)
        else:
            for block in content:
                yield _assistant(call, message(call, turn, block))
        for use in turn.tool_uses:
            if use.run is None:
                continue
            result_block = {"tool_use_id": use.id, "type": "tool_result", "content": use.run.content,
                            "is_error": use.run.is_error}  # fmt: skip
            yield {"type": "user", "message": {"role": "user", "content": [result_block]},
                   "parent_tool_use_id": None, "session_id": call.session_id, "uuid": _id(),
                   "tool_use_result": use.run.tool_use_result if use.run.tool_use_result is not None
                   else use.run.content}  # fmt: skip
    if conv.failure is not None:
        if conv.failure.partial:
            partial_turn = ModelTurn("msg_partial", "", conv.failure.partial, [], 0, 0)
            yield _assistant(
                call, message(call, partial_turn, {"type": "text", "text": conv.failure.partial})
            )
        yield error_message(call, conv)


def error_message(call: Call, conv: Conversation) -> dict[str, Any]:
    assert conv.failure is not None
    msg = {"id": _id(), "container": None, "model": "<synthetic>", "role": "assistant", "stop_reason": "stop_sequence",
           "stop_sequence": "", "type": "message", "usage": _zero_usage(),
           "content": [{"type": "text", "text": conv.failure.text}], "context_management": None}  # fmt: skip
    out = _assistant(call, msg)
    out["error"] = conv.failure.error_class
    return out


def _assistant(call: Call, msg: dict[str, Any]) -> dict[str, Any]:
    return {"type": "assistant", "message": msg, "parent_tool_use_id": None, "session_id": call.session_id,
            "uuid": _id()}  # fmt: skip


def _stream(call: Call, turn: ModelTurn, content: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    def event(e: dict[str, Any]) -> dict[str, Any]:
        return {"type": "stream_event", "event": e, "session_id": call.session_id, "parent_tool_use_id": None,
                "uuid": _id()}  # fmt: skip

    start: dict[str, Any] = {"id": turn.message_id, "type": "message", "role": "assistant", "model": call.api_model, "content": [],
             "stop_reason": None, "stop_sequence": None, "usage": usage(turn)}  # fmt: skip
    yield event({"type": "message_start", "message": start})
    for index, block in enumerate(content):
        if block["type"] == "text":
            yield event(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            )
            text = block["text"]
            for at in range(0, len(text), CHUNK):
                delta = {"type": "text_delta", "text": text[at : at + CHUNK]}
                yield event({"type": "content_block_delta", "index": index, "delta": delta})
        else:
            empty = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield event({"type": "content_block_start", "index": index, "content_block": empty})
            raw = json.dumps(block["input"], separators=(",", ":"))
            for at in range(0, len(raw), CHUNK):
                delta = {"type": "input_json_delta", "partial_json": raw[at : at + CHUNK]}
                yield event({"type": "content_block_delta", "index": index, "delta": delta})
        yield _assistant(call, message(call, turn, block))
        yield event({"type": "content_block_stop", "index": index})
    stop = "tool_use" if turn.tool_uses else "end_turn"
    yield event({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                 "usage": {"output_tokens": turn.output_tokens}})  # fmt: skip
    yield event({"type": "message_stop"})


def _zero_usage() -> dict[str, Any]:
    return {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": None,
            "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}}  # fmt: skip


def result(call: Call, conv: Conversation, duration_ms: int) -> dict[str, Any]:
    """The last message (and the whole output of ``--output-format json``)."""
    tin = sum(t.input_tokens for t in conv.turns)
    tout = sum(t.output_tokens for t in conv.turns)
    cost = round(sum(t.cost for t in conv.turns), 6)
    total = {"input_tokens": tin, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
             "output_tokens": tout, "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
             "service_tier": "standard", "cache_creation": {"ephemeral_1h_input_tokens": 0,
                                                            "ephemeral_5m_input_tokens": 0}}  # fmt: skip
    model_usage = {}
    if conv.turns:
        model_usage[call.api_model] = {"inputTokens": tin, "outputTokens": tout, "cacheReadInputTokens": 0,
                                       "cacheCreationInputTokens": 0, "webSearchRequests": 0, "costUSD": cost,
                                       "contextWindow": CONTEXT_WINDOW}  # fmt: skip
    failure = conv.failure
    # out of turns: Claude Code's shape has no result text and an error subtype
    max_turns = conv.max_turns_reached and failure is None
    out: dict[str, Any] = {"type": "result", "subtype": "error_max_turns" if max_turns else "success",
                           "is_error": max_turns or failure is not None}  # fmt: skip
    if failure is not None:
        out["api_error_status"] = failure.status
    out.update({"duration_ms": duration_ms, "duration_api_ms": conv.api_ms,
                "num_turns": len(conv.turns) if max_turns else max(1, len(conv.turns))})  # fmt: skip
    if not max_turns:
        out["result"] = failure.text if failure is not None else conv.result_text
    out.update({"session_id": call.session_id, "total_cost_usd": cost, "usage": total, "modelUsage": model_usage,
                "permission_denials": conv.denials, "uuid": _id()})  # fmt: skip
    return out
