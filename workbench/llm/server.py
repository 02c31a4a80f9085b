"""The mock LLM API server: real agents talk to it as they would to the model.

It runs on the caller's asyncio loop (the engine's, or its own in
``workbench serve llm``), binds 127.0.0.1 on a free port unless told otherwise,
and serves every route of every registered API style
(:data:`~workbench.llm.wire.WIRES`: Anthropic Messages, OpenAI Chat Completions
and Responses, Google Gemini), plus `HEAD /` and `GET /` (Claude Code's
connectivity preflight). Where several styles share a path (`GET /v1/models`),
the one the request's headers point to answers.

Each request is parsed into one shape (:mod:`.conversation`); side requests are
answered on the spot without consuming the scenario (:mod:`.structured`, and the
rule that a tool-less request without assistant history, in a session that has
offered tools, is one); every other request goes to its session's responder
(:mod:`.sessions`, :mod:`.responders`), whose reply is shaped for the style, cut
at ``max_tokens`` and sent, paced at the scenario's timing divided by the speed
(None: no waiting). A request that offers no tools never receives a tool call.

Bad input of any kind (not JSON, nested too deeply, lone surrogates, values the
real API rejects, bodies over 32 MB or slower than the body timeout,
unknown paths, parser-level garbage, clients leaving mid-stream) gets the
style's own error shape or a clean close; the server keeps serving
(:mod:`workbench.httpguard`, shared with `serve rest`, holds the
connection-level defences).

Every request, served or not, is a line of ``llm-requests.jsonl`` when the
server has an ``out_dir``; a request to a path nothing serves is a failure
naming it. What went wrong is in :attr:`LlmServer.failures` (each with the
scenario line that scripted it); informational notes are in
:attr:`LlmServer.notes`.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import itertools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from aiohttp import web

from workbench.httpguard import (
    BACKLOG,
    DEFAULT_LIMITS,
    BodyError,
    GuardedRunner,
    Limits,
    read_body,
    read_json,
)
from workbench.scenario import model as m
from workbench.timeline import compile_schedule

from . import offload
from .agents import detect_profile, profile_by_names, tool_profiles
from .checks import LlmFailure, ServerKind
from .conversation import ChatRequest
from .drift import DriftCheck
from .faults import inject_wire
from .ids import IdMaker
from .profiles import GENERIC, MapContext, ToolProfile
from .recorder import LOG_FILE, RequestLog, RequestRecorder, summary
from .reply import ApiError, Reply, ToolCallBlock, limit_tokens, text_reply
from .responders import AssertHook, Hooks, PromptHook, Responder, StepHook, TurnContext
from .responders.rules import RulesResponder
from .responders.timeline import TimelineResponder
from .sessions import SelectionError, Session, SessionStore
from .sse import Pacer
from .structured import forced_call, title_from
from .wire import WIRES, Output, Route, Wire, WireError, add_routes, wire_for
from .wire.common import json_response

log = logging.getLogger(__name__)
# What this logs is `serve llm`'s output (it configures logging); in a run, every failure is the run's own,
# in its report and summary, so without a configured handler nothing is printed (Python's last resort
# printed each warning to stderr a second time, interleaved across `-j` workers).
log.addHandler(logging.NullHandler())

MAX_BODY = 32 * 1024 * 1024
THREAD_PARSE_BYTES = 1024 * 1024  # after a body above this, freed memory is handed back to the system
MODEL_IDS = ("mock-model",)
UNSERVED_NAMED = 20  # paths nothing serves, each named as a failure; past them one more failure says so

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class LlmServer:
    """A mock LLM API serving one or more scenarios; see the module docstring.

    * ``speed``: scenario milliseconds are divided by it; None never waits.
    * ``strict_tools``: refuse (HTTP 400, the style's shape, a ``tool`` failure)
      a request whose tool definitions differ from the agent's profile; without
      it the difference is a note. Either way the request is saved under
      ``out_dir/agent-requests/`` when ``out_dir`` is given, next to the request
      log ``out_dir/llm-requests.jsonl``.
    * ``workspace``: where ``assert`` fs/json/git checks look, and the base for
      absolute tool paths when the agent's prompt does not state its directory.
    * ``on_assert(step)``: the engine's verdict on an ``assert``/``assertGit``
      step (sync or async, returns :class:`LlmFailure` items); ``text.contains``
      is only checked through it.
    * ``on_step(step)``: called for every non-agent step as the timeline passes
      it (before the next reply is sent; not for a request with no reply left,
      which is answered at once).
    * ``on_prompt(step, prompt, holds)``: a request reached the input ``step`` with the agent's own
      prompt (``holds``: it holds what the step types), before the step's hook.
    * ``profile``: force a tool profile (`claude-code`, `codex`, `pi`,
      `generic`) instead of detecting it from each request's tools.
    * ``limits``: header, body and idle timeouts and the connection limit
      (:class:`~workbench.httpguard.Limits`).
    * ``drift``: compare each conversation request with the recorded ones (:mod:`.drift`); what
      changed is in its :meth:`~.drift.DriftCheck.report`.
    * ``on_request(entry)``: sees every request-log entry as it is made (the
      `-v` lines of `workbench serve llm`), with or without ``out_dir``.

    Scenarios whose timeline does not compile raise
    :class:`~workbench.scenario.diagnostics.ScenarioError` here.
    """

    def __init__(
        self,
        scenarios: Sequence[m.Scenario],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        speed: float | None = None,
        strict_tools: bool = False,
        out_dir: Path | None = None,
        workspace: Path | None = None,
        on_assert: AssertHook | None = None,
        on_step: StepHook | None = None,
        on_prompt: PromptHook | None = None,
        profile: ToolProfile | None = None,
        on_request: Callable[[RequestLog], None] | None = None,
        wires: Sequence[Wire] = WIRES,
        limits: Limits = DEFAULT_LIMITS,
        drift: DriftCheck | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.speed = speed
        self.strict_tools = strict_tools
        self.out_dir = out_dir
        self.hooks = Hooks(workspace, on_assert, on_step, on_prompt)
        self.profile = profile
        self.failures: list[LlmFailure] = []
        self.fatal: LlmFailure | None = None  # the failure that ends the run at once (see LlmFailure.fatal)
        self.notes: list[LlmFailure] = []
        self.wires = tuple(wires)
        self.limits = limits
        self._schedules = {id(s): compile_schedule(s) for s in scenarios if s.rules is None}
        self._store = SessionStore(scenarios, self._make_responder)
        self._pacer = Pacer(speed)
        self._runner: web.AppRunner | None = None
        self._offload_pool: ProcessPoolExecutor | None = None
        self._site_port = 0
        self._seq = itertools.count(1)
        self._models = set(MODEL_IDS)
        self._saved: set[tuple[str, str]] = set()
        self._unserved: set[tuple[str, str]] = set()
        self._changed: asyncio.Condition | None = None
        self._side_ids = IdMaker("side-requests")
        self._recorder = RequestRecorder(out_dir, on_request)
        self.drift = drift

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> str:
        """Bind and serve on the running loop; return the base URL."""
        self._changed = asyncio.Condition()
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._errors])
        add_routes(app.router, self.wires, self._route)
        app.router.add_get("/", self._root)
        self._runner = GuardedRunner(app, self._shape_error, self.limits, name="mock LLM")
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True, backlog=BACKLOG)
        await site.start()
        addresses = self._runner.addresses
        self._site_port = int(addresses[0][1]) if addresses else self.port
        return self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._offload_pool is not None:
            pool, self._offload_pool = self._offload_pool, None
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)

    def _offload(self) -> ProcessPoolExecutor:
        """This server's worker processes for large bodies (:mod:`.offload`), started on first use."""
        if self._offload_pool is None:
            self._offload_pool = offload.new_pool()
        return self._offload_pool

    async def finish(self) -> list[LlmFailure]:
        """End every session: check final asserts, report replies never asked for.
        Returns the failures this added."""
        before = len(self.failures)
        for session in list(self._store.sessions.values()):
            async with session.lock:
                await session.responder.finish()
                session.served = session.responder.position()
        await self._notify()
        return self.failures[before:]

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self._site_port}"

    @property
    def sessions(self) -> list[Session]:
        return list(self._store.sessions.values())

    def position(self) -> int:
        """The furthest schedule step any session has played (-1 before any)."""
        return max((s.served for s in self._store.sessions.values()), default=-1)

    async def wait_step(self, index: int, timeout: float | None = None) -> bool:
        """Wait until a session has played schedule step ``index``; False on timeout.

        The steps of a reply (its text and its tool calls) count as played once
        the reply went out in full; the steps between two replies once the next
        request passed them. The engine waits on the last agent step before a
        screenshot, then lets the terminal settle."""
        assert self._changed is not None, "start() the server first"
        changed = self._changed

        async def reached() -> None:
            async with changed:
                await changed.wait_for(lambda: self.position() >= index)

        try:
            await asyncio.wait_for(reached(), timeout)
        except TimeoutError:
            return False
        return True

    # ------------------------------------------------------------------ sessions

    def _make_responder(self, scenario: m.Scenario, label: str) -> Responder:
        def record(failure: LlmFailure) -> None:
            failure = replace(failure, session=label, file=failure.file or scenario.file)
            (self.notes if failure.kind == "note" else self.failures).append(failure)
            if failure.fatal and self.fatal is None:
                self.fatal = failure
            if failure.kind != "note":
                log.warning("%s", failure)

        if scenario.rules is not None:
            return RulesResponder(scenario, scenario.rules, record)
        return TimelineResponder(self._schedules[id(scenario)], record, self.hooks)

    async def _notify(self) -> None:
        if self._changed is not None:
            async with self._changed:
                self._changed.notify_all()

    # ------------------------------------------------------------------ routes

    async def _route(
        self, request: web.Request, wire: Wire, route: Route, params: dict[str, str]
    ) -> web.StreamResponse:
        """One request on a wire's route, by the route's kind."""
        if route.kind == "turn":
            return await self._serve(request, wire, params)
        if route.kind == "count":
            return await self._count_tokens(request, wire, params)
        self._log_other(request, wire, "models")
        if route.kind == "models":
            return json_response(wire.models_body(self._model_ids()))
        return json_response(wire.model_body(params.get("model", "")))

    async def _root(self, request: web.Request) -> web.StreamResponse:
        self._log_other(request, None, "ok")
        names = [s.name for s in self._store.scenarios]
        return web.json_response({"status": "ok", "service": "workbench mock LLM API", "scenarios": names})

    async def _count_tokens(
        self, request: web.Request, wire: Wire, params: Mapping[str, str]
    ) -> web.StreamResponse:
        try:
            body = wire.count_tokens(await self._json(request), params)
        except WireError as exc:
            return self._error(wire, wire.error(exc.status, exc.message))
        self._log_other(request, wire, "count tokens")
        return json_response(body)

    def _model_ids(self) -> list[str]:
        models = set(self._models)
        for scenario in self._store.scenarios:
            if scenario.rules is not None and isinstance(scenario.rules.identity.get("model"), str):
                models.add(scenario.rules.identity["model"])
        return sorted(models)

    # ------------------------------------------------------------------ errors

    def _error(self, wire: Wire, error: ApiError, headers: dict[str, str] | None = None) -> web.Response:
        headers = dict(headers or {})
        request_id = headers.get(wire.request_id_header) or "req_mock"
        if error.retry_after is not None:
            headers["retry-after"] = str(error.retry_after)
        return web.Response(
            status=error.status,
            text=json.dumps(wire.error_body(error, request_id)),  # ASCII: safe whatever the message holds
            content_type="application/json",
            headers=headers,
        )

    def _shape_error(
        self, method: str, path: str, headers: dict[str, str], status: int, message: str
    ) -> web.Response:
        """An error for a request aiohttp's parser rejected, in the shape its path suggests."""
        wire = wire_for(path, headers, self.wires)
        self._recorder.log_raw(next(self._seq), method, path, wire.style, f"error {status}: {message[:200]}")
        return self._error(wire, wire.error(status, message))

    @web.middleware
    async def _errors(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        wire = wire_for(request.path, request.headers, self.wires)
        bad = _undecodable_header(request)
        if bad is not None:
            self._log_other(request, wire, f"error 400: header {bad} is not UTF-8")
            return self._error(wire, wire.error(400, f"the {bad} header is not valid UTF-8"))
        try:
            return await handler(request)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            return self._http_error(request, wire, exc.status)
        except ConnectionError:
            return web.Response()  # the client left; nothing to answer
        except RecursionError:
            return self._error(wire, wire.error(400, "the request is nested too deeply"))
        except Exception as exc:  # a bug must not take the server down with it
            log.exception("mock LLM: internal error on %s %s", request.method, request.path)
            return self._error(wire, wire.error(500, f"internal error in the mock LLM server: {exc}"))

    def _http_error(self, request: web.Request, wire: Wire, status: int) -> web.Response:
        if status == 404:
            message = f"Invalid URL ({request.method} {request.path})"
            self._unknown_path(request, wire)
        elif status == 413:
            message = f"Request exceeds the maximum allowed size of {MAX_BODY // (1024 * 1024)} MB"
        elif status == 405:
            message = f"Method {request.method} is not allowed on {request.path}"
        else:
            message = f"HTTP {status}"
        if status != 404:
            self._log_other(request, wire, f"error {status}")
        return self._error(wire, wire.error(status, message))

    def _unknown_path(self, request: web.Request, wire: Wire) -> None:
        """A path nothing serves: logged, and a failure naming it (once per method and path)."""
        self._log_other(request, wire, "error 404: no such path")
        key = (request.method, request.path)
        if key in self._unserved or len(self._unserved) > UNSERVED_NAMED:
            return
        self._unserved.add(key)
        where = f"; see {self.out_dir / LOG_FILE}" if self.out_dir is not None else ""
        if (
            len(self._unserved) > UNSERVED_NAMED
        ):  # a scanner's thousands of paths: named no more, kept no more
            message = (f"the agent called more paths the mock LLM server does not serve; the first "
                       f"{UNSERVED_NAMED} are named above, the others only counted in the request log{where}")  # fmt: skip
        else:
            message = (f"the agent called {request.method} {request.path}, which the mock LLM server does not "
                       f"serve (it looks like the {wire.style} API){where}")  # fmt: skip
        file = self._store.scenarios[0].file if len(self._store.scenarios) == 1 else ""
        self.failures.append(LlmFailure("expect", message, 0, 0, file))
        log.warning("%s", message)

    def _log_other(self, request: web.Request, wire: Wire | None, outcome: str) -> None:
        self._recorder.log_request(request, next(self._seq), wire.style if wire else None, outcome)

    # ------------------------------------------------------------------ one request

    async def _json(self, request: web.Request) -> Any:
        try:
            return await read_json(request, MAX_BODY, self.limits, offload.decode)
        except BodyError as exc:
            raise WireError(exc.message, status=exc.status) from None

    async def _raw(self, request: web.Request) -> bytes:
        try:
            return await read_body(request, MAX_BODY, self.limits)
        except BodyError as exc:
            raise WireError(exc.message, status=exc.status) from None

    async def _serve(self, request: web.Request, wire: Wire, params: Mapping[str, str]) -> web.StreamResponse:
        try:
            return await self._serve_one(request, wire, params)
        finally:
            if (request.content_length or 0) > THREAD_PARSE_BYTES:
                await asyncio.to_thread(
                    release_memory
                )  # a 10 MB prompt leaves RSS where it started, not 100 MB up

    async def _serve_one(
        self, request: web.Request, wire: Wire, params: Mapping[str, str]
    ) -> web.StreamResponse:
        seq = next(self._seq)
        request_id = f"req_mock_{seq:06d}"
        headers = {wire.request_id_header: request_id}
        try:
            if (request.content_length or 0) > offload.PROCESS_BYTES and offload.offloadable(wire):
                raw = await self._raw(request)  # work that grows with the body: in a worker process
                chat, side = await offload.understood(self._offload(), wire.style, raw, params)
            else:
                chat, side = offload.understand(wire, await self._json(request), params)
        except WireError as exc:
            self._recorder.log_request(request, seq, wire.style, f"error {exc.status}: {exc.message[:200]}")
            return self._error(wire, wire.error(exc.status, exc.message), headers)
        if len(chat.model) <= 200:
            self._models.add(chat.model)
        out = Output(self._pacer, self._side_ids, headers, int(time.time()))
        if side is not None:
            return await self._side(request, wire, chat, side.kind, text_reply(side.text), out, seq, None)
        try:
            session = await self._store.get(request.headers, chat, request.query)
        except SelectionError as exc:
            self._recorder.log(request, seq, chat, None, None, f"error 404: {exc}")
            return self._error(wire, wire.error(404, str(exc)), headers)
        if not chat.tools and session.saw_tools and not chat.has_model_history():
            # a router, summariser or title writer beside a conversation that offers tools
            return await self._side(
                request, wire, chat, "tool-less", text_reply(title_from(chat)), out, seq, session
            )
        forced = chat.forced_tool
        if forced is not None and forced not in self._sent_as(
            chat, session, self.profile or detect_profile(chat.tools)
        ):
            # structured output through a tool the scenario never calls (a title, a verdict): a side request
            return await self._side(request, wire, chat, f"forced tool {forced}", forced_call(wire, chat, forced, out),
                                    out, seq, session)  # fmt: skip
        session.saw_tools = session.saw_tools or bool(chat.tools)
        async with session.lock:
            session.requests += 1
            out.ids = session.ids
            response = await self._turn(request, wire, chat, session, out, seq)
            session.served = session.responder.position()  # only now is the reply on the wire
        await self._notify()
        return response

    async def _side(
        self,
        request: web.Request,
        wire: Wire,
        chat: ChatRequest,
        kind: str,
        reply: Reply,
        out: Output,
        seq: int,
        session: Session | None,
    ) -> web.StreamResponse:
        """Answer a request that is not a turn of the scenario (see :mod:`.structured`) at once, consuming nothing."""
        key, name = (session.key, session.scenario.name) if session else (None, None)
        self._recorder.log(request, seq, chat, key, name, f"side request ({kind})")
        out.pacer = Pacer(None)
        return await self._send(request, wire, chat, reply, out)

    async def _turn(
        self, request: web.Request, wire: Wire, chat: ChatRequest, session: Session, out: Output, seq: int
    ) -> web.StreamResponse:
        profile = self.profile or detect_profile(chat.tools)
        named = self.profile or profile_by_names(chat.tool_names)
        refusal = self._check_tools(request, wire, chat, session, named)
        if refusal is not None:
            self._recorder.log(
                request, seq, chat, session.key, session.scenario.name, "refused: tools differ"
            )
            return self._error(wire, refusal, out.headers)
        if self.drift is not None:
            self.drift.check(chat, request.path)
        ctx = TurnContext(chat, session.ids, profile, session.key, workspace=self.hooks.workspace, wire=wire)
        reply = await session.responder.respond(ctx)
        if reply.tool_calls and not chat.callable:  # a request that offers or allows no tools gets no call
            names = ", ".join(c.name for c in reply.tool_calls)
            ctx.notes.append(
                f"the request offered or allowed no tools: the reply's calls ({names}) were left out"
            )
            reply = replace(reply, blocks=tuple(b for b in reply.blocks if not isinstance(b, ToolCallBlock)))
        for note in dict.fromkeys(ctx.notes):
            self.notes.append(LlmFailure("note", note, 0, 0, session.scenario.file, session.key))
        self._recorder.log(
            request,
            seq,
            chat,
            session.key,
            session.scenario.name,
            ctx.outcome(summary(reply)),
            list(dict.fromkeys(ctx.notes)),
        )
        if reply.inject is not None:
            await out.pacer.wait(reply.delay_ms)
            error = wire.failure_error(reply.inject)
            if error is not None:
                return self._error(wire, error, out.headers)
            return await inject_wire(request, reply.inject, wire, chat, out)
        if reply.error is not None:
            return self._error(wire, reply.error, out.headers)
        return await self._send(
            request, wire, chat, limit_tokens(wire.shape(reply, chat), chat.max_tokens), out
        )

    async def _send(
        self, request: web.Request, wire: Wire, chat: ChatRequest, reply: Reply, out: Output
    ) -> web.StreamResponse:
        try:
            if not chat.stream:
                await out.pacer.wait(reply.total_delay_ms())
                return json_response(wire.body(chat, reply, out), headers=out.headers)
            return await wire.send(request, chat, reply, out)
        except ConnectionError:
            log.info("mock LLM: the client left during the reply to %s", request.path)
            return web.Response()

    # ------------------------------------------------------------------ tool profiles

    @staticmethod
    def _sent_as(chat: ChatRequest, session: Session, profile: ToolProfile) -> set[str]:
        """The offered tools the scenario's tool calls go out as, under ``profile``."""
        ctx = MapContext({t.name: t for t in chat.tools}, chat.agent_cwd())
        return {profile.map(name, args, ctx)[0].name for name, args in session.responder.tool_uses()}

    def _check_tools(
        self, request: web.Request, wire: Wire, chat: ChatRequest, session: Session, profile: ToolProfile
    ) -> ApiError | None:
        if not chat.tools:
            return None
        needed = self._sent_as(chat, session, profile)
        if profile is GENERIC:
            if not self.strict_tools:
                return None
            known = ", ".join(name for name in tool_profiles() if name != GENERIC.name)
            lines = [f"no tool profile matches the offered tools ({', '.join(chat.tool_names)}); "
                     f"strict mode needs one of {known}"]  # fmt: skip
        else:
            lines = profile.diff(chat.tools, needed)
        if not lines or (not self.strict_tools and (session.key, profile.name) in self._saved):
            return None
        self._saved.add((session.key, profile.name))
        saved = self._recorder.save(request, chat, profile.name, session.key, session.requests)
        where = f" (request saved to {saved})" if saved else ""
        message = (
            f"the request's tool definitions differ from the {profile.name} tool profile{where}:\n"
            + "\n".join(lines)
        )
        kind: ServerKind = "tool" if self.strict_tools else "note"
        failure = LlmFailure(kind, message, 0, 0, session.scenario.file, session.key)
        if self.strict_tools:
            self.failures.append(failure)
            return replace(wire.error(400, message), code="tools_mismatch")
        self.notes.append(failure)
        return None


def release_memory() -> None:
    """Give freed memory back to the system: collect cycles, then ask glibc to trim its
    heaps (a large body leaves megabytes of freed chunks it would otherwise keep)."""
    gc.collect(1)  # the young generations: a full collection holds the interpreter lock for tens of ms
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _libc()


def _undecodable_header(request: web.Request) -> str | None:
    """The name of a header whose value is not UTF-8 (aiohttp keeps such bytes as surrogates)."""
    for name, value in request.headers.items():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return name.encode("ascii", "replace").decode()
    return None
