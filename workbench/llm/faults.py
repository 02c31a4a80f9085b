"""Claudeless failures, injected on the wire the way an agent would meet them.

| failure | what the agent sees |
| --- | --- |
| `network_unreachable` | the connection is reset (RST) before any byte of a response |
| `connection_timeout{after_ms}` | nothing for `after_ms` (scenario time, scaled by the speed), then the connection closes |
| `auth_error{message}` | the style's authentication error (Anthropic 401 `authentication_error`, OpenAI 401 `invalid_api_key`, Gemini 400 `API_KEY_INVALID`) |
| `rate_limit{retry_after}` | HTTP 429 with a `retry-after` header, in the style's shape |
| `out_of_credits` | Anthropic: HTTP 402 `billing_error`; OpenAI: HTTP 429 `insufficient_quota`; Gemini: 429 `RESOURCE_EXHAUSTED` |
| `partial_response{partial_text}` | the reply starts, carries the partial text, and the connection closes mid-body |
| `malformed_json{raw}` | a 200 whose body (or first SSE event) is `raw`, not JSON |

The HTTP-level ones are each wire's :meth:`~.wire.common.Wire.failure_error`,
in the real API's status codes and shapes, so each SDK raises its own exception
type; this module plays the wire-level ones.
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
from .reply import text_reply
from .sse import dumps, open_stream
from .wire.common import Output, Wire


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
    request: web.Request, failure: m.Fault, wire: Wire, chat: ChatRequest, out: Output
) -> web.StreamResponse:
    """Play a wire-level failure (reset, timeout, partial, malformed); the caller
    has already turned HTTP-level ones into errors through the wire's ``failure_error``."""
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
