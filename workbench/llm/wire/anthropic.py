"""Anthropic Messages: `POST /v1/messages`, JSON and SSE, as the real API sends them.

Stream order: `message_start`, then per block `content_block_start`, deltas
(`thinking_delta` + `signature_delta`, `text_delta`, `input_json_delta`),
`content_block_stop`; one `ping` right after the first block starts; `message_delta`
with `stop_reason` and `usage` at the top level (not inside `delta`, where the
original mock put it); `message_stop`. Thinking blocks carry a signature, tool
ids start with `toolu_`, and the stop reason is `tool_use` when the message
calls tools and `max_tokens` when it was cut.

Requests may hold `role: "system"` entries inside `messages` (Claude Code sends
one) and `system` as a string or a list of blocks; unknown fields are ignored.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from aiohttp import web

from workbench.scenario import model as m

from ..conversation import ChatRequest, Message, Style, ToolDef, ToolResult
from ..ids import IdMaker
from ..reply import ApiError, Reply, TextBlock, ThinkingBlock, ToolCallBlock, deltas, estimate_tokens, pieces
from ..sse import SseWriter, open_stream
from .common import (
    Output,
    Wire,
    WireError,
    content_texts,
    expect_object,
    item_object,
    opt_bool,
    opt_list,
    opt_map,
    opt_number,
    positive,
    prefixed,
    required,
    schema_of,
    status_type,
    tool_def,
    type_tags,
)
from .heard import RecordedError, ReplyReader

ROLES = ("user", "assistant", "system")
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
               403: "permission_error", 404: "not_found_error", 413: "request_too_large",
               429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}  # fmt: skip
PREFIXES = ("/v1", "")


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p["text"] for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str)
        )
    return ""


def _message(raw: Any, where: str) -> Message:
    msg = item_object(raw, where)
    role = msg.get("role")
    if role not in ROLES:
        raise WireError(f"{where}.role: Input should be 'user', 'assistant' or 'system'", f"{where}.role")
    content = msg.get("content")
    if isinstance(content, str):
        return Message(str(role), (content,))
    if not isinstance(content, list):
        raise WireError(f"{where}.content: Input should be a valid string or list", f"{where}.content")
    texts: list[str] = []
    results: list[ToolResult] = []
    calls: list[str] = []
    for i, block in enumerate(content):
        b = item_object(block, f"{where}.content.{i}")
        kind = b.get("type")
        _check_block_type(kind, f"{where}.content.{i}")
        if kind == "text" and isinstance(b.get("text"), str):
            texts.append(b["text"])
        elif kind == "tool_result":
            is_error = b.get("is_error")
            results.append(
                ToolResult(
                    str(b.get("tool_use_id", "")),
                    _result_text(b.get("content")),
                    is_error if isinstance(is_error, bool) else False,
                )
            )
        elif kind in ("tool_use", "server_tool_use") and isinstance(b.get("id"), str):
            calls.append(b["id"])
    return Message(str(role), tuple(texts), tuple(results), tuple(calls))


@functools.cache
def block_types() -> frozenset[str]:
    """The content block types the Messages API takes, read from the Anthropic SDK (stable and beta)."""
    import anthropic.types
    import anthropic.types.beta

    return type_tags(anthropic.types.ContentBlockParam, anthropic.types.beta.BetaContentBlockParam,
                     anthropic.types.ContentBlock, anthropic.types.beta.BetaContentBlock)  # fmt: skip


def _check_block_type(kind: Any, where: str) -> None:
    if not isinstance(kind, str):
        raise WireError(f"{where}: Unable to extract tag using discriminator 'type'", f"{where}.type")
    if kind not in block_types():
        expected = ", ".join(f"'{t}'" for t in sorted(block_types()))
        raise WireError(f"{where}.type: Input tag '{kind}' found using 'type' does not match any of the "
                        f"expected tags: {expected}", f"{where}.type")  # fmt: skip


def _in_range(body: Mapping[str, Any], key: str, low: float, high: float) -> None:
    """A sampling setting within the API's bounds, checked as its pydantic validation words it."""
    value = opt_number(body, key, f"{key}: Input should be a valid number")
    if value is not None and value < low:
        raise WireError(f"{key}: Input should be greater than or equal to {low:g}", key)
    if value is not None and value > high:
        raise WireError(f"{key}: Input should be less than or equal to {high:g}", key)


def _system(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(content_texts(value, "system"))
    raise WireError("system: Input should be a valid string or list", "system")


def parse_body(body: Any, style: Style = "anthropic") -> ChatRequest:
    b = expect_object(body)
    model = required(b, "model")
    if not isinstance(model, str):
        raise WireError("model: Input should be a valid string", "model")
    if not model:
        raise WireError("model: String should have at least 1 character", "model")
    _in_range(b, "temperature", 0, 1)
    _in_range(b, "top_p", 0, 1)
    _in_range(b, "top_k", 0, float("inf"))
    raw_messages = required(b, "messages")
    if not isinstance(raw_messages, list):
        raise WireError("messages: Input should be a valid list", "messages")
    if not raw_messages:
        raise WireError("messages: at least one message is required", "messages")
    messages = tuple(_message(m, f"messages.{i}") for i, m in enumerate(raw_messages))
    tools: list[ToolDef] = []
    for i, t in enumerate(opt_list(b, "tools")):
        tool = item_object(t, f"tools.{i}")
        kind = tool.get("type")
        tools.append(
            tool_def(
                tool.get("name"),
                kind if isinstance(kind, str) else "custom",
                tool.get("input_schema"),
                f"tools.{i}",
                tool.get("description"),
            )
        )
    thinking = opt_map(b, "thinking")
    fmt = opt_map(b, "output_config").get("format") or b.get("output_format")
    schema, json_mode = schema_of(fmt)
    tool_choice = opt_map(b, "tool_choice")
    return ChatRequest(
        style=style,
        model=model,
        messages=messages,
        stream=opt_bool(b, "stream"),
        system=_system(b.get("system")),
        tools=tuple(tools),
        max_tokens=positive(b, "max_tokens", "max_tokens: Input should be greater than or equal to 1"),
        thinking=thinking.get("type") in ("enabled", "adaptive"),
        output_schema=schema,
        json_mode=json_mode,
        one_call=tool_choice.get("disable_parallel_tool_use") is True,
        no_calls=tool_choice.get("type") == "none",
        chosen_tool=tool_choice.get("name") if tool_choice.get("type") == "tool" else None,
        raw=b,
    )


def signature(text: str) -> str:
    """An opaque, stable signature for a thinking block (agents send it back verbatim)."""
    return "Ep" + hashlib.sha256(("workbench:" + text).encode("utf-8")).hexdigest() * 2


class AnthropicWire(Wire):
    style: Style = "anthropic"
    title = "Anthropic Messages"
    routes = (
        *prefixed(PREFIXES, "POST", "/messages", "turn"),
        *prefixed(PREFIXES, "POST", "/messages/count_tokens", "count"),
        *prefixed(PREFIXES, "GET", "/models", "models"),
        *prefixed(PREFIXES, "GET", "/models/{model}", "model"),
    )
    request_id_header = "request-id"

    def claims(self, path: str, headers: Mapping[str, str]) -> bool:
        return "anthropic-version" in headers or "x-api-key" in headers or "/messages" in path

    def credentials(self, environ: Mapping[str, str]) -> dict[str, str] | None:
        if environ.get("ANTHROPIC_API_KEY"):
            return {"x-api-key": environ["ANTHROPIC_API_KEY"]}
        if environ.get("ANTHROPIC_AUTH_TOKEN"):
            return {"authorization": f"Bearer {environ['ANTHROPIC_AUTH_TOKEN']}"}
        return None

    def parse(self, body: Any, params: Mapping[str, str] | None = None) -> ChatRequest:
        chat = parse_body(body)
        if chat.max_tokens is None:
            raise WireError("max_tokens: Field required", "max_tokens")
        return chat

    def count_tokens(self, body: Any, params: Mapping[str, str] | None = None) -> dict[str, Any]:
        return count_tokens(body)

    def call_id(self, chat: ChatRequest, name: str, ids: IdMaker, earlier: Sequence[str]) -> str:
        return ids.tool_use()

    def models_body(self, ids: Sequence[str]) -> dict[str, Any]:
        data = [self.model_body(i) for i in ids]
        return {"data": data, "has_more": False, "first_id": ids[0] if ids else None,
                "last_id": ids[-1] if ids else None}  # fmt: skip

    def model_body(self, model: str) -> dict[str, Any]:
        return {"type": "model", "id": model, "display_name": model, "created_at": "2025-01-01T00:00:00Z"}

    def error(self, status: int, message: str) -> ApiError:
        return ApiError(
            status, status_type(ERROR_TYPES, status, "invalid_request_error", "api_error"), message
        )

    def error_body(self, error: ApiError, request_id: str) -> dict[str, Any]:
        inner: dict[str, Any] = {"type": error.type, "message": error.message}
        if error.details is not None:
            inner["details"] = error.details
        return {"type": "error", "error": inner, "request_id": request_id}

    def failure_error(self, failure: m.Fault) -> ApiError | None:
        kind, p = failure.type, failure.params
        if kind == "auth_error":
            return ApiError(401, "authentication_error", str(p["message"]))
        if kind == "rate_limit":
            return ApiError(429, "rate_limit_error", "Rate limit exceeded", retry_after=int(p["retry_after"]))
        if kind == "out_of_credits":  # Anthropic documents 402 for billing errors
            return ApiError(402, "billing_error", "Your account has no credits remaining")
        return None

    def _usage(self, chat: ChatRequest, reply: Reply, output: int) -> dict[str, Any]:
        return {
            "input_tokens": reply.input_tokens(chat),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": output,
        }

    def body(self, chat: ChatRequest, reply: Reply, out: Output) -> dict[str, Any]:
        return self._message(chat, reply, out.ids.anthropic_message())

    def _message(self, chat: ChatRequest, reply: Reply, msg_id: str) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        for block in reply.blocks:
            if isinstance(block, ThinkingBlock):
                content.append(
                    {"type": "thinking", "thinking": block.text, "signature": signature(block.text)}
                )
            elif isinstance(block, TextBlock):
                content.append({"type": "text", "text": block.text})
            else:
                content.append(
                    {
                        "type": "tool_use",
                        "id": block.call_id,
                        "name": block.name,
                        "input": dict(block.arguments),
                    }
                )
        return {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": chat.model,
            "content": content,
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": self._usage(chat, reply, reply.output_tokens()),
        }

    async def send(
        self, request: web.Request, chat: ChatRequest, reply: Reply, out: Output
    ) -> web.StreamResponse:
        msg_id = out.ids.anthropic_message()
        response = await open_stream(request, out.headers)
        sse = SseWriter(response, out.pacer)
        self._start(sse, chat, reply, msg_id)
        await sse.pause(reply.delay_ms)
        for index, block in enumerate(reply.blocks):
            await self._block(sse, index, block, ping=index == 0)
            await sse.maybe_flush()
        if not reply.blocks:
            sse.event("ping", {"type": "ping"})
        sse.event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": reply.output_tokens()},
            },
        )
        sse.event("message_stop", {"type": "message_stop"})
        await sse.close()
        return response

    def _start(self, sse: SseWriter, chat: ChatRequest, reply: Reply, msg_id: str) -> None:
        message: dict[str, Any] = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": chat.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": self._usage(chat, reply, 1),
        }
        sse.event("message_start", {"type": "message_start", "message": message})

    async def _block(
        self, sse: SseWriter, index: int, block: ThinkingBlock | TextBlock | ToolCallBlock, *, ping: bool
    ) -> None:
        """One content block; the stream's single `ping` follows the first block's start."""

        def start(content_block: dict[str, Any]) -> None:
            sse.event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": content_block},
            )
            if ping:
                sse.event("ping", {"type": "ping"})

        def delta(d: dict[str, Any]) -> None:
            sse.event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})

        if isinstance(block, ToolCallBlock):
            await sse.pause(block.delay_ms)
            start({"type": "tool_use", "id": block.call_id, "name": block.name, "input": {}})
            delta({"type": "input_json_delta", "partial_json": ""})
            for piece in pieces(block.arguments_json):
                delta({"type": "input_json_delta", "partial_json": piece})
        else:
            thinking = isinstance(block, ThinkingBlock)
            await sse.pause(block.chunks[0].delay_ms if block.chunks else 0)
            start(
                {"type": "thinking", "thinking": "", "signature": ""}
                if thinking
                else {"type": "text", "text": ""}
            )
            for n, chunk in enumerate(block.chunks):
                if n:
                    await sse.pause(chunk.delay_ms)
                for text in deltas(chunk.text):
                    delta(
                        {"type": "thinking_delta", "thinking": text}
                        if thinking
                        else {"type": "text_delta", "text": text}
                    )
                    await sse.maybe_flush()
            if thinking:
                delta({"type": "signature_delta", "signature": signature(block.text)})
        sse.event("content_block_stop", {"type": "content_block_stop", "index": index})

    async def send_partial(self, request: web.Request, chat: ChatRequest, text: str, out: Output) -> None:
        response = await open_stream(request, out.headers)
        sse = SseWriter(response, out.pacer)
        self._start(sse, chat, Reply(), out.ids.anthropic_message())
        self._open_text(sse, text)
        await sse.flush()

    def _open_text(self, sse: SseWriter, text: str) -> None:
        start = {"type": "text", "text": ""}
        sse.event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start})
        for piece in deltas(text):
            sse.event(
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}},
            )

    def malformed_frame(self, raw: str) -> str:
        return f"event: message_start\ndata: {raw}\n\n"

    # ------------------------------------------------------------------ replies as recorded

    def read_event(self, into: ReplyReader, at: float, name: str, event: Mapping[str, Any]) -> None:
        kind = event.get("type", name)
        index = event.get("index")
        if kind == "content_block_start":
            block = event.get("content_block") or {}
            if block.get("type") in ("tool_use", "server_tool_use"):
                piece = into.tool(index, at, str(block.get("id", "")), str(block.get("name", "")))
                initial = block.get("input")
                if isinstance(initial, Mapping) and initial:
                    piece.arguments = json.dumps(initial)
            elif block.get("type") == "text":
                into.add_text("text", at, str(block.get("text") or ""), index)
            elif block.get("type") == "thinking":
                into.add_text("think", at, str(block.get("thinking") or ""), index)
        elif kind == "content_block_delta":
            delta = event.get("delta") or {}
            if delta.get("type") == "text_delta":
                into.add_text("text", at, str(delta.get("text", "")), index)
            elif delta.get("type") == "thinking_delta":
                into.add_text("think", at, str(delta.get("thinking", "")), index)
            elif delta.get("type") == "input_json_delta":
                into.tool(index, at).arguments += str(delta.get("partial_json", ""))
        elif kind == "error":
            error = event.get("error") or {}
            status = 529 if error.get("type") == "overloaded_error" else 500
            into.fail(
                RecordedError(status, str(error.get("type", "api_error")), str(error.get("message", "")))
            )

    def read_body(self, into: ReplyReader, at: float, body: Mapping[str, Any]) -> None:
        for n, block in enumerate(body.get("content") or ()):
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "text":
                into.add_text("text", at, str(block.get("text", "")), n)
            elif block.get("type") == "thinking":
                into.add_text("think", at, str(block.get("thinking", "")), n)
            elif block.get("type") in ("tool_use", "server_tool_use"):
                piece = into.tool(n, at, str(block.get("id", "")), str(block.get("name", "")))
                piece.arguments = json.dumps(block.get("input") or {})


def count_tokens(body: Any) -> dict[str, int]:
    """`POST /v1/messages/count_tokens`: the same estimate the replies report."""
    return {"input_tokens": estimate_tokens(parse_body(body).context_chars())}
