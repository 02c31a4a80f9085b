"""The REST/SSE server of simulation mode, on the caller's event loop (aiohttp), 127.0.0.1 by default.

Routes, under ``/api/v1``:

* ``GET /sessions``: every session object; ``POST /sessions`` (a JSON object,
  optionally ``{"scenario": NAME}``, sent as ``application/json`` or with no
  Content-Type; another type is a 415): a session to follow, ``201`` with its
  object (what the server's owner decides: a new playback in ``serve rest``,
  the run's own session in ``run --mode simulation``);
* ``GET /sessions/{id}``: ``status``, ``recent_events`` (the last 3, while
  active), ``changes`` (files changed, lines added and removed);
* ``GET /sessions/{id}/events``: an SSE stream (``id:`` the sequence number,
  ``event:`` the type, ``data:`` the JSON), history first then live events,
  each once; ``Last-Event-ID`` resumes after an id (204 when the session
  is finished and nothing is left, which stops a browser's reconnects). With ``Accept:
  application/json`` or ``page`` / ``perPage`` / ``sort``, a JSON listing
  ``{"items", "page", "perPage", "total"}`` instead. Filters: ``type``,
  ``level``, ``since``, ``until`` (see :mod:`workbench.rest.query`);
* ``GET /sessions/{id}/pty``: SSE ``event: pty`` frames of the session's
  terminal output (``terminal_resize`` first), 404 if it has none;
* ``GET /sessions/{id}/diff/{n}``: a truncated diff in full.

Streams send a ``: keep-alive`` comment when idle for ``keepalive_s``. Errors
are JSON ``{"error": {"status", "code", "message"}}`` with the HTTP status;
a bad request never stops the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web

from workbench.digits import is_digits
from workbench.httpguard import (
    BACKLOG,
    DEFAULT_LIMITS,
    BodyError,
    GuardedRunner,
    Limits,
    read_json,
    strict_json,
)

from .query import EventQuery, QueryError, parse_query
from .session import RestSession, Subscriber

API = "/api/v1"
KEEPALIVE_S = 15.0
MAX_BODY = 1024 * 1024

Creator = Callable[[Mapping[str, Any]], RestSession]
"""Makes (or picks) the session a `POST /sessions` asks for; raises LookupError / ValueError with a message."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


MAX_SESSIONS = 256
"""How many sessions the server keeps; beyond it the oldest finished ones go (live ones always stay), and
with this many live a `POST /sessions` is refused (429)."""


class RestServer:
    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, keepalive_s: float = KEEPALIVE_S,
                 creator: Creator | None = None, limits: Limits = DEFAULT_LIMITS) -> None:  # fmt: skip
        self.limits = limits
        self.host = host
        self.port = port
        self.keepalive_s = keepalive_s
        self.creator = creator
        self.sessions: dict[str, RestSession] = {}
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    def add(self, session: RestSession) -> RestSession:
        """Keep ``session``; past :data:`MAX_SESSIONS`, the oldest finished ones are let go (a client creating
        sessions for hours grew the server's memory, and every listing, without bound)."""
        self.sessions[session.id] = session
        if len(self.sessions) > MAX_SESSIONS:
            for sid in [sid for sid, kept in self.sessions.items() if kept.finished][
                : len(self.sessions) - MAX_SESSIONS
            ]:
                del self.sessions[sid]
        return session

    async def start(self) -> str:
        """Listen; return the API's base URL (``http://HOST:PORT/api/v1``)."""
        app = web.Application(client_max_size=MAX_BODY, middlewares=[_json_errors])
        app.on_response_prepare.append(_cross_origin)
        app.router.add_get(API, self._root)
        app.router.add_get(API + "/sessions", self._list)
        app.router.add_post(API + "/sessions", self._create)
        app.router.add_get(API + "/sessions/{id}", self._get)
        app.router.add_get(API + "/sessions/{id}/events", self._events)
        app.router.add_get(API + "/sessions/{id}/pty", self._pty)
        app.router.add_get(API + "/sessions/{id}/diff/{n}", self._diff)
        self._runner = GuardedRunner(app, _shape_error, self.limits, name="REST", shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True, backlog=BACKLOG)
        await site.start()
        server = site._server
        assert server is not None
        port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.base_url = f"http://{host}:{port}{API}"
        return self.base_url

    async def stop(self) -> None:
        for session in self.sessions.values():
            if not session.finished:
                session.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------------ routes

    def _session(self, request: web.Request) -> RestSession:
        sid = request.match_info["id"]
        session = self.sessions.get(sid)
        if session is None:
            known = ", ".join(sorted(self.sessions)) or "none"
            raise _error(web.HTTPNotFound, "session_not_found", f"no session {sid!r}; sessions: {known}")
        return session

    async def _root(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"service": "workbench simulation (mock agent service)",
                                  "sessions": sorted(self.sessions)})  # fmt: skip

    async def _list(self, request: web.Request) -> web.StreamResponse:
        items = [s.to_json() for s in self.sessions.values()]
        return web.json_response({"items": items, "total": len(items)})

    async def _create(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await read_json(request, MAX_BODY, self.limits, _json_or_empty, json_only=True)
        except BodyError as exc:
            return _error_response(
                exc.status, "invalid_json" if exc.status == 400 else _CODES[exc.status], exc.message
            )
        if not isinstance(body, dict):
            raise _error(web.HTTPBadRequest, "invalid_body", "the body must be a JSON object")
        if "scenario" in body and not isinstance(body["scenario"], str):
            raise _error(web.HTTPUnprocessableEntity, "invalid_field", "`scenario` must be a string (a name)")
        if self.creator is None:
            body_text = json.dumps({"error": {"status": 405, "code": "method_not_allowed",
                                              "message": "this server does not create sessions"}})  # fmt: skip
            raise web.HTTPMethodNotAllowed("POST", ["GET"], text=body_text, content_type="application/json")
        if (live := sum(not s.finished for s in self.sessions.values())) >= MAX_SESSIONS:
            raise _error(web.HTTPTooManyRequests, "too_many_sessions",
                         f"{live} sessions are live (at most {MAX_SESSIONS}): wait until one has finished")  # fmt: skip
        try:
            session = self.creator(body)
        except LookupError as exc:
            raise _error(
                web.HTTPNotFound, "scenario_not_found", str(exc.args[0] if exc.args else exc)
            ) from None
        except ValueError as exc:
            raise _error(web.HTTPUnprocessableEntity, "invalid_field", str(exc)) from None
        self.add(session)
        return web.json_response(session.to_json(), status=201)

    async def _get(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self._session(request).to_json())

    async def _events(self, request: web.Request) -> web.StreamResponse:
        session = self._session(request)
        query = _query(request)
        if query.paged or _wants_json(request):
            session.listed()
            return web.json_response(_listing(session, query))
        after = _last_event_id(request)
        if session.finished and after >= len(session.events):
            return web.Response(status=204)  # nothing more will come: what stops a browser's EventSource
        history, sub = session.subscribe(after)
        sub.transport = request.transport
        peer = request.transport.get_extra_info("peername") if request.transport is not None else None
        sub.peer = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) and len(peer) >= 2 else None
        return await self._stream(request, session, history, sub, query, "")

    async def _pty(self, request: web.Request) -> web.StreamResponse:
        session = self._session(request)
        if not session.has_pty:
            raise _error(web.HTTPNotFound, "no_terminal", f"session {session.id!r} has no terminal output")
        history, sub = session.subscribe_pty()
        return await self._stream(request, session, history, sub, None, "pty")

    async def _diff(self, request: web.Request) -> web.StreamResponse:
        session = self._session(request)
        n = request.match_info["n"]
        if not is_digits(n) or not 1 <= int(n) <= len(session.diffs):
            raise _error(web.HTTPNotFound, "diff_not_found", f"session {session.id!r} has no diff {n!r}")
        diff = session.diffs[int(n) - 1]
        return web.json_response({"path": diff.path, "oldText": diff.old_text, "newText": diff.new_text})

    # ------------------------------------------------------------------ streams

    async def _stream(self, request: web.Request, session: RestSession, history: list[tuple[int, dict[str, Any]]],
                      sub: Subscriber, query: EventQuery | None, name: str) -> web.StreamResponse:  # fmt: skip
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream; charset=utf-8",
                                               "Cache-Control": "no-cache", "X-Accel-Buffering": "no"})  # fmt: skip
        try:
            await response.prepare(request)
            for seq, event in history:
                await self._send(response, seq, event, query, name)
            session.delivered(sub, history[-1][0] if history else sub.sent)
            while True:
                try:
                    item = await asyncio.wait_for(sub.queue.get(), self.keepalive_s)
                except TimeoutError:
                    await response.write(b": keep-alive\n\n")
                    continue
                if item is None:
                    break
                seq, event = item
                await self._send(response, seq, event, query, name)
                session.delivered(sub, seq)
        except (ConnectionError, asyncio.CancelledError):
            pass  # the client left, or the server stops
        finally:
            session.unsubscribe(sub)
        with contextlib.suppress(ConnectionError, RuntimeError):
            await response.write_eof()
        return response

    @staticmethod
    async def _send(response: web.StreamResponse, seq: int, event: dict[str, Any], query: EventQuery | None,
                    name: str) -> None:  # fmt: skip
        if query is not None and not query.matches(event):
            return
        data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        await response.write(
            f"id: {seq}\nevent: {name or event.get('type', 'message')}\ndata: {data}\n\n".encode()
        )


def _query(request: web.Request) -> EventQuery:
    try:
        return parse_query(request.query)
    except QueryError as exc:
        raise _error(web.HTTPBadRequest, "invalid_query", str(exc)) from None


def _wants_json(request: web.Request) -> bool:
    accept = request.headers.get("Accept", "")
    return "application/json" in accept and "text/event-stream" not in accept


def _last_event_id(request: web.Request) -> int:
    value = request.headers.get("Last-Event-ID", "0").strip() or "0"
    if not is_digits(value):
        raise _error(web.HTTPBadRequest, "invalid_header", f"Last-Event-ID must be a number, got {value!r}")
    return int(value)


def _listing(session: RestSession, query: EventQuery) -> dict[str, Any]:
    items = [e for e in session.events if query.matches(e)]
    if query.descending:
        items.reverse()
    start = (query.page - 1) * query.per_page
    return {"items": items[start : start + query.per_page], "page": query.page, "perPage": query.per_page,
            "total": len(items)}  # fmt: skip


def _error(cls: type[web.HTTPException], code: str, message: str) -> web.HTTPException:
    body = json.dumps({"error": {"status": cls.status_code, "code": code, "message": message}})
    return cls(text=body, content_type="application/json")


_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    413: "too_large",
    415: "unsupported_media_type",
    429: "too_many_sessions",
}


def _json_or_empty(raw: bytes) -> Any:
    """The body as JSON (no NaN, no Infinity); an empty body is an empty object."""
    return strict_json(raw) if raw.strip() else {}


def _error_response(status: int, code: str, message: str) -> web.Response:
    body = json.dumps({"error": {"status": status, "code": code, "message": message}})
    return web.Response(status=status, text=body, content_type="application/json")


def _shape_error(method: str, path: str, headers: dict[str, str], status: int, message: str) -> web.Response:
    """A request aiohttp's parser rejected, in this API's error shape."""
    return _error_response(status, _CODES.get(status, "bad_request"), message)


CORS = {"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
        "Access-Control-Allow-Headers": "Content-Type, Accept, Last-Event-ID", "Access-Control-Max-Age": "600"}  # fmt: skip
"""Any origin may call the mock: a web front-end's dev server is another origin (another port), and the mock
holds nothing a page of another site should not read (its sessions are a scenario's, on loopback)."""


async def _cross_origin(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer, streams included, carries the CORS headers (before its head is sent)."""
    response.headers.update(CORS)


async def _no_route(request: web.Request) -> str:
    """What a path no route matches should have been: itself without a trailing slash, else the routes."""
    trimmed = request.path.rstrip("/")
    if trimmed != request.path and trimmed:
        with contextlib.suppress(ValueError):  # a path yarl will not take back: no hint, the routes below
            match = await request.app.router.resolve(request.clone(rel_url=trimmed))
            if match.http_exception is None or match.http_exception.status != 404:
                return f"no such route; without the trailing slash: {trimmed}"
    methods: dict[str, list[str]] = {}
    for route in request.app.router.routes():
        if route.method != "HEAD":
            methods.setdefault(route.resource.canonical if route.resource else "", []).append(route.method)
    routes = ", ".join(f"{'|'.join(m)} {path}" for path, m in methods.items())
    return f"no such route; the routes are {routes}"


@web.middleware
async def _json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every error is JSON with its status, including aiohttp's own (unknown path, wrong method, too large);
    a browser's CORS preflight (``OPTIONS`` before a JSON ``POST``) is allowed, with nothing in the body."""
    if request.method == "OPTIONS":
        return web.Response(status=204)
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.content_type == "application/json" or exc.status < 400:
            raise
        code = _CODES.get(exc.status, "bad_request")
        message = f"{request.method} {request.path}: {exc.reason}"
        if exc.status == 404:
            message = f"{request.method} {request.path}: {await _no_route(request)}"
        body = json.dumps({"error": {"status": exc.status, "code": code, "message": message}})
        return web.Response(status=exc.status, text=body, content_type="application/json",
                            headers={k: v for k, v in exc.headers.items() if k == "Allow"})  # fmt: skip
