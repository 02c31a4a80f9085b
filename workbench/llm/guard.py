"""The HTTP layer's defences: what a misbehaving client cannot do to the server.

aiohttp answers requests its parser rejects (a bad request line, an oversized
header) with plain text and a logged traceback, never times out a client that
sends its headers one byte a minute, and accepts connections until the process
runs out of file descriptors. An agent under test (or a fuzzer) must not be
able to take the mock down that way, so the runner here:

* answers parser-level errors in the API's own error shape (the wire is guessed
  from the request line the parser saw), logging one line, not a traceback;
* closes a connection whose request headers have not all arrived
  ``header_timeout`` seconds after its first byte;
* refuses connections beyond ``max_connections`` (closed at once, so a flood of
  idle sockets costs nothing);
* closes keep-alive connections idle for ``idle_timeout`` seconds.

The body timeout (:attr:`Limits.body_timeout`) is the server's: it reads bodies itself.

The header timer reads two attributes of aiohttp's ``RequestHandler`` that
aiohttp offers no public way to see (its request count and current request,
listed in its ``__slots__``); they are read directly, and a test checks that
they exist, so an aiohttp that renames them fails loudly rather than letting
slow headers through.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

log = logging.getLogger(__name__)

HEADER_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 30.0
IDLE_TIMEOUT_S = 75.0  # nginx's keepalive_timeout
MAX_CONNECTIONS = 512


@dataclass(frozen=True)
class Limits:
    """How long a client may take and how many may be connected at once."""

    header_timeout: float = HEADER_TIMEOUT_S  # from a request's first byte to its last header
    body_timeout: float = BODY_TIMEOUT_S  # for the whole body, once the headers are in
    idle_timeout: float = IDLE_TIMEOUT_S  # a keep-alive connection with no request
    max_connections: int = MAX_CONNECTIONS


DEFAULT_LIMITS = Limits()


ErrorShaper = Callable[[str, str, dict[str, str], int, str], web.Response]
"""(method, path, headers, status, message) -> the response in the API's shape."""


class _QuietLog(logging.Logger):
    """aiohttp's per-connection logger: one line per rejected request, no traceback."""

    def exception(self, msg: object, *args: object, exc_info: Any = True, **kw: Any) -> None:
        self.info("%s", str(msg) % args if args else msg)


_QUIET = _QuietLog("workbench.llm.http")
_QUIET.parent = log


class _Handler(RequestHandler):
    """One connection, with the header timer and the connection limit."""

    shaper: ErrorShaper | None = None
    header_timeout: float = HEADER_TIMEOUT_S
    max_connections: int = MAX_CONNECTIONS

    _timer: asyncio.TimerHandle | None = None
    _head = b""  # the first bytes of the current request: the parser forgets the path when it fails

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        manager = self._manager
        if manager is not None and len(manager.connections) >= self.max_connections:
            self._manager = None  # not counted, nothing to clean up
            log.info("mock LLM: connection refused, %d open already", len(manager.connections))
            transport.close()
            return
        super().connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._timer is None and self._current_request is None:
            self._timer = self._loop.call_later(self.header_timeout, self._headers_late, self._request_count)
            self._head = data[:8192]
        elif len(self._head) < 8192 and self._current_request is None:
            self._head += data[: 8192 - len(self._head)]
        super().data_received(data)

    def _headers_late(self, count: int) -> None:
        self._timer = None
        if self._request_count == count and self.transport is not None:
            log.info(
                "mock LLM: closed a connection whose request headers took over %.0f s", self.header_timeout
            )
            self.transport.close()

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def handle_error(
        self,
        request: Any,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if request.writer.output_size > 0:
            raise ConnectionError("the response had started; the connection is closed instead")
        text = message or (str(exc) if exc else "") or f"HTTP {status}"
        log.info("mock LLM: rejected a request (%d): %s", status, text.splitlines()[0] if text else "")
        if self.shaper is None:
            response = web.Response(status=status, text=text)
        else:
            method, path, headers = _what_was_sent(self._head)
            response = self.shaper(method, path, headers, status, f"Bad request: {text}")
        response.force_close()
        return response


def _what_was_sent(head: bytes) -> tuple[str, str, dict[str, str]]:
    """Method, path and headers as far as the raw bytes of a rejected request show them."""
    lines = head.decode("latin-1").split("\r\n")
    words = lines[0].split(" ")
    method, path = (words[0], words[1].split("?")[0]) if len(words) >= 2 else ("POST", "/")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep:
            break
        headers[name.strip().lower()] = value.strip()
    return method, path, headers


class GuardedRunner(web.AppRunner):
    """An :class:`aiohttp.web.AppRunner` whose connections are :class:`_Handler` s."""

    def __init__(self, app: web.Application, shaper: ErrorShaper, limits: Limits = DEFAULT_LIMITS) -> None:
        super().__init__(app, access_log=None, handle_signals=False, keepalive_timeout=limits.idle_timeout,
                         logger=_QUIET)  # fmt: skip
        attrs = {"shaper": staticmethod(shaper), "header_timeout": limits.header_timeout,
                 "max_connections": limits.max_connections}  # fmt: skip
        self._handler_class = type("GuardedHandler", (_Handler,), attrs)

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _GuardedServer  # same layout; only the protocol factory differs
        server.handler_class = self._handler_class  # type: ignore[attr-defined]
        return server


class _GuardedServer(web.Server):
    """aiohttp's server, making :class:`_Handler` connections (the loop calls it per connection)."""

    handler_class: type[_Handler] = _Handler

    def __call__(self) -> RequestHandler:
        return self.handler_class(self, loop=self._loop, **self._kwargs)
