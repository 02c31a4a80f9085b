"""What the model said in a recorded exchange: thinking, text and tool calls, with their timing.

The answer is read the way each API streams it (server-sent events: Anthropic
Messages, OpenAI Chat Completions and Responses, Gemini with ``alt=sse``; or
one JSON body). Each piece keeps the time its bytes arrived at the proxy, so a
scenario can give every chunk its real delay. An HTTP error is read from the
style's error shape (type, message, ``retry-after``); a stream the upstream
broke keeps what arrived and is marked ``cut``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .exchange import Exchange


@dataclass
class Piece:
    """A run of thinking or text, or one tool call, in the order the model sent them."""

    kind: str  # think | text | tool
    chunks: list[tuple[float, str]] = field(default_factory=list)  # (arrival, text) for think/text
    call_id: str = ""
    name: str = ""
    arguments: str = ""  # the tool call's JSON arguments as streamed
    at: float = 0.0  # arrival of the tool call's start

    @property
    def text(self) -> str:
        return "".join(t for _, t in self.chunks)

    def args(self) -> dict[str, Any]:
        try:
            value = json.loads(self.arguments) if self.arguments.strip() else {}
        except ValueError:
            return {"_raw": self.arguments}
        return value if isinstance(value, dict) else {"_value": value}


@dataclass
class RecordedError:
    status: int
    type: str
    message: str
    retry_after: int | None = None


@dataclass
class RecordedReply:
    pieces: list[Piece] = field(default_factory=list)
    error: RecordedError | None = None
    cut: bool = False  # the stream broke before its end

    @property
    def tool_calls(self) -> list[Piece]:
        return [p for p in self.pieces if p.kind == "tool"]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.pieces if p.kind == "text")


class _Builder:
    def __init__(self) -> None:
        self.reply = RecordedReply()
        self.by_index: dict[Any, Piece] = {}

    def add_text(self, kind: str, at: float, text: str, key: Any = None) -> None:
        if not text:
            return
        last = self.reply.pieces[-1] if self.reply.pieces else None
        piece = self.by_index.get((kind, key)) if key is not None else None
        if piece is None:
            if last is not None and last.kind == kind and key is None:
                piece = last
            else:
                piece = Piece(kind)
                self.reply.pieces.append(piece)
                if key is not None:
                    self.by_index[(kind, key)] = piece
        if piece.chunks and piece.chunks[-1][0] == at:
            piece.chunks[-1] = (at, piece.chunks[-1][1] + text)  # one read of the upstream, one chunk
        else:
            piece.chunks.append((at, text))

    def tool(self, key: Any, at: float, call_id: str = "", name: str = "") -> Piece:
        piece = self.by_index.get(("tool", key))
        if piece is None:
            piece = Piece("tool", call_id=call_id, name=name, at=at)
            self.by_index[("tool", key)] = piece
            self.reply.pieces.append(piece)
        piece.call_id = piece.call_id or call_id
        piece.name = piece.name or name
        return piece


def sse_events(chunks: list[tuple[float, bytes]]) -> Iterator[tuple[float, str, str]]:
    """(arrival, event name, data) for each server-sent event, timed by the read that completed it."""
    buffer = b""
    for at, data in chunks:
        buffer += data.replace(b"\r\n", b"\n")
        while b"\n\n" in buffer:
            frame, buffer = buffer.split(b"\n\n", 1)
            name, lines = "", []
            for line in frame.decode("utf-8", "replace").split("\n"):
                if line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    lines.append(line[5:].removeprefix(" "))
            if lines:
                yield at, name, "\n".join(lines)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def read_reply(exchange: Exchange) -> RecordedReply:
    """The model's answer in ``exchange`` (see the module docstring)."""
    status = exchange.status or 0
    if status >= 400 or (exchange.error and exchange.error.startswith("unreachable")):
        return RecordedReply(error=read_error(exchange))
    content_type = exchange.response_headers.get(
        "Content-Type", exchange.response_headers.get("content-type", "")
    )
    builder = _Builder()
    style = exchange.style or ""
    if "text/event-stream" in content_type:
        for at, name, data in sse_events(exchange.chunks):
            event = _loads(data)
            if isinstance(event, Mapping):
                _STREAM.get(style, _nothing)(builder, at, name, event)
    else:
        at = exchange.first_byte or exchange.started
        body = _loads(exchange.response_body.decode("utf-8", "replace"))
        if isinstance(body, list):  # Gemini's streamGenerateContent without `alt=sse`: one JSON array
            for item in body:
                if isinstance(item, Mapping):
                    _STREAM.get(style, _nothing)(builder, at, "", item)
        elif isinstance(body, Mapping):
            _BODY.get(style, _no_body)(builder, at, body)
    builder.reply.cut = bool(exchange.error)
    return builder.reply


def read_error(exchange: Exchange) -> RecordedError:
    body = _loads(exchange.response_body.decode("utf-8", "replace"))
    error = body.get("error") if isinstance(body, Mapping) else None
    kind, message = "api_error", exchange.error or f"HTTP {exchange.status}"
    if isinstance(error, Mapping):
        kind = str(error.get("type") or error.get("status") or error.get("code") or kind)
        message = str(error.get("message") or message)
    elif isinstance(error, str):
        message = error
    retry = exchange.response_headers.get("retry-after")
    retry_after = int(retry) if retry and retry.strip().isdigit() else None
    return RecordedError(exchange.status or 502, kind, message, retry_after)


# --------------------------------------------------------------------------- Anthropic Messages


def _anthropic_event(b: _Builder, at: float, name: str, event: Mapping[str, Any]) -> None:
    kind = event.get("type", name)
    index = event.get("index")
    if kind == "content_block_start":
        block = event.get("content_block") or {}
        if block.get("type") in ("tool_use", "server_tool_use"):
            piece = b.tool(index, at, str(block.get("id", "")), str(block.get("name", "")))
            initial = block.get("input")
            if isinstance(initial, Mapping) and initial:
                piece.arguments = json.dumps(initial)
        elif block.get("type") == "text":
            b.add_text("text", at, str(block.get("text") or ""), index)
        elif block.get("type") == "thinking":
            b.add_text("think", at, str(block.get("thinking") or ""), index)
    elif kind == "content_block_delta":
        delta = event.get("delta") or {}
        if delta.get("type") == "text_delta":
            b.add_text("text", at, str(delta.get("text", "")), index)
        elif delta.get("type") == "thinking_delta":
            b.add_text("think", at, str(delta.get("thinking", "")), index)
        elif delta.get("type") == "input_json_delta":
            b.tool(index, at).arguments += str(delta.get("partial_json", ""))
    elif kind == "error":
        error = event.get("error") or {}
        b.reply.error = RecordedError(529 if error.get("type") == "overloaded_error" else 500,
                                      str(error.get("type", "api_error")), str(error.get("message", "")))  # fmt: skip


def _anthropic_body(b: _Builder, at: float, body: Mapping[str, Any]) -> None:
    for n, block in enumerate(body.get("content") or ()):
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text":
            b.add_text("text", at, str(block.get("text", "")), n)
        elif block.get("type") == "thinking":
            b.add_text("think", at, str(block.get("thinking", "")), n)
        elif block.get("type") in ("tool_use", "server_tool_use"):
            piece = b.tool(n, at, str(block.get("id", "")), str(block.get("name", "")))
            piece.arguments = json.dumps(block.get("input") or {})


# --------------------------------------------------------------------------- OpenAI Chat Completions


def _chat_event(b: _Builder, at: float, name: str, event: Mapping[str, Any]) -> None:
    for choice in event.get("choices") or ():
        if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
            continue
        delta = choice.get("delta") or choice.get("message") or {}
        for key in ("reasoning_content", "reasoning"):
            if isinstance(delta.get(key), str):
                b.add_text("think", at, delta[key])
        if isinstance(delta.get("content"), str):
            b.add_text("text", at, delta["content"])
        for n, call in enumerate(delta.get("tool_calls") or ()):
            if not isinstance(call, Mapping):
                continue
            function = call.get("function") or {}
            piece = b.tool(
                call.get("index", n), at, str(call.get("id") or ""), str(function.get("name") or "")
            )
            piece.arguments += str(function.get("arguments") or "")


# --------------------------------------------------------------------------- OpenAI Responses


def _responses_event(b: _Builder, at: float, name: str, event: Mapping[str, Any]) -> None:
    kind = event.get("type", name)
    index = event.get("output_index")
    if kind == "response.output_item.added":
        item = event.get("item") or {}
        if item.get("type") == "function_call":
            piece = b.tool(index, at, str(item.get("call_id", "")), str(item.get("name", "")))
            piece.arguments = str(item.get("arguments") or "")
    elif kind == "response.output_text.delta":
        b.add_text("text", at, str(event.get("delta", "")), index)
    elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
        b.add_text("think", at, str(event.get("delta", "")), index)
    elif kind == "response.function_call_arguments.delta":
        b.tool(index, at).arguments += str(event.get("delta", ""))
    elif kind == "response.output_item.done":
        item = event.get("item") or {}
        if item.get("type") == "function_call" and isinstance(item.get("arguments"), str):
            b.tool(index, at, str(item.get("call_id", "")), str(item.get("name", ""))).arguments = item[
                "arguments"
            ]
    elif kind in ("response.failed", "error"):
        error = (event.get("response") or {}).get("error") or event.get("error") or event
        if isinstance(error, Mapping):
            b.reply.error = RecordedError(500, str(error.get("code") or error.get("type") or "server_error"),
                                          str(error.get("message", "")))  # fmt: skip


def _responses_body(b: _Builder, at: float, body: Mapping[str, Any]) -> None:
    for n, item in enumerate(body.get("output") or ()):
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "message":
            for part in item.get("content") or ():
                if isinstance(part, Mapping) and part.get("type") == "output_text":
                    b.add_text("text", at, str(part.get("text", "")), n)
        elif item.get("type") == "reasoning":
            for part in item.get("summary") or ():
                if isinstance(part, Mapping):
                    b.add_text("think", at, str(part.get("text", "")), n)
        elif item.get("type") == "function_call":
            piece = b.tool(n, at, str(item.get("call_id", "")), str(item.get("name", "")))
            piece.arguments = str(item.get("arguments") or "")


# --------------------------------------------------------------------------- Gemini


def _gemini_event(b: _Builder, at: float, name: str, event: Mapping[str, Any]) -> None:
    candidates = event.get("candidates") or ()
    first = candidates[0] if candidates and isinstance(candidates[0], Mapping) else {}
    for part in (first.get("content") or {}).get("parts") or ():
        if not isinstance(part, Mapping):
            continue
        call = part.get("functionCall") or part.get("function_call")
        if isinstance(call, Mapping):
            piece = b.tool(len(b.reply.tool_calls), at, str(call.get("id") or ""), str(call.get("name", "")))
            piece.arguments = json.dumps(call.get("args") or {})
        elif isinstance(part.get("text"), str):
            b.add_text("think" if part.get("thought") else "text", at, part["text"])


def _nothing(b: _Builder, at: float, name: str, event: Mapping[str, Any]) -> None:
    return None


def _chat_body(b: _Builder, at: float, body: Mapping[str, Any]) -> None:
    _chat_event(b, at, "", body)


def _gemini_body(b: _Builder, at: float, body: Mapping[str, Any]) -> None:
    _gemini_event(b, at, "", body)


def _no_body(b: _Builder, at: float, body: Mapping[str, Any]) -> None:
    return None


StreamReader = Callable[[_Builder, float, str, Mapping[str, Any]], None]
BodyReader = Callable[[_Builder, float, Mapping[str, Any]], None]
_STREAM: dict[str, StreamReader] = {"anthropic": _anthropic_event, "openai-chat": _chat_event,
                                    "openai-responses": _responses_event, "gemini": _gemini_event, "": _nothing}  # fmt: skip
_BODY: dict[str, BodyReader] = {"anthropic": _anthropic_body, "openai-chat": _chat_body,
                                "openai-responses": _responses_body, "gemini": _gemini_body, "": _no_body}  # fmt: skip
