"""The mock LLM API server: real agents talk to it as they would to the model.

It runs on the caller's asyncio loop (the engine's, or its own in
``workbench serve llm``), binds 127.0.0.1 on a free port unless told otherwise,
and speaks three API styles on their usual paths, with or without `/v1`:

* Anthropic Messages: `POST /v1/messages` (query strings such as `?beta=true`
  are ignored), `POST /v1/messages/count_tokens`;
* OpenAI Chat Completions: `POST /v1/chat/completions`;
* OpenAI Responses: `POST /v1/responses`;
* `GET /v1/models` in the Anthropic shape when the request carries
  `anthropic-version` or `x-api-key`, else in the OpenAI shape; `HEAD /` and
  `GET /` answer 200 (Claude Code's connectivity preflight).

Each request is parsed into one shape (:mod:`.conversation`); side requests
(session titles, structured output) are answered on the spot
(:mod:`.structured`); every other request goes to its session's responder
(:mod:`.sessions`, :mod:`.responders`), whose reply is shaped for the style,
cut at ``max_tokens`` and sent, paced at the scenario's timing divided by the
speed (None: no waiting). Bad input of any kind (not JSON, wrong types, bodies
over 32 MB, unknown paths, clients leaving mid-stream) gets the style's own
error shape or a clean close; the server keeps serving.

What went wrong is in :attr:`LlmServer.failures` (each with the scenario line
that scripted it); informational notes (skipped checks, unmapped tools) are in
:attr:`LlmServer.notes`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from aiohttp import web

from workbench.scenario import model as m
from workbench.timeline import compile_schedule

from .checks import LlmFailure
from .conversation import ChatRequest
from .failures import api_error, inject_wire
from .ids import IdMaker
from .profiles import MapContext, ToolProfile, detect_profile, profile_named
from .recorder import RequestRecorder, summary
from .reply import ApiError, Reply, limit_tokens, shape, text_reply
from .responders import AssertHook, Hooks, Responder, StepHook, TurnContext
from .responders.rules import RulesResponder
from .responders.timeline import TimelineResponder
from .sessions import SelectionError, Session, SessionStore
from .sse import Pacer, dumps
from .structured import side_request
from .wire import AnthropicWire, ChatWire, Output, ResponsesWire, Wire, WireError
from .wire.anthropic import count_tokens
from .wire.common import json_response

log = logging.getLogger(__name__)

MAX_BODY = 32 * 1024 * 1024
MODEL_IDS = ("mock-model",)

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
      it (before the next reply is sent).
    * ``profile``: force a tool profile (`claude-code`, `codex`, `pi`,
      `generic`) instead of detecting it from each request's tools.

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
        profile: str | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.speed = speed
        self.strict_tools = strict_tools
        self.out_dir = out_dir
        self.hooks = Hooks(workspace, on_assert, on_step)
        self.profile: ToolProfile | None = profile_named(profile) if profile else None
        self.failures: list[LlmFailure] = []
        self.notes: list[LlmFailure] = []
        self._schedules = {id(s): compile_schedule(s) for s in scenarios if s.rules is None}
        self._store = SessionStore(scenarios, self._make_responder)
        self._wires: dict[str, Wire] = {
            "anthropic": AnthropicWire(),
            "chat": ChatWire(),
            "responses": ResponsesWire(),
        }
        self._pacer = Pacer(speed)
        self._runner: web.AppRunner | None = None
        self._site_port = 0
        self._seq = itertools.count(1)
        self._models = set(MODEL_IDS)
        self._saved: set[tuple[str, str]] = set()
        self._changed: asyncio.Condition | None = None
        self._side_ids = IdMaker("side-requests")
        self._recorder = RequestRecorder(out_dir)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> str:
        """Bind and serve on the running loop; return the base URL."""
        self._changed = asyncio.Condition()
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._errors])
        for prefix in ("/v1", ""):
            app.router.add_post(prefix + "/messages", self._anthropic)
            app.router.add_post(prefix + "/messages/count_tokens", self._count_tokens)
            app.router.add_post(prefix + "/chat/completions", self._chat)
            app.router.add_post(prefix + "/responses", self._responses)
            app.router.add_get(prefix + "/models", self._list_models)
            app.router.add_get(prefix + "/models/{model}", self._get_model)
        app.router.add_get("/", self._root)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True)
        await site.start()
        addresses = self._runner.addresses
        self._site_port = int(addresses[0][1]) if addresses else self.port
        return self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

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

    async def _root(self, request: web.Request) -> web.StreamResponse:
        names = [s.name for s in self._store.scenarios]
        return web.json_response({"status": "ok", "service": "workbench mock LLM API", "scenarios": names})

    async def _anthropic(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, self._wires["anthropic"])

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, self._wires["chat"])

    async def _responses(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, self._wires["responses"])

    async def _count_tokens(self, request: web.Request) -> web.StreamResponse:
        wire = self._wires["anthropic"]
        try:
            body = count_tokens(await self._json(request))
        except WireError as exc:
            return self._error(wire, ApiError(400, "invalid_request_error", exc.message))
        return web.json_response(body)

    def _model_ids(self) -> list[str]:
        models = set(self._models)
        for scenario in self._store.scenarios:
            if scenario.rules is not None and isinstance(scenario.rules.identity.get("model"), str):
                models.add(scenario.rules.identity["model"])
        return sorted(models)

    def _anthropic_style(self, request: web.Request) -> bool:
        h = request.headers
        return "anthropic-version" in h or "x-api-key" in h or "/messages" in request.path

    def _model_entry(self, request: web.Request, model: str) -> dict[str, Any]:
        if self._anthropic_style(request):
            return {"type": "model", "id": model, "display_name": model, "created_at": "2025-01-01T00:00:00Z"}
        return {"id": model, "object": "model", "created": 1735689600, "owned_by": "workbench"}

    async def _list_models(self, request: web.Request) -> web.StreamResponse:
        ids = self._model_ids()
        data = [self._model_entry(request, i) for i in ids]
        if self._anthropic_style(request):
            return web.json_response(
                {"data": data, "has_more": False, "first_id": ids[0], "last_id": ids[-1]}
            )
        return web.json_response({"object": "list", "data": data})

    async def _get_model(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self._model_entry(request, request.match_info["model"]))

    # ------------------------------------------------------------------ errors

    def _style_for(self, request: web.Request) -> Wire:
        """The API a request meant, for its error shape: by path, else by headers."""
        path = request.path.rstrip("/")
        if path.endswith("/responses"):
            return self._wires["responses"]
        if path.endswith("/chat/completions"):
            return self._wires["chat"]
        return self._wires["anthropic" if self._anthropic_style(request) else "chat"]

    def _error(self, wire: Wire, error: ApiError, headers: dict[str, str] | None = None) -> web.Response:
        headers = dict(headers or {})
        request_id = headers.get("request-id") or headers.get("x-request-id") or "req_mock"
        if error.retry_after is not None:
            headers["retry-after"] = str(error.retry_after)
        return web.Response(
            status=error.status,
            text=dumps(wire.error_body(error, request_id)),
            content_type="application/json",
            headers=headers,
        )

    @web.middleware
    async def _errors(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            return await handler(request)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            return self._http_error(request, exc.status)
        except ConnectionError:
            return web.Response()  # the client left; nothing to answer
        except Exception as exc:  # a bug must not take the server down with it
            log.exception("mock LLM: internal error on %s %s", request.method, request.path)
            wire = self._style_for(request)
            kind = "api_error" if wire.style == "anthropic" else "server_error"
            return self._error(wire, ApiError(500, kind, f"internal error in the mock LLM server: {exc}"))

    def _http_error(self, request: web.Request, status: int) -> web.Response:
        wire = self._style_for(request)
        anthropic = wire.style == "anthropic"
        if status == 404:
            error = ApiError(404, "not_found_error" if anthropic else "invalid_request_error",
                             f"Invalid URL ({request.method} {request.path})")  # fmt: skip
        elif status == 413:
            error = ApiError(413, "request_too_large" if anthropic else "invalid_request_error",
                             f"Request exceeds the maximum allowed size of {MAX_BODY // (1024 * 1024)} MB")  # fmt: skip
        elif status == 405:
            error = ApiError(
                405, "invalid_request_error", f"Method {request.method} is not allowed on {request.path}"
            )
        else:
            error = ApiError(status, "invalid_request_error", f"HTTP {status}")
        return self._error(wire, error)

    # ------------------------------------------------------------------ one request

    async def _json(self, request: web.Request) -> Any:
        raw = await request.read()
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise WireError(f"the request body is not valid JSON: {exc}") from None

    async def _serve(self, request: web.Request, wire: Wire) -> web.StreamResponse:
        seq = next(self._seq)
        request_id = f"req_mock_{seq:06d}"
        headers = {"request-id" if wire.style == "anthropic" else "x-request-id": request_id}
        try:
            body = await self._json(request)
            chat = wire.parse(body)
        except WireError as exc:
            return self._error(wire, ApiError(400, "invalid_request_error", exc.message), headers)
        self._models.add(chat.model)
        out = Output(self._pacer, self._side_ids, headers, int(time.time()))
        side = side_request(chat)
        if side is not None:
            self._recorder.log(request, seq, chat, None, None, f"side request ({side.kind})")
            out.pacer = Pacer(None)
            return await self._send(request, wire, chat, text_reply(side.text), out)
        try:
            session = self._store.get(request.headers, chat)
        except SelectionError as exc:
            kind = "not_found_error" if wire.style == "anthropic" else "invalid_request_error"
            return self._error(wire, ApiError(404, kind, str(exc)), headers)
        async with session.lock:
            session.requests += 1
            out.ids = session.ids
            response = await self._turn(request, wire, chat, session, out, seq)
            session.served = session.responder.position()  # only now is the reply on the wire
        await self._notify()
        return response

    async def _turn(
        self, request: web.Request, wire: Wire, chat: ChatRequest, session: Session, out: Output, seq: int
    ) -> web.StreamResponse:
        profile = self.profile or detect_profile(chat.tool_names)
        refusal = self._check_tools(request, chat, session, profile)
        if refusal is not None:
            self._recorder.log(
                request, seq, chat, session.key, session.scenario.name, "refused: tools differ"
            )
            return self._error(wire, refusal, out.headers)
        ctx = TurnContext(chat, session.ids, profile, session.key, workspace=self.hooks.workspace)
        reply = await session.responder.respond(ctx)
        for note in dict.fromkeys(ctx.notes):
            self.notes.append(LlmFailure("note", note, 0, 0, session.scenario.file, session.key))
        self._recorder.log(request, seq, chat, session.key, session.scenario.name, summary(reply))
        if reply.inject is not None:
            await out.pacer.wait(reply.delay_ms)
            error = api_error(reply.inject, wire.style)
            if error is not None:
                return self._error(wire, error, out.headers)
            return await inject_wire(request, reply.inject, wire, chat, out)
        if reply.error is not None:
            return self._error(wire, reply.error, out.headers)
        return await self._send(request, wire, chat, limit_tokens(shape(reply, chat), chat.max_tokens), out)

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

    def _check_tools(
        self, request: web.Request, chat: ChatRequest, session: Session, profile: ToolProfile
    ) -> ApiError | None:
        if not chat.tools:
            return None
        offered = {t.name: t for t in chat.tools}
        ctx = MapContext(offered, chat.agent_cwd())
        needed = {profile.map(name, args, ctx)[0].name for name, args in session.responder.tool_uses()}
        if profile.name == "generic":
            if not self.strict_tools:
                return None
            lines = [f"no tool profile matches the offered tools ({', '.join(chat.tool_names)}); "
                     "strict mode needs one of claude-code, codex, pi"]  # fmt: skip
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
        kind = "tool" if self.strict_tools else "note"
        failure = LlmFailure(kind, message, 0, 0, session.scenario.file, session.key)
        if self.strict_tools:
            self.failures.append(failure)
            anthropic = chat.style == "anthropic"
            return ApiError(
                400, "invalid_request_error", message, code=None if anthropic else "tools_mismatch"
            )
        self.notes.append(failure)
        return None
