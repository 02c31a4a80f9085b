"""The recording proxy: the agent's base URL, in front of the real API.

It listens on 127.0.0.1 (a free port), routes each request by the paths the
mock LLM server serves (:data:`workbench.llm.wire.WIRES`, so the API style and
Gemini's model come from the path, as in ``serve llm``), forwards it to the
upstream with the user's credentials and streams the answer back to the agent
piece by piece as it arrives, while keeping every request and every piece of
the answer with its arrival time (:class:`~.exchange.Exchange`).

Credentials: the agent runs with a throwaway key, never the user's. For each
request the proxy puts the user's own credential for the request's API style
from the environment (``ANTHROPIC_API_KEY`` or ``ANTHROPIC_AUTH_TOKEN``,
``OPENAI_API_KEY``, ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY``) in place of the
agent's; without one, the agent's own headers go through unchanged. Either way
the credential values join the recording's :class:`~.redact.Redactor`.

Failures are kept as what they were: an HTTP error is an exchange with its
status and body; an upstream that breaks a stream (a reset, a cut) is an
exchange with ``error = "reset"``, and the agent's connection is reset the same
way; an upstream that cannot be reached (it went down mid-session) is an
exchange with ``error = "unreachable: ..."``, and the agent's connection is reset:
what the agent would meet talking to that upstream itself, and what the replay
plays (``network_unreachable``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web

from workbench.llm.faults import reset
from workbench.llm.wire import WIRES, Route, Wire, add_routes, wire_for

from .exchange import Exchange
from .redact import Redactor

HOP_BY_HOP = frozenset({"host", "content-length", "transfer-encoding", "connection", "keep-alive",
                        "proxy-connection", "te", "trailer", "upgrade", "accept-encoding", "content-encoding"})  # fmt: skip
AUTH_HEADERS = ("authorization", "x-api-key", "api-key", "x-goog-api-key")
CONNECT_TIMEOUT_S = 10.0
MAX_BODY = 32 * 1024 * 1024
SHUTDOWN_S = 1.0  # at the end an answer still streaming is cut: the recording is over


class UpstreamUnreachable(Exception):
    """The upstream does not answer at all (refused, no such host, timeout)."""


def _lower(headers: Mapping[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def upstream_base(url: str) -> str:
    """The upstream's origin and path prefix, checked: `http(s)://host[:port][/prefix]`."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--upstream must be an http:// or https:// URL with a host, got {url!r}")
    return url.rstrip("/")


async def check_reachable(url: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Raise :class:`UpstreamUnreachable` unless something answers HTTP at ``url`` (any status will do)."""
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session,
            session.head(url + "/", allow_redirects=False) as response,
        ):
            response.release()
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        raise UpstreamUnreachable(f"cannot reach the upstream {url}: {exc or type(exc).__name__}") from None


class RecordingProxy:
    """See the module docstring. ``start()`` returns the base URL the agent is given."""

    def __init__(
        self,
        upstream: str,
        redactor: Redactor,
        environ: Mapping[str, str],
        *,
        clock_start: float | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.upstream = upstream_base(upstream)
        self.redactor = redactor
        self.environ = dict(environ)
        self.exchanges: list[Exchange] = []
        self.host, self.port = host, port
        self.t0 = time.monotonic() if clock_start is None else clock_start
        self._seq = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self._client: aiohttp.ClientSession | None = None
        self._in_flight = 0
        self.changed = asyncio.Event()  # set whenever an exchange starts or ends
        self.on_end: Callable[[Exchange], None] | None = None  # called as each exchange ends

    @property
    def busy(self) -> bool:
        return self._in_flight > 0

    async def start(self) -> str:
        self._client = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_TIMEOUT_S),
            auto_decompress=False,
            connector=aiohttp.TCPConnector(limit=0),
        )
        app = web.Application(client_max_size=MAX_BODY)
        add_routes(app.router, WIRES, self._routed)
        app.router.add_route("*", "/{tail:.*}", self._other)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_S)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True)
        await site.start()
        port = self._runner.addresses[0][1] if self._runner.addresses else self.port
        return f"http://{self.host}:{port}"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._client is not None:
            await self._client.close()
            self._client = None

    def now(self) -> float:
        return time.monotonic() - self.t0

    # ------------------------------------------------------------------ routing

    async def _routed(
        self, request: web.Request, wire: Wire, route: Route, params: dict[str, str]
    ) -> web.StreamResponse:
        return await self._forward(request, wire, route.kind, params)

    async def _other(self, request: web.Request) -> web.StreamResponse:
        return await self._forward(request, None, None, {})

    # ------------------------------------------------------------------ forwarding

    async def _forward(
        self, request: web.Request, wire: Wire | None, kind: str | None, params: dict[str, str]
    ) -> web.StreamResponse:
        assert self._client is not None
        meant = wire if wire is not None else wire_for(request.path, request.headers)
        style = meant.style
        body = await request.read()
        self.redactor.add_headers(request.headers)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        query = dict(request.query)
        own = meant.credentials(self.environ)
        if own is not None:
            headers = {k: v for k, v in headers.items() if k.lower() not in AUTH_HEADERS}
            headers.update(own)
            self.redactor.add_headers(own)
            query.pop("key", None)
        if "key" in query:
            self.redactor.add((query["key"],))
        headers["accept-encoding"] = "identity"  # the recording reads the stream as sent
        exchange = Exchange(
            next(self._seq), request.method, request.path, request.query_string, style if wire else None,
            kind, params, _lower(self.redactor.headers(request.headers)), body, self.now(),
        )  # fmt: skip
        self.exchanges.append(exchange)
        self._in_flight += 1
        self.changed.set()
        try:
            return await self._relay(request, exchange, headers, query)
        finally:
            self._in_flight -= 1
            exchange.ended = self.now()
            if self.on_end is not None:
                self.on_end(exchange)
            self.changed.set()

    async def _relay(
        self,
        request: web.Request,
        exchange: Exchange,
        headers: dict[str, str],
        query: dict[str, str],
    ) -> web.StreamResponse:
        assert self._client is not None
        url = self._url(request.path)
        try:
            upstream = await self._client.request(
                request.method, url, params=query, headers=headers, data=exchange.body, allow_redirects=False
            )
        except (aiohttp.ClientConnectorError, TimeoutError) as exc:  # the agent meets a network that fails
            exchange.error = f"unreachable: {exc or type(exc).__name__}"
            reset(request)
            return web.Response()
        except (aiohttp.ClientError, OSError) as exc:  # connected, then reset before any answer
            exchange.error = f"reset: {exc or type(exc).__name__}"
            reset(request)
            return web.Response()
        async with upstream:
            exchange.status = upstream.status
            exchange.response_headers = _lower(self.redactor.headers(dict(upstream.headers)))
            out_headers = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP_BY_HOP}
            response = web.StreamResponse(status=upstream.status, reason=upstream.reason, headers=out_headers)
            if request.method == "HEAD":
                response.content_length = 0
                await response.prepare(request)
                return response
            await response.prepare(request)
            pieces = upstream.content.iter_any().__aiter__()
            while True:
                try:
                    data = await pieces.__anext__()
                except StopAsyncIteration:
                    break
                except (aiohttp.ClientError, OSError) as exc:  # the agent meets the same broken stream
                    exchange.error = f"cut: {exc or type(exc).__name__}"
                    if request.transport is not None:
                        request.transport.close()  # mid-body, as the upstream left it
                    return response
                exchange.chunks.append((self.now(), data))
                try:
                    await response.write(data)
                except ConnectionError:
                    return response  # the agent left
            with contextlib.suppress(ConnectionError):
                await response.write_eof()
            return response

    def _url(self, path: str) -> str:
        prefix = urlsplit(self.upstream).path.rstrip("/")
        if prefix and path.startswith(prefix + "/"):
            path = path[len(prefix) :]  # `--upstream https://api.openai.com/v1` and a `/v1/...` request
        return self.upstream + path
