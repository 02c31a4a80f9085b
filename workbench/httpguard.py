"""The HTTP servers' shared defences (`serve llm`, `serve rest`): what a misbehaving client cannot do.

aiohttp answers requests its parser rejects (a bad request line, an oversized
header) with plain text and a logged traceback, never times out a client that
connects and sends nothing or sends its headers one byte a minute, and accepts
connections until the process runs out of file descriptors. An agent under test
(or a fuzzer) must not be able to take a mock server down that way, so the
runner here:

* answers parser-level errors in the API's own error shape (the server's
  ``shaper``, which may guess the API from the request line the parser saw),
  logging one line, not a traceback;
* closes a connection whose request head has not all arrived
  ``header_timeout`` seconds after the connection opened (for its first
  request) or after the request's first byte (for later ones);
* keeps at most ``max_connections`` open: when a new one would pass the limit,
  the connections idle longest between requests are reclaimed first (a few more
  than needed, so a burst of new connections is not a scan of all of them each),
  then those whose head has been arriving longest; only when every connection is busy
  with a request is the new one refused (closed at once). Hundreds of idle or
  slow sockets thus never lock a real client out;
* closes keep-alive connections idle for ``idle_timeout`` seconds.

Bodies are read by the servers through :func:`read_json`: at most ``max_body``
bytes, within ``body_timeout`` seconds (a body shorter than its
Content-Length is a 408, not a connection held forever), decoded off the event
loop when large (other clients are not stalled), and a body nested too deeply,
or holding a number JSON does not have (``NaN``, ``Infinity``: Python's json
reads them, the real services refuse them), is a :class:`BodyError`, never a 500.
A server that takes JSON only asks for ``json_only``: a body of another
Content-Type (a form, as `curl -d` sends) is a 415 that says what is allowed.

The timers read attributes of aiohttp's ``RequestHandler`` that aiohttp offers
no public way to see (its request count, its idle waiter, whether a request is
in progress; listed in its ``__slots__``); a test checks that they exist, so an
aiohttp that renames them fails loudly rather than letting slow clients through.
"""

from __future__ import annotations

import asyncio
import heapq
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

log = logging.getLogger(__name__)

HEADER_TIMEOUT_S = 5.0
BODY_TIMEOUT_S = 30.0
IDLE_TIMEOUT_S = 75.0  # nginx's keepalive_timeout
MAX_CONNECTIONS = 512
RECLAIM_AHEAD = 16
"""At the limit, ``max_connections // RECLAIM_AHEAD`` more slots than needed are reclaimed at once (32 of 512)."""
BACKLOG = 2048
"""Connections the kernel queues before the server accepts them (aiohttp's 128 overflowed under 2,000
reconnecting slow clients: a new client's SYN was dropped and retried after 1 s, then 3 s)."""
LINGER_S = 1.0
"""How long a connection is kept after an answer sent before its body was read (aiohttp drains it for
the client's sake; its default of 10 s let a body shorter than its length hold a connection that long)."""
THREAD_DECODE_BYTES = 256 * 1024
"""Bodies above this are decoded in a worker thread: decoding 32 MB takes the event loop for seconds."""


@dataclass(frozen=True)
class Limits:
    """How long a client may take and how many may be connected at once."""

    header_timeout: float = HEADER_TIMEOUT_S  # from a request's start to its last header
    body_timeout: float = BODY_TIMEOUT_S  # for the whole body, once the headers are in
    idle_timeout: float = IDLE_TIMEOUT_S  # a keep-alive connection with no request
    max_connections: int = MAX_CONNECTIONS


DEFAULT_LIMITS = Limits()


ErrorShaper = Callable[[str, str, dict[str, str], int, str], web.Response]
"""(method, path, headers, status, message) -> the response in the API's shape."""


class BodyError(Exception):
    """A request body the server will not take: too large (413), too slow (408), not JSON (400)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_body(request: web.BaseRequest, max_body: int, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The body, at most ``max_body`` bytes, within ``limits.body_timeout`` seconds; :class:`BodyError` if not.

    Read from the stream, so the request object keeps no copy of it for as long as the connection lives."""
    declared = request.content_length or 0
    if declared > max_body:
        raise BodyError(413, f"Request exceeds the maximum allowed size of {max_body // (1024 * 1024)} MB")

    async def read() -> bytes:
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.content.iter_any():
            size += len(chunk)
            if size > max_body:
                raise BodyError(
                    413, f"Request exceeds the maximum allowed size of {max_body // (1024 * 1024)} MB"
                )
            chunks.append(chunk)
        return b"".join(chunks)

    try:
        return await asyncio.wait_for(read(), limits.body_timeout)
    except TimeoutError:
        request.protocol.close()  # the rest of the body may still come: close once the 408 is out
        raise BodyError(408, f"the request body did not arrive within {limits.body_timeout:g} s") from None


def strict_json(raw: bytes | str) -> Any:
    """``json.loads`` of JSON as RFC 8259 has it: ``NaN``, ``Infinity`` and ``-Infinity``, which Python's
    json reads (and a client's ``json.dumps`` writes), are a ValueError that names them."""
    return json.loads(raw, parse_constant=_not_a_json_number)


def _not_a_json_number(name: str) -> NoReturn:
    raise ValueError(f"JSON has no {name} (its numbers are finite): send a number, or null")


def is_json_type(content_type: str) -> bool:
    """Whether a Content-Type header says JSON: ``application/json`` or a ``+json`` type, any parameters."""
    mime = content_type.split(";", 1)[0].strip().lower()
    return mime == "application/json" or (mime.startswith("application/") and mime.endswith("+json"))


async def read_json(
    request: web.BaseRequest,
    max_body: int,
    limits: Limits = DEFAULT_LIMITS,
    decode: Callable[[bytes], Any] = strict_json,
    *,
    json_only: bool = False,
) -> Any:
    """The body decoded by ``decode`` (:func:`strict_json` by default), off the event loop when it is large.

    A body that is not JSON, or holds what ``decode`` refuses (ValueError), or is nested past what
    the decoder can follow, is a :class:`BodyError` (400) with the reason. With ``json_only``, a body
    whose Content-Type is not JSON is a 415 (none at all is taken as JSON: `curl -X POST`, a bare
    ``fetch``)."""
    declared = request.headers.get("Content-Type")
    if json_only and declared is not None and not is_json_type(declared):
        raise BodyError(
            415,
            f"Content-Type {declared.split(';', 1)[0].strip() or '(empty)'} is not taken here: the body must be "
            "JSON, sent as Content-Type: application/json (or a +json type)",
        )
    raw = await read_body(request, max_body, limits)
    try:
        if len(raw) > THREAD_DECODE_BYTES:
            return await asyncio.to_thread(decode, raw)
        return decode(raw)
    except RecursionError:
        raise BodyError(400, "the request body is nested too deeply") from None
    except UnicodeDecodeError:
        raise BodyError(400, "the request body is not valid UTF-8") from None
    except ValueError as exc:
        raise BodyError(400, f"the request body is not valid JSON: {exc}") from None


class _QuietLog(logging.Logger):
    """aiohttp's per-connection logger: one line per rejected request, no traceback."""

    def exception(self, msg: object, *args: object, exc_info: Any = True, **kw: Any) -> None:
        self.info("%s", str(msg) % args if args else msg)


_QUIET = _QuietLog("workbench.http")
_QUIET.parent = log


class _Handler(RequestHandler):
    """One connection, with the head timer and the connection limit."""

    shaper: ErrorShaper | None = None
    header_timeout: float = HEADER_TIMEOUT_S
    max_connections: int = MAX_CONNECTIONS
    server_name: str = "server"

    _timer: asyncio.TimerHandle | None = None
    _head_started = 0.0
    _head = b""  # the first bytes of the current request: the parser forgets the path when it fails

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        manager = self._manager
        if manager is not None:
            live = manager.connections  # under the limit, nothing to count (a burst of connections is cheap)
            if len(live) >= self.max_connections:
                live = [h for h in live if not h._force_close]
            over = len(live) - self.max_connections + 1
            if over > 0 and not _reclaim(live, over + self.max_connections // RECLAIM_AHEAD):
                self._manager = None  # not counted, nothing to clean up
                log.info("%s: connection refused, %d busy already", self.server_name, len(live))
                transport.close()
                return
        super().connection_made(transport)
        self._start_head_timer()  # a connection that never sends a byte is a slow head too

    def _start_head_timer(self) -> None:
        self._head_started = self._loop.time()
        self._head = b""
        self._timer = self._loop.call_later(self.header_timeout, self._head_late, self._request_count)

    def _between_requests(self) -> bool:
        """No request is being read or answered: the connection is idle, or a head is arriving."""
        if self._request_in_progress or self._messages:
            return False
        waiter = self._waiter
        return self._request_count == 0 or (waiter is not None and not waiter.done())

    def data_received(self, data: bytes) -> None:
        count = self._request_count
        if self._timer is None and self._between_requests():  # the first byte of a later request
            self._start_head_timer()
        if self._timer is not None and len(self._head) < 8192:
            self._head += data[: 8192 - len(self._head)]
        super().data_received(data)
        if self._request_count != count and self._timer is not None:  # the head is complete
            self._timer.cancel()
            self._timer = None

    def _head_late(self, count: int) -> None:
        self._timer = None
        if self._request_count == count and self.transport is not None:
            log.info(
                "%s: closed a connection whose request head took over %.0f s",
                self.server_name,
                self.header_timeout,
            )
            self.force_close()

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
        log.info(
            "%s: rejected a request (%d): %s", self.server_name, status, text.splitlines()[0] if text else ""
        )
        if self.shaper is None:
            response = web.Response(status=status, text=text)
        else:
            method, path, headers = _what_was_sent(self._head)
            response = self.shaper(method, path, headers, status, f"Bad request: {text}")
        response.force_close()
        return response


def _reclaim(live: list[RequestHandler], count: int) -> bool:
    """Close up to ``count`` connections that hold a slot without using them; False when every one is busy.

    Idle keep-alive connections go first (those idle longest), then those whose request head has
    been arriving longest (a client that connected and sent nothing, or sends a byte at a time).
    The caller asks for a few more than it needs (:data:`RECLAIM_AHEAD`): each call looks at every
    connection, and when 2,000 slow clients reconnect at once, doing that once per new connection
    kept the event loop (and a real client queued behind them) waiting for seconds."""
    idle: list[tuple[int, float, _Handler]] = []
    for handler in live:
        if isinstance(handler, _Handler) and handler._between_requests():
            arriving = handler._timer is not None
            since = handler._head_started if arriving else handler._next_keepalive_close_time
            idle.append((int(arriving), since, handler))
    if not idle:
        return False
    victims = heapq.nsmallest(count, idle, key=lambda entry: entry[:2])
    log.debug("%s: reclaimed %d idle connections for new ones", victims[0][2].server_name, len(victims))
    for *_, victim in victims:
        victim.force_close()
    return True


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
    """An :class:`aiohttp.web.AppRunner` whose connections are guarded :class:`_Handler` s.

    ``name`` names the server in log lines ("mock LLM", "REST")."""

    def __init__(
        self,
        app: web.Application,
        shaper: ErrorShaper | None,
        limits: Limits = DEFAULT_LIMITS,
        *,
        name: str = "server",
        shutdown_timeout: float = 60.0,
    ) -> None:
        super().__init__(app, access_log=None, handle_signals=False, keepalive_timeout=limits.idle_timeout,
                         logger=_QUIET, shutdown_timeout=shutdown_timeout, lingering_time=LINGER_S)  # fmt: skip
        attrs = {"shaper": staticmethod(shaper) if shaper else None, "header_timeout": limits.header_timeout,
                 "max_connections": limits.max_connections, "server_name": name}  # fmt: skip
        self._handler_class = type("GuardedHandler", (_Handler,), attrs)

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _GuardedServer  # same layout; only the protocol factory differs
        server.handler_class = self._handler_class  # type: ignore[attr-defined]
        return server

    def open_connections(self) -> int:
        """Connections the server holds now (closing ones not counted)."""
        server = self.server
        return 0 if server is None else sum(1 for h in server.connections if not h._force_close)


class _GuardedServer(web.Server):
    """aiohttp's server, making :class:`_Handler` connections (the loop calls it per connection)."""

    handler_class: type[_Handler] = _Handler

    def __call__(self) -> RequestHandler:
        return self.handler_class(self, loop=self._loop, **self._kwargs)
