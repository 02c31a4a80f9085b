"""Claudeless failures, injected on the wire the way an agent would meet them.

| failure | what the agent sees |
| --- | --- |
| `network_unreachable` | the connection is reset (RST) before any byte of a response |
| `connection_timeout{after_ms}` | nothing for `after_ms` (scenario time, scaled by the speed), then the connection closes |
| `auth_error{message}` | HTTP 401, `authentication_error` (OpenAI: `invalid_api_key`) |
| `rate_limit{retry_after}` | HTTP 429 with a `retry-after` header, `rate_limit_error` (OpenAI: `rate_limit_exceeded`) |
| `out_of_credits` | Anthropic: HTTP 402 `billing_error`; OpenAI: HTTP 429 `insufficient_quota` |
| `partial_response{partial_text}` | the reply starts, carries the partial text, and the connection closes mid-body |
| `malformed_json{raw}` | a 200 whose body (or first SSE event) is `raw`, not JSON |

Status codes and shapes are the real APIs' (Anthropic documents 402 for
billing errors; OpenAI reports exhausted credit as 429 `insufficient_quota`),
so each SDK raises its own exception type.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from typing import Any

from aiohttp import web

from workbench.scenario import model as m

from .conversation import ChatRequest
from .reply import ApiError, text_reply
from .sse import dumps, open_stream
from .wire.common import Output, Wire


def api_error(failure: m.Failure, style: str) -> ApiError | None:
    """The HTTP error a failure stands for, in the style's terms; None for wire-level ones.

    The Claudeless loader has checked the type and that every parameter it takes is there.
    """
    kind, p = failure.type, failure.params
    anthropic = style == "anthropic"
    if kind == "auth_error":
        message = str(p["message"])
        if anthropic:
            return ApiError(401, "authentication_error", message)
        return ApiError(401, "invalid_request_error", message, code="invalid_api_key")
    if kind == "rate_limit":
        retry = int(p["retry_after"])
        if anthropic:
            return ApiError(429, "rate_limit_error", "Rate limit exceeded", retry_after=retry)
        return ApiError(
            429, "requests", "Rate limit reached for requests", retry_after=retry, code="rate_limit_exceeded"
        )
    if kind == "out_of_credits":
        if anthropic:
            return ApiError(402, "billing_error", "Your account has no credits remaining")
        message = "You exceeded your current quota, please check your plan and billing details."
        return ApiError(429, "insufficient_quota", message, code="insufficient_quota")
    return None


def reset(request: web.Request) -> None:
    """Abort the connection with an RST, as a dropped network would."""
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


async def inject_wire(
    request: web.Request, failure: m.Failure, wire: Wire, chat: ChatRequest, out: Output
) -> web.StreamResponse:
    """Play a wire-level failure (reset, timeout, partial, malformed); the caller
    has already turned HTTP-level ones into errors through :func:`api_error`."""
    kind, p = failure.type, failure.params
    if kind == "network_unreachable":
        reset(request)
    elif kind == "connection_timeout":
        await out.pacer.wait(int(p["after_ms"]))
        if request.transport is not None:
            request.transport.close()
    elif kind == "partial_response":
        text = str(p["partial_text"])
        if chat.stream:
            await wire.send_partial(request, chat, text, out)
        else:
            await _partial_body(request, wire, chat, text, out)
        if request.transport is not None:
            request.transport.close()  # FIN mid-body: the client sees an incomplete response
    elif kind == "malformed_json":
        raw = str(p["raw"])
        if chat.stream:
            response = await open_stream(request, out.headers)
            await response.write(wire.malformed_frame(raw).encode("utf-8"))
            await response.write_eof()
            return response
        return web.Response(text=raw + "\n", content_type="application/json", headers=out.headers)
    return web.Response()


async def _partial_body(request: web.Request, wire: Wire, chat: ChatRequest, text: str, out: Output) -> None:
    """Announce the whole body's length, send it up to the end of the partial text, stop."""
    body: Any = wire.body(chat, text_reply(text), out)
    full = dumps(body).encode("utf-8")
    marker = dumps(text)[1:-1].encode("utf-8")
    cut = full.find(marker) + len(marker) if marker and marker in full else len(full) // 2
    response = web.StreamResponse(headers={"Content-Type": "application/json", **out.headers})
    response.content_length = len(full)
    await response.prepare(request)
    await response.write(full[:cut])
    await asyncio.sleep(0)
