"""What the model said in a recorded exchange: thinking, text and tool calls, with their timing.

The answer is read the way its API streams it (server-sent events, or one JSON body), by the
exchange's wire (:meth:`~workbench.llm.wire.common.Wire.read_event` and ``read_body``), so any
registered style is read, not only the built-in ones. Each piece keeps the time its bytes arrived at
the proxy, so a scenario can give every chunk its real delay. An HTTP error is read from the
style's error shape (type, message, ``retry-after``); a stream the upstream broke keeps what
arrived and is marked ``cut``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

from workbench.digits import is_digits
from workbench.llm.wire import Wire, wire_named
from workbench.llm.wire.heard import Piece, RecordedError, RecordedReply, ReplyReader

from .exchange import Exchange

__all__ = ["Piece", "RecordedError", "RecordedReply", "read_error", "read_reply", "sse_events"]


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
    if status >= 400:
        return RecordedReply(error=read_error(exchange))
    content_type = exchange.response_headers.get(
        "Content-Type", exchange.response_headers.get("content-type", "")
    )
    into = ReplyReader()
    if exchange.style is not None:  # else a path no style serves: nothing in it is the model's
        with contextlib.suppress(NotImplementedError):  # a wire that reads no recordings: an empty reply
            _read(wire_named(exchange.style), exchange, content_type, into)
    into.reply.cut = bool(exchange.error)
    return into.reply


def _read(wire: Wire, exchange: Exchange, content_type: str, into: ReplyReader) -> None:
    if "text/event-stream" in content_type:
        events = list(sse_events(exchange.chunks))
        for at, name, data in events:
            event = _loads(data)
            if isinstance(event, Mapping):
                wire.read_event(into, at, name, event)
        if events and not isinstance(_loads(events[0][2]), Mapping) and events[0][2].strip() != "[DONE]":
            into.reply.malformed = events[0][2]  # its first event is no JSON: the agent could read nothing
    else:
        at = exchange.first_byte or exchange.started
        text = exchange.response_body.decode("utf-8", "replace")
        body = _loads(text)
        if isinstance(body, list):  # Gemini's streamGenerateContent without `alt=sse`: one JSON array
            for item in body:
                if isinstance(item, Mapping):
                    wire.read_event(into, at, "", item)
        elif isinstance(body, Mapping):
            wire.read_body(into, at, body)
        else:  # a web page, plain text: not the API's answer
            into.reply.malformed = text


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
    retry_after = int(retry) if retry and is_digits(retry.strip()) else None
    return RecordedError(exchange.status or 502, kind, message, retry_after)
