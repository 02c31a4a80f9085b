"""OpenAI Chat Completions: `POST /v1/chat/completions`, JSON and SSE.

The stream is `data:` lines only (no `event:` names), every chunk carrying the
same `chatcmpl-` id: the role first, content deltas, then each tool call as a
`tool_calls` delta with its id and name followed by argument deltas, a last
chunk with `finish_reason` (`stop`, `tool_calls` or `length`), a usage chunk
with empty `choices` when `stream_options.include_usage` is set, and
`data: [DONE]`. Thinking is never shown in this style.

Requests may carry `system` and `developer` messages anywhere, `content: null`
on assistant messages with tool calls, and results as `role: tool` messages.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from aiohttp import web

from workbench.scenario import model as m

from ..conversation import ChatRequest, Message, Style, ToolDef, ToolResult
from ..reply import ApiError, Reply, TextBlock, deltas, pieces, shape
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
    positive,
    prefixed,
    required,
    schema_of,
    status_type,
    tool_def,
    type_tags,
)
from .heard import ReplyReader

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
FINISH = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}
PREFIXES = ("/v1", "")
ERROR_CODES = {401: "invalid_api_key", 404: "not_found", 429: "rate_limit_exceeded"}


class OpenAiErrors(Wire):
    """What both OpenAI styles share: the error shape, the failures, `/v1/models`."""

    fallback = True  # a path nobody claims gets OpenAI's error shape, the lingua franca

    def credentials(self, environ: Mapping[str, str]) -> dict[str, str] | None:
        return (
            {"authorization": f"Bearer {environ['OPENAI_API_KEY']}"}
            if environ.get("OPENAI_API_KEY")
            else None
        )

    def error(self, status: int, message: str) -> ApiError:
        kind = status_type({}, status, "invalid_request_error", "server_error")
        return ApiError(status, kind, message, code=ERROR_CODES.get(status))

    def error_body(self, error: ApiError, request_id: str) -> dict[str, Any]:
        return openai_error_body(error, request_id)

    def failure_error(self, failure: m.Fault) -> ApiError | None:
        kind, p = failure.type, failure.params
        if kind == "auth_error":
            return ApiError(401, "invalid_request_error", str(p["message"]), code="invalid_api_key")
        if kind == "rate_limit":
            return ApiError(429, "requests", "Rate limit reached for requests",
                            retry_after=int(p["retry_after"]), code="rate_limit_exceeded")  # fmt: skip
        if kind == "out_of_credits":  # OpenAI reports exhausted credit as 429 insufficient_quota
            message = "You exceeded your current quota, please check your plan and billing details."
            return ApiError(429, "insufficient_quota", message, code="insufficient_quota")
        return None


def check_range(body: Mapping[str, Any], key: str, low: float, high: float, *, integer: bool = False) -> None:
    """A numeric setting within the API's bounds, refused in OpenAI's words (both OpenAI styles)."""
    kind = "integer" if integer else "decimal"
    value = body.get(key)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int if integer else int | float):
        raise WireError(f"Invalid type for '{key}': expected {'an integer' if integer else 'a decimal'}, but got "
                        f"{type(value).__name__} instead.", key)  # fmt: skip
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    if value < low:
        raise WireError(f"Invalid '{key}': {kind} below minimum value. Expected a value >= {low:g}, but got "
                        f"{shown} instead.", key)  # fmt: skip
    if value > high:
        raise WireError(f"Invalid '{key}': {kind} above maximum value. Expected a value <= {high:g}, but got "
                        f"{shown} instead.", key)  # fmt: skip


@functools.cache
def part_types() -> frozenset[str]:
    """The content part types Chat Completions takes, read from the OpenAI SDK."""
    import openai.types.chat as chat

    return type_tags(chat.ChatCompletionContentPartParam, chat.ChatCompletionContentPartRefusalParam)


def openai_error_body(error: ApiError, request_id: str) -> dict[str, Any]:
    """`{"error": {message, type, param, code}}`, shared by both OpenAI styles."""
    code = error.code
    if code is None and isinstance(error.details, Mapping) and isinstance(error.details.get("code"), str):
        code = error.details["code"]
    return {"error": {"message": error.message, "type": error.type, "param": None, "code": code}}


def _message(raw: Any, where: str) -> Message:
    msg = item_object(raw, where)
    role = msg.get("role")
    if role not in ROLES:
        raise WireError(f"Invalid value for '{where}.role'", f"{where}.role")
    content = msg.get("content")
    if isinstance(content, list):
        for i, part in enumerate(content):
            kind = part.get("type") if isinstance(part, Mapping) else None
            if isinstance(part, Mapping) and kind not in part_types():
                allowed = sorted(part_types())
                listed = ", ".join(f"'{t}'" for t in allowed[:-1]) + f", and '{allowed[-1]}'"
                raise WireError(f"Invalid value: '{kind}'. Supported values are: {listed}.",
                                f"{where}.content[{i}].type")  # fmt: skip
    texts = content_texts(content, f"{where}.content")
    if role in ("tool", "function"):
        call_id = msg.get("tool_call_id", msg.get("name", ""))
        return Message("tool", (), (ToolResult(str(call_id), "\n".join(texts)),))
    calls: list[str] = []
    for i, call in enumerate(msg.get("tool_calls") or []):
        c = item_object(call, f"{where}.tool_calls.{i}")
        if isinstance(c.get("id"), str):
            calls.append(c["id"])
    return Message(str(role), texts, (), tuple(calls))


class ChatWire(OpenAiErrors):
    style: Style = "openai-chat"
    title = "OpenAI Chat"
    routes = (
        *prefixed(PREFIXES, "POST", "/chat/completions", "turn"),
        *prefixed(PREFIXES, "GET", "/models", "models"),
        *prefixed(PREFIXES, "GET", "/models/{model}", "model"),
    )

    def claims(self, path: str, headers: Mapping[str, str]) -> bool:
        return path.rstrip("/").endswith("/chat/completions")

    def shape(self, reply: Reply, chat: ChatRequest) -> Reply:
        return shape(reply, show_thinking=False, coalesce=True)  # Chat Completions never shows thinking

    def parse(self, body: Any, params: Mapping[str, str] | None = None) -> ChatRequest:
        b = expect_object(body)
        model = required(b, "model")
        if not isinstance(model, str):
            raise WireError("Invalid type for 'model': expected a string", "model")
        if not model:
            raise WireError("you must provide a model parameter", "model")
        check_range(b, "temperature", 0, 2)
        check_range(b, "top_p", 0, 1)
        check_range(b, "n", 1, 128, integer=True)
        raw_messages = required(b, "messages")
        if not isinstance(raw_messages, list):
            raise WireError("Invalid type for 'messages': expected an array", "messages")
        if not raw_messages:
            raise WireError("Invalid 'messages': empty array. Expected an array with minimum length 1, "
                            "but got an empty array instead.", "messages")  # fmt: skip
        tools: list[ToolDef] = []
        for i, t in enumerate(opt_list(b, "tools")):
            tool = item_object(t, f"tools.{i}")
            fn = tool.get("function")
            if isinstance(fn, Mapping):
                tools.append(
                    tool_def(
                        fn.get("name"),
                        str(tool.get("type", "function")),
                        fn.get("parameters"),
                        f"tools.{i}.function",
                        fn.get("description"),
                    )
                )
            else:
                tools.append(
                    tool_def(
                        tool.get("name", tool.get("type")),
                        str(tool.get("type", "custom")),
                        None,
                        f"tools.{i}",
                    )
                )
        schema, json_mode = schema_of(b.get("response_format"))
        low = "Invalid '{}': integer below minimum value. Expected a value >= 1."
        max_tokens = positive(b, "max_completion_tokens", low.format("max_completion_tokens"))
        if max_tokens is None:
            max_tokens = positive(b, "max_tokens", low.format("max_tokens"))
        return ChatRequest(
            style=self.style,
            model=model,
            messages=tuple(_message(m, f"messages[{i}]") for i, m in enumerate(raw_messages)),
            stream=opt_bool(b, "stream"),
            tools=tuple(tools),
            max_tokens=max_tokens,
            include_usage=bool(opt_map(b, "stream_options").get("include_usage")),
            output_schema=schema,
            json_mode=json_mode,
            one_call=b.get("parallel_tool_calls") is False,
            no_calls=b.get("tool_choice") == "none",
            chosen_tool=_chosen(b.get("tool_choice")),
            raw=b,
        )

    def _usage(self, chat: ChatRequest, reply: Reply) -> dict[str, Any]:
        prompt, completion = reply.input_tokens(chat), reply.output_tokens()
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        }

    def body(self, chat: ChatRequest, reply: Reply, out: Output) -> dict[str, Any]:
        calls = [
            {"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
            for c in reply.tool_calls
        ]
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text if reply.text or not calls else None,
            "refusal": None,
            "annotations": [],
        }
        if calls:
            message["tool_calls"] = calls
        return {
            "id": out.ids.chat_completion(),
            "object": "chat.completion",
            "created": out.created,
            "model": chat.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": FINISH[reply.stop_reason]}
            ],
            "usage": self._usage(chat, reply),
            "system_fingerprint": None,
        }

    async def send(
        self, request: web.Request, chat: ChatRequest, reply: Reply, out: Output
    ) -> web.StreamResponse:
        response = await open_stream(request, out.headers)
        sse = SseWriter(response, out.pacer, named=False)
        chunk = self._chunker(chat, out)
        sse.event("", chunk({"role": "assistant", "content": ""}))
        await sse.pause(reply.delay_ms)
        for block in reply.blocks:
            if not isinstance(block, TextBlock):
                continue
            for c in block.chunks:
                await sse.pause(c.delay_ms)
                for piece in deltas(c.text):
                    sse.event("", chunk({"content": piece}))
                    await sse.maybe_flush()
        for i, call in enumerate(reply.tool_calls):
            await sse.pause(call.delay_ms)
            head = {
                "index": i,
                "id": call.call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            sse.event("", chunk({"tool_calls": [head]}))
            for piece in pieces(call.arguments_json):
                sse.event("", chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
            await sse.maybe_flush()
        sse.event("", chunk({}, FINISH[reply.stop_reason]))
        if chat.include_usage:
            last = chunk({})
            last["choices"] = []
            last["usage"] = self._usage(chat, reply)
            sse.event("", last)
        sse.event("", "[DONE]")
        await sse.close()
        return response

    def _chunker(self, chat: ChatRequest, out: Output) -> Callable[..., dict[str, Any]]:
        chunk_id = out.ids.chat_completion()

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            body: dict[str, Any] = {
                "id": chunk_id,
                "object": "chat.completion.chunk",
                "created": out.created,
                "model": chat.model,
                "system_fingerprint": None,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            }
            if chat.include_usage:
                body["usage"] = None
            return body

        return chunk

    async def send_partial(self, request: web.Request, chat: ChatRequest, text: str, out: Output) -> None:
        response = await open_stream(request, out.headers)
        sse = SseWriter(response, out.pacer, named=False)
        chunk = self._chunker(chat, out)
        sse.event("", chunk({"role": "assistant", "content": ""}))
        for piece in deltas(text):
            sse.event("", chunk({"content": piece}))
        await sse.flush()

    # ------------------------------------------------------------------ replies as recorded

    def read_event(self, into: ReplyReader, at: float, name: str, event: Mapping[str, Any]) -> None:
        for choice in event.get("choices") or ():
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or choice.get("message") or {}
            for key in ("reasoning_content", "reasoning"):
                if isinstance(delta.get(key), str):
                    into.add_text("think", at, delta[key])
            if isinstance(delta.get("content"), str):
                into.add_text("text", at, delta["content"])
            for n, call in enumerate(delta.get("tool_calls") or ()):
                if not isinstance(call, Mapping):
                    continue
                function = call.get("function") or {}
                piece = into.tool(
                    call.get("index", n), at, str(call.get("id") or ""), str(function.get("name") or "")
                )
                piece.arguments += str(function.get("arguments") or "")


def _chosen(tool_choice: Any) -> Any:
    """The tool ``tool_choice: {type: function, function: {name}}`` forces, else None."""
    if isinstance(tool_choice, Mapping) and tool_choice.get("type") == "function":
        function = tool_choice.get("function")
        return function.get("name") if isinstance(function, Mapping) else None
    return None
