"""A scenario played as an ACP agent, with the official SDK doing the protocol.

``ScenarioAgent`` is an SDK agent object (``acp.run_agent`` serves it over
stdio; an in-process socket pair works the same). Each ``session/prompt`` is
answered by the next turn of the scenario (see :mod:`workbench.acp.script`):

* ``llmResponse`` -> ``agent_thought_chunk`` / ``agent_message_chunk``, paced by
  the scenario's virtual time (``speed``; None = no waiting);
* a tool -> ``tool_call`` (pending) then ``tool_call_update`` in_progress ->
  completed | failed, with content and locations; the work is real, through the
  client's ``fs/*`` / ``terminal/*`` when offered, else in the session's cwd;
* ``agentEdits`` -> an edit tool call with a diff; ``agentPlan`` -> ``plan``;
  ``setMode`` -> ``current_mode_update``; ``setModel`` -> ``config_option_update``
  of the ``model`` option;
* ``agentPermissionRequest`` -> ``session/request_permission`` for the next tool
  of the turn: a rejection (or ``cancelled``) means that tool does not run;
* ``agentFileReads`` -> ``fs/read_text_file`` (or a read in the workspace);
* ``session/cancel`` at any point -> the turn stops with ``cancelled``.

What the scenario says the *client* does is checked: the prompt text, the
permission answer (``decision`` / ``granted``), file contents
(``expectedContent``), the ``initialize`` parameters, the session id loaded,
and a ``userCancelSession`` (the client must cancel there). Each mismatch is a
:class:`Mismatch` with the scenario line; they are reported as they happen and
also travel in the prompt response's ``_meta.workbench.failures``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, assert_never

from acp import PROTOCOL_VERSION, RequestError, plan_entry, start_tool_call, update_plan, update_tool_call
from acp.helpers import tool_content, tool_diff_content, tool_terminal_ref, update_current_mode
from acp.schema import (
    AgentCapabilities,
    AgentMessageChunk,
    AgentThoughtChunk,
    AuthenticateResponse,
    AuthMethodAgent,
    ClientCapabilities,
    ConfigOptionUpdate,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PermissionOption,
    PromptCapabilities,
    PromptResponse,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
    UserMessageChunk,
)

from workbench.agent.tools import ShellRegistry, ToolOutcome, compare_result, execute_tool, perform_edit
from workbench.scenario import model as m
from workbench.scenario.diagnostics import Pos
from workbench.scenario.user_regex import PatternTooSlow
from workbench.timeline import Schedule, Step, StepKind
from workbench.workspace import Workspace, WorkspaceError

from .client_tools import offered, run_via_client
from .content import absolute, chunks, text_of, tool_kind, tool_locations, tool_title
from .script import Script, Turn, build_script
from .subset import subset

CANCEL_WAIT_S = 10.0  # how long a `userCancelSession` waits for the client's session/cancel
CANCELLED_ANSWER_S = 2.0  # how long a permission request pending at a cancel waits for its `cancelled` answer
ALLOW_KINDS = frozenset({"allow_once", "allow_always"})


@dataclass(frozen=True)
class Mismatch:
    """The client did not do what the scenario says: at ``line``, ``message``."""

    line: int
    message: str
    file: str = ""

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}: {self.message}" if self.file else f"line {self.line}: {self.message}"
        )

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message, "file": self.file}


@dataclass
class _Session:
    id: str
    cwd: str
    turns: list[Turn]
    next_turn: int = 0
    mode: str | None = None
    model: str | None = None
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    active: bool = False
    shells: ShellRegistry = field(default_factory=ShellRegistry)
    gate: tuple[str, bool] | None = None  # (tool call id, allowed) from the last permission request
    outcomes: dict[int, ToolOutcome | None] = field(default_factory=dict)
    announced: set[str] = field(default_factory=set)


def _absolute(cwd: str) -> None:
    """ACP: a session's ``cwd`` is an absolute path; a client that sends another gets -32602."""
    if not os.path.isabs(cwd):
        raise RequestError.invalid_params({"cwd": cwd, "details": "cwd must be an absolute path"})


class Cancelled(Exception):
    """The client cancelled the turn."""


class ScenarioAgent:
    """An SDK agent object that plays a scenario (see the module docstring)."""

    def __init__(self, schedule: Schedule, *, speed: float | None = None,
                 report: Callable[[Mismatch], None] | None = None) -> None:  # fmt: skip
        self.script: Script = build_script(schedule)
        self.scenario = schedule.scenario
        self.speed = speed
        self.authenticated: str | None = None  # the auth method the client authenticated with
        self.failures: list[Mismatch] = []
        self._report = report
        self._conn: Any = None
        self._client_caps: ClientCapabilities | None = None
        self._sessions: dict[str, _Session] = {}
        self._ids = itertools.count(1)
        self._turn_failures: list[Mismatch] = []
        self._matcher: Any = None  # a RuleMatcher, for Claudeless scenarios
        self.modes = self._modes()

    # ------------------------------------------------------------------ protocol

    def on_connect(self, conn: Any) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, client_capabilities: ClientCapabilities | None = None,
                         client_info: Implementation | None = None, **kw: Any) -> InitializeResponse:  # fmt: skip
        self._client_caps = client_capabilities
        init = self.script.initialize
        if init is not None and isinstance(init.data, Mapping):
            sent = {"protocolVersion": protocol_version,
                    "clientCapabilities": client_capabilities.model_dump(by_alias=True, exclude_none=True)
                    if client_capabilities else {},
                    "clientInfo": client_info.model_dump(by_alias=True, exclude_none=True) if client_info else {}}  # fmt: skip
            for key in ("protocolVersion", "clientCapabilities", "clientInfo"):
                if key in init.data and (problem := subset(init.data[key], sent[key], key)):
                    self._fail(init.pos.line, f"initialize: {problem}")
        caps = self.scenario.acp.get("capabilities") or {}
        prompt_caps = caps.get("promptCapabilities") or {}
        mcp = caps.get("mcpCapabilities") or {}
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,  # the one it speaks: ACP's answer to any other
            agent_capabilities=AgentCapabilities(
                load_session=self.script.load_session,
                prompt_capabilities=PromptCapabilities(
                    image=bool(prompt_caps.get("image")), audio=bool(prompt_caps.get("audio")),
                    embedded_context=bool(prompt_caps.get("embeddedContext"))),
                mcp_capabilities=McpCapabilities(http=bool(mcp.get("http")), sse=bool(mcp.get("sse"))),
            ),
            agent_info=Implementation(name="workbench-acp-agent", title=self.scenario.name, version="1"),
            auth_methods=[AuthMethodAgent(id=m, name=m) for m in self._auth_methods()],
        )  # fmt: skip

    def _not_offered(self, prompt: list[Any]) -> str | None:
        """Why ``prompt`` breaks ACP's rule that a client sends only the content the agent offered in
        ``promptCapabilities`` (text and resource links always), or None."""
        caps = (self.scenario.acp.get("capabilities") or {}).get("promptCapabilities") or {}
        for block in prompt:
            kind = getattr(block, "type", None)
            cap = {"image": "image", "audio": "audio", "resource": "embeddedContext"}.get(str(kind))
            if cap is not None and not caps.get(cap):
                return (f"the prompt has {kind} content, which the agent did not offer "
                        f"(promptCapabilities.{cap} is false in its initialize answer)")  # fmt: skip
        return None

    def _auth_methods(self) -> list[str]:
        """The scenario's ``acp.authenticate`` method, offered so that a client can authenticate with it."""
        method = self.scenario.acp.get("authenticate")
        return [method] if isinstance(method, str) else []

    async def authenticate(self, method_id: str, **kw: Any) -> AuthenticateResponse:
        if method_id not in self._auth_methods():
            raise RequestError.invalid_params({"methodId": method_id, "offered": self._auth_methods()})
        self.authenticated = method_id
        return AuthenticateResponse()

    async def new_session(self, cwd: str, additional_directories: list[str] | None = None,
                          mcp_servers: list[Any] | None = None, **kw: Any) -> NewSessionResponse:  # fmt: skip
        if self._auth_methods() and self.authenticated is None:  # the scenario's agent wants a login first
            raise RequestError.auth_required({"authMethods": self._auth_methods()})
        _absolute(cwd)
        sid = self.script.session_id or f"wb-{next(self._ids)}"
        if sid in self._sessions:
            sid = f"{sid}-{next(self._ids)}"
        session = self._new(sid, cwd, list(self.script.whole))
        return NewSessionResponse(session_id=sid, modes=self._mode_state(session))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           additional_directories: list[str] | None = None, **kw: Any) -> LoadSessionResponse:  # fmt: skip
        if not self.script.load_session:
            raise RequestError.method_not_found("session/load")
        _absolute(cwd)
        want = self.script.session_id
        if want is not None and session_id != want:
            line = self.script.session_start.pos.line if self.script.session_start else 0
            self._fail(line, f"the client loaded session {session_id!r}, the scenario's is {want!r}")
            raise RequestError.invalid_params(
                {"sessionId": session_id, "details": f"unknown session; the scenario's is {want!r}"}
            )
        session = self._new(session_id, cwd, list(self.script.live))
        for turn in self.script.history:
            await self._replay(session, turn)
        return LoadSessionResponse(modes=self._mode_state(session))

    async def set_session_mode(self, session_id: str, mode_id: str, **kw: Any) -> SetSessionModeResponse:
        session = self._session(session_id)
        if not self.modes:
            raise RequestError.invalid_params(
                {"modeId": mode_id, "details": "this agent offers no modes (session/new listed none)"}
            )
        if mode_id not in self.modes:
            raise RequestError.invalid_params(
                {"modeId": mode_id, "details": f"modes are {', '.join(self.modes)}"}
            )
        session.mode = mode_id
        return SetSessionModeResponse()

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool,
                                **kw: Any) -> SetSessionConfigOptionResponse:  # fmt: skip
        session = self._session(session_id)
        if config_id != "model":
            raise RequestError.invalid_params(
                {"configId": config_id, "details": "the only option is `model`"}
            )
        session.model = str(value)
        return SetSessionConfigOptionResponse(config_options=[self._model_option(session)])

    async def cancel(self, session_id: str, **kw: Any) -> None:
        session = self._sessions.get(session_id)
        if session is not None and session.active:
            session.cancelled.set()

    async def prompt(self, prompt: list[Any], session_id: str, **kw: Any) -> PromptResponse:
        session = self._session(session_id)
        if session.active:
            raise RequestError.invalid_request({"details": "a prompt is already running in this session"})
        if refused := self._not_offered(prompt):
            line = next((t.line for t in session.turns[session.next_turn :] if t.prompt is not None), 0)
            self._fail(line, refused)
            raise RequestError.invalid_params({"details": refused})
        session.active = True
        session.cancelled.clear()
        self._turn_failures = []
        text = "".join(getattr(block, "text", "") or "" for block in prompt)
        try:
            if self.scenario.rules is not None:  # Claudeless rules: the first rule that matches answers
                stop = await self._rules_turn(session, text)
            elif session.next_turn >= len(session.turns):
                last = self.scenario.timeline[-1].pos.line if self.scenario.timeline else 0
                self._fail(last, f"unexpected prompt {text!r}: the scenario has no more user inputs")
                stop = "end_turn"
            else:
                turn = session.turns[session.next_turn]
                session.next_turn += 1
                if turn.prompt is not None and turn.prompt.text.strip() != text.strip():
                    self._fail(
                        turn.prompt.pos.line,
                        f"the prompt was {text!r}, the scenario says {turn.prompt.text!r}",
                    )
                try:
                    stop = await self._play_turn(session, turn)
                except asyncio.CancelledError:  # the connection closed under the turn
                    self._fail(turn.line, "the client closed the connection during this turn")
                    raise
        finally:
            session.active = False
        failures = [f.to_json() for f in self._turn_failures]
        meta = {"workbench": {"failures": failures}} if failures else None
        return PromptResponse(stop_reason=stop, field_meta=meta)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ sessions

    def _new(self, sid: str, cwd: str, turns: list[Turn]) -> _Session:
        session = _Session(sid, cwd, turns, mode=next(iter(self.modes), None))
        self._sessions[sid] = session
        return session

    def _session(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": session_id, "details": "unknown session"})
        return session

    def _modes(self) -> list[str]:
        modes = [
            str(e.data.get("modeId"))
            for e in self.script.acp_events("setMode")
            if isinstance(e.data, Mapping)
        ]
        return list(dict.fromkeys(["default", *modes])) if modes else []

    def _mode_state(self, session: _Session) -> SessionModeState | None:
        if not self.modes:
            return None
        return SessionModeState(current_mode_id=session.mode or self.modes[0],
                                available_modes=[SessionMode(id=mid, name=mid) for mid in self.modes])  # fmt: skip

    def _model_option(self, session: _Session) -> Any:
        from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption

        models = [
            str(e.data.get("modelId"))
            for e in self.script.acp_events("setModel")
            if isinstance(e.data, Mapping)
        ]
        current = session.model or (models[0] if models else "default")
        values = list(dict.fromkeys([current, *models]))
        return SessionConfigOptionSelect(id="model", name="Model", type="select", current_value=current,
                                         options=[SessionConfigSelectOption(value=v, name=v) for v in values])  # fmt: skip

    # ------------------------------------------------------------------ checks

    def _fail(self, line: int, message: str) -> None:
        mismatch = Mismatch(line, message, self.scenario.file)
        self.failures.append(mismatch)
        self._turn_failures.append(mismatch)
        if self._report is not None:
            self._report(mismatch)

    def unplayed(self) -> list[Mismatch]:
        """The turns no prompt asked for, in every session (for the end of a run); with no session at all,
        every prompt of the scenario (a client that left after `initialize` sent none of them)."""
        if not self._sessions:
            return [Mismatch(turn.line, f"the client never sent the prompt {turn.prompt.text!r} (it opened no "
                                        "session)", self.scenario.file)
                    for turn in self.script.whole if turn.prompt is not None]  # fmt: skip
        out = []
        several = len(self._sessions) > 1
        for session in self._sessions.values():
            which = f" (session {session.id})" if several else ""
            for turn in session.turns[session.next_turn :]:
                if turn.prompt is not None:
                    out.append(Mismatch(turn.line, f"the client never sent the prompt {turn.prompt.text!r}{which}",
                                        self.scenario.file))  # fmt: skip
        return out

    # ------------------------------------------------------------------ playing

    async def _send(self, session: _Session, update: Any) -> None:
        await self._conn.session_update(session_id=session.id, update=update)

    async def _replay(self, session: _Session, turn: Turn) -> None:
        """History for ``session/load``: what was said and done, as it ended, without pacing or work."""
        if turn.prompt is not None:
            for update in chunks(UserMessageChunk, turn.prompt.input):
                await self._send(session, update)
        for step in turn.steps:
            if step.kind is StepKind.THINK or step.kind is StepKind.ASSISTANT:
                kind = AgentThoughtChunk if step.kind is StepKind.THINK else AgentMessageChunk
                for update in chunks(kind, step.text.content):
                    await self._send(session, update)
            elif step.kind is StepKind.TOOL_RESULT:
                tool = step.tool
                status: ToolCallStatus = (
                    "failed" if str(tool.status).lower() in ("error", "failed") else "completed"
                )
                await self._send(session, start_tool_call(
                    self._tool_id(tool), tool_title(tool.tool_name, tool.args), kind=tool_kind(tool.tool_name),
                    status=status, raw_input=dict(tool.args), locations=tool_locations(session.cwd, tool.args),
                    content=[tool_content(_text_block(text_of(tool.result)))] if tool.result is not None else None))  # fmt: skip
            elif (
                step.kind is StepKind.ACP
                and isinstance(step.event, m.AcpEvent)
                and step.event.name == "agentPlan"
            ):
                await self._send(session, _plan(step.event))

    async def _play_turn(self, session: _Session, turn: Turn) -> str:
        previous = turn.start_ms
        denied: set[int] = set()  # ids of tools whose permission was refused
        try:
            for position, step in enumerate(turn.steps):
                await self._pace(session, step.at_ms - previous)
                previous = max(previous, step.at_ms)
                await self._step(session, turn, position, step, denied)
                if session.cancelled.is_set():
                    raise Cancelled
        except Cancelled:
            return "cancelled"
        return "end_turn"

    async def _pace(self, session: _Session, ms: int) -> None:
        if ms <= 0 or self.speed is None:
            if session.cancelled.is_set():
                raise Cancelled
            return
        try:
            await asyncio.wait_for(session.cancelled.wait(), ms / 1000 / self.speed)
        except TimeoutError:
            return
        raise Cancelled

    async def _step(self, session: _Session, turn: Turn, position: int, step: Step, denied: set[int]) -> None:
        match step.kind:
            case StepKind.THINK | StepKind.ASSISTANT:
                kind = AgentThoughtChunk if step.kind is StepKind.THINK else AgentMessageChunk
                for update in chunks(kind, step.text.content):
                    await self._send(session, update)
            case StepKind.LLM_ERROR:
                error = step.error
                text = f"API error {error.status_code} {error.error_type}: {error.message}"
                for update in chunks(AgentMessageChunk, text):
                    await self._send(session, update)
            case StepKind.TOOL_START:
                await self._tool_start(session, step, step.tool, denied)
            case StepKind.TOOL_PROGRESS | StepKind.TOOL_OUTPUT:
                tool = self._tool_of(step)
                if id(tool) in denied:
                    return
                if step.kind is StepKind.TOOL_PROGRESS:
                    text = step.text.text
                else:
                    out = step.output
                    text = f"exit {out.exit_code}" if out.type == "completion" else out.content
                await self._send(session, update_tool_call(self._tool_id(tool), status="in_progress",
                                                           content=[tool_content(_text_block(text))]))  # fmt: skip
            case StepKind.TOOL_RESULT:
                await self._tool_result(session, step, step.tool, denied)
            case StepKind.EDIT:
                await self._edit(session, step)
            case StepKind.CANCEL:
                await self._expect_cancel(session, step)
            case StepKind.ACP:
                await self._acp(session, turn, position, step)
            case StepKind.LLM_RESPONSE | StepKind.INPUT | StepKind.KEY | StepKind.ADVANCE | StepKind.CONTROL:
                pass  # nothing an ACP client is sent
            case unknown:
                assert_never(unknown)

    async def _rules_turn(self, session: _Session, text: str) -> str:
        """A Claudeless scenario: the reply of the first matching rule after its ``delay_ms`` (a
        ``session/cancel`` in the wait ends the turn ``cancelled``), its tool calls run for real; while
        a turn sequence (``then``) is active, the tools' output is the next input, so a reply can say
        text after its tools ran, as the Claude shim's conversation does."""
        from workbench.scenario.matching import RuleMatcher

        assert self.scenario.rules is not None
        if self._matcher is None:
            self._matcher = RuleMatcher(self.scenario.rules)
        first = True
        try:
            while True:
                try:
                    reply, failure = self._matcher.choose(text)
                except PatternTooSlow as exc:  # a rule's `regex`: a failure placed at it, the turn ends
                    self._fail(exc.pos.line if exc.pos else 0, str(exc))
                    return "end_turn"
                await self._pace(session, int(getattr(reply, "delay_ms", None) or 0))
                if reply is None and failure is None:
                    if first:
                        self._fail(0, f"no rule answers the prompt {text!r}")
                    return "end_turn"
                message = f"API error: {failure.type}" if failure is not None else reply.text if reply else ""
                for update in chunks(AgentMessageChunk, message) if message else ():
                    await self._send(session, update)
                if failure is not None or reply is None or not reply.tool_calls:
                    return "end_turn"
                outputs = [await self._rules_tool(session, call) for call in reply.tool_calls]
                if session.cancelled.is_set():
                    raise Cancelled
                if self._matcher.active is None:
                    return "end_turn"
                text, first = "\n".join(outputs), False
        except Cancelled:
            return "cancelled"

    async def _rules_tool(self, session: _Session, call: m.ToolCall) -> str:
        """One tool call of a rules reply, announced, run for real and reported; its output text."""
        tool = m.ToolUse(call.pos or Pos(self.scenario.file), tool_name=call.tool, args=call.input,
                         result=call.result, status="")  # fmt: skip
        tool_id = f"call-{next(self._ids)}"
        await self._announce(session, tool_id, tool_title(tool.tool_name, tool.args), tool_kind(tool.tool_name),
                             dict(tool.args), tool_locations(session.cwd, tool.args))  # fmt: skip
        await self._send(session, update_tool_call(tool_id, status="in_progress"))
        outcome = await self._execute(session, tool_id, tool)
        status: ToolCallStatus = "completed" if outcome.status == "ok" else "failed"
        output = text_of(outcome.result)
        await self._send(session, update_tool_call(tool_id, status=status,
                                                   content=[tool_content(_text_block(output))]))  # fmt: skip
        return output

    # ------------------------------------------------------------------ tools

    def _tool_of(self, step: Step) -> m.ToolUse:
        item = step.item
        if isinstance(item, m.ToolUse):
            return item
        event = step.event
        if isinstance(event, m.ToolUse):
            return event
        assert isinstance(event, m.LlmResponse)
        # a progress/output item of an inline tool: the tool whose pieces hold it
        for piece in event.pieces:
            if isinstance(piece, m.ToolUse) and (item in piece.progress or item in piece.execution):
                return piece
        raise LookupError(step.summary)

    @staticmethod
    def _tool_id(tool: m.ToolUse | m.FileEdit) -> str:
        if isinstance(tool, m.ToolUse) and tool.tool_call_id:
            return tool.tool_call_id
        return f"call-{tool.pos.line}-{tool.pos.col}"

    async def _announce(self, session: _Session, tool_id: str, title: str, kind: str, raw: Any,
                        locations: list[Any], content: list[Any] | None = None) -> None:  # fmt: skip
        if tool_id in session.announced:
            return
        session.announced.add(tool_id)
        await self._send(session, start_tool_call(tool_id, title, kind=kind, status="pending", raw_input=raw,  # type: ignore[arg-type]
                                                  locations=locations, content=content))  # fmt: skip

    def _gate(self, session: _Session, tool_id: str) -> bool:
        if session.gate is not None and session.gate[0] == tool_id:
            allowed = session.gate[1]
            session.gate = None
            return allowed
        return True

    async def _tool_start(self, session: _Session, step: Step, tool: m.ToolUse, denied: set[int]) -> None:
        tool_id = self._tool_id(tool)
        await self._announce(session, tool_id, tool_title(tool.tool_name, tool.args), tool_kind(tool.tool_name),
                             dict(tool.args), tool_locations(session.cwd, tool.args))  # fmt: skip
        if not self._gate(session, tool_id):
            denied.add(id(tool))
            return
        await self._send(session, update_tool_call(tool_id, status="in_progress"))
        session.outcomes[id(tool)] = await self._execute(session, tool_id, tool)

    async def _execute(self, session: _Session, tool_id: str, tool: m.ToolUse) -> ToolOutcome:
        if offered(self._client_caps, tool.tool_name):

            async def on_terminal(terminal_id: str) -> None:
                await self._send(session, update_tool_call(tool_id, content=[tool_terminal_ref(terminal_id)]))

            return await run_via_client(
                self._conn, session.id, session.cwd, tool.tool_name, tool.args, on_terminal
            )
        try:
            workspace = Workspace.attach(Path(session.cwd))
        except (OSError, WorkspaceError) as exc:
            return ToolOutcome("error", f"the session's cwd is not usable: {exc}", tool.tool_name)
        return await asyncio.to_thread(execute_tool, tool.tool_name, dict(tool.args), workspace,
                                       canned_result=tool.result, shells=session.shells)  # fmt: skip

    async def _tool_result(self, session: _Session, step: Step, tool: m.ToolUse, denied: set[int]) -> None:
        tool_id = self._tool_id(tool)
        if id(tool) in denied:
            await self._send(session, update_tool_call(tool_id, status="failed", content=[
                tool_content(_text_block("not run: the permission was refused"))]))  # fmt: skip
            return
        outcome = session.outcomes.pop(id(tool), None)
        if outcome is None:
            return
        status: ToolCallStatus = "completed" if outcome.status == "ok" else "failed"
        await self._send(session, update_tool_call(
            tool_id, status=status, content=[tool_content(_text_block(text_of(outcome.result)))],
            raw_output={"result": outcome.result, **{k: v for k, v in outcome.details.items() if k != "via"}}))  # fmt: skip
        if problem := compare_result(tool.result, outcome, tool.status):
            self._fail(tool.pos.line, f"{tool.tool_name}: {problem}")

    async def _edit(self, session: _Session, step: Step) -> None:
        edit = step.event
        assert isinstance(edit, m.FileEdit)
        tool_id = self._tool_id(edit)
        path = absolute(session.cwd, edit.path)
        old, new = edit.extra.get("oldText"), edit.extra.get("newText")
        diff = (
            [tool_diff_content(path, str(new), str(old) if old is not None else None)]
            if new is not None
            else None
        )
        await self._announce(session, tool_id, f"Edit {edit.path}", "edit", {"path": edit.path, **edit.extra},
                             tool_locations(session.cwd, {"path": edit.path}), diff)  # fmt: skip
        if not self._gate(session, tool_id):
            await self._send(session, update_tool_call(tool_id, status="failed", content=[
                tool_content(_text_block("not run: the permission was refused"))]))  # fmt: skip
            return
        await self._send(session, update_tool_call(tool_id, status="in_progress"))
        if new is not None and offered(self._client_caps, "editFile" if old else "writeFile"):
            args = (
                {"path": edit.path, "old_string": old, "new_string": new}
                if old
                else {"path": edit.path, "content": new}
            )
            outcome = await run_via_client(self._conn, session.id, session.cwd, "editFile" if old else "writeFile", args,
                                           _no_terminal)  # fmt: skip
            problem = None if outcome.status == "ok" else str(outcome.result)
        else:
            try:
                problem = await asyncio.to_thread(perform_edit, Workspace.attach(Path(session.cwd)), edit.path,
                                                  edit.lines_added, edit.lines_removed)  # fmt: skip
            except (OSError, WorkspaceError) as exc:
                problem = str(exc)
        await self._send(session, update_tool_call(tool_id, status="failed" if problem else "completed",
                                                   content=[tool_content(_text_block(problem or f"edited {edit.path}"))]))  # fmt: skip
        if problem:
            self._fail(edit.pos.line, f"agentEdits {edit.path}: {problem}")

    # ------------------------------------------------------------------ ACP events

    async def _acp(self, session: _Session, turn: Turn, position: int, step: Step) -> None:
        event = step.event
        assert isinstance(event, m.AcpEvent)
        data = event.data if isinstance(event.data, Mapping) else {}
        if event.name == "agentPlan":
            await self._send(session, _plan(event))
        elif event.name == "setMode":
            session.mode = str(data.get("modeId"))
            await self._send(session, update_current_mode(session.mode))
        elif event.name == "setModel":
            session.model = str(data.get("modelId"))
            await self._send(session, ConfigOptionUpdate(session_update="config_option_update",
                                                         config_options=[self._model_option(session)]))  # fmt: skip
        elif event.name == "agentFileReads":
            await self._file_reads(session, event, data)
        elif event.name == "agentPermissionRequest":
            await self._permission(session, turn, position, step, data)
        elif event.name == "agentExtension":
            await self._extension(event, data)

    async def _extension(self, event: m.AcpEvent, data: Mapping[str, Any]) -> None:
        """An ACP extension message (`_scp/html_panel/show`): a request when the scenario wants an answer
        (`request: true`, `expectResponse`), checked against `expectResponse`; else a notification."""
        method, params = str(data["method"]), dict(data.get("params") or {})
        want = data.get("expectResponse")
        if not data.get("request") and want is None:
            await self._conn.ext_notification(method[1:], params)  # the SDK adds the leading `_`
            return
        try:
            answer = await self._conn.ext_method(method[1:], params)
        except RequestError as exc:
            self._fail(event.pos.line, f"agentExtension {method}: the client answered an error: {exc}")
            return
        if want is not None and (problem := subset(want, answer, "response")):
            self._fail(event.pos.line, f"agentExtension {method}: the client's {problem}")

    async def _file_reads(self, session: _Session, event: m.AcpEvent, data: Mapping[str, Any]) -> None:
        for entry in data.get("files") or []:
            if not isinstance(entry, Mapping) or not isinstance(entry.get("path"), str):
                continue
            path = entry["path"]
            if offered(self._client_caps, "readFile"):
                outcome = await run_via_client(
                    self._conn, session.id, session.cwd, "readFile", {"path": path}, _no_terminal
                )
            else:
                outcome = await asyncio.to_thread(execute_tool, "readFile", {"path": path},
                                                  Workspace.attach(Path(session.cwd)), shells=session.shells)  # fmt: skip
            want = entry.get("expectedContent")
            if outcome.status != "ok":
                self._fail(event.pos.line, f"agentFileReads {path}: {text_of(outcome.result)}")
            elif want is not None and str(outcome.result) != str(want):
                self._fail(event.pos.line, f"agentFileReads {path}: the content is {text_of(outcome.result)[:200]!r}, "
                                           f"expected {str(want)[:200]!r}")  # fmt: skip

    async def _permission(self, session: _Session, turn: Turn, position: int, step: Step,
                          data: Mapping[str, Any]) -> None:  # fmt: skip
        options = [PermissionOption(option_id=str(o.get("id") or o.get("optionId") or o.get("kind")),
                                    name=str(o.get("label") or o.get("name") or o.get("id")), kind=o.get("kind", "allow_once"))
                   for o in data.get("options") or [] if isinstance(o, Mapping)] or [
            PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
            PermissionOption(option_id="reject", name="Reject", kind="reject_once")]  # fmt: skip
        target = _next_action(turn, position)
        given = data.get("toolCall")
        call: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        if target is not None and not call.get("toolCallId"):
            tool_id = await self._announce_target(session, target)
            tool_call = ToolCallUpdate(
                tool_call_id=tool_id, status="pending", title=_title_of(target), kind=_kind_of(target)
            )
        else:
            tool_id = str(call.get("toolCallId") or f"permission-{step.pos.line}")
            tool_call = ToolCallUpdate.model_validate({"toolCallId": tool_id, "title": call.get("title") or "Permission",
                                                       **{k: v for k, v in call.items() if k != "toolCallId"}})  # fmt: skip
        cancel_wait = asyncio.ensure_future(session.cancelled.wait())
        ask = asyncio.ensure_future(
            self._conn.request_permission(session_id=session.id, tool_call=tool_call, options=options)
        )
        done, _ = await asyncio.wait({ask, cancel_wait}, return_when=asyncio.FIRST_COMPLETED)
        cancel_wait.cancel()
        if ask not in done:  # cancelled: the client answers `cancelled` to the request; take it, then stop
            try:
                await asyncio.wait_for(ask, CANCELLED_ANSWER_S)
            except TimeoutError:
                ask.cancel()
                self._fail(step.pos.line, "the client cancelled the turn and left its permission request "
                                          "unanswered: ACP wants the answer `cancelled` (outcome: cancelled)")  # fmt: skip
            except Exception:  # an error answer: the turn ends all the same
                ask.cancel()
            raise Cancelled
        try:
            outcome = ask.result().outcome
        except RequestError as exc:  # the client answered with an error: nothing was allowed
            self._fail(step.pos.line, f"session/request_permission failed: {exc} {exc.data or ''}".rstrip())
            session.gate = (tool_id, False)
            return
        chosen = getattr(outcome, "option_id", None)
        kinds = {o.option_id: o.kind for o in options}
        allowed = outcome.outcome == "selected" and kinds.get(str(chosen), "") in ALLOW_KINDS
        session.gate = (tool_id, allowed)
        self._check_decision(step, data, outcome.outcome, chosen, allowed)

    def _check_decision(
        self, step: Step, data: Mapping[str, Any], outcome: str, chosen: str | None, allowed: bool
    ) -> None:
        answer = f"`{chosen}`" if outcome == "selected" else "cancelled"
        decision = data.get("decision")
        if isinstance(decision, Mapping):
            want_outcome = decision.get("outcome", "selected")
            want_id = decision.get("optionId")
            if want_outcome != outcome or (want_id is not None and want_id != chosen):
                want = f"`{want_id}`" if want_outcome == "selected" and want_id else str(want_outcome)
                self._fail(
                    step.pos.line,
                    f"permission answer: the client chose {answer}, the scenario expects {want}",
                )
        elif "granted" in data and bool(data["granted"]) != allowed:
            self._fail(step.pos.line, f"permission answer: the client chose {answer}, the scenario expects "
                                      f"{'an allow' if data['granted'] else 'a reject'} option")  # fmt: skip

    async def _announce_target(self, session: _Session, target: Step) -> str:
        if target.kind is StepKind.EDIT:
            edit = target.event
            assert isinstance(edit, m.FileEdit)
            tool_id = self._tool_id(edit)
            await self._announce(session, tool_id, f"Edit {edit.path}", "edit", {"path": edit.path, **edit.extra},
                                 tool_locations(session.cwd, {"path": edit.path}))  # fmt: skip
            return tool_id
        tool = target.tool
        tool_id = self._tool_id(tool)
        await self._announce(session, tool_id, tool_title(tool.tool_name, tool.args), tool_kind(tool.tool_name),
                             dict(tool.args), tool_locations(session.cwd, tool.args))  # fmt: skip
        return tool_id

    async def _expect_cancel(self, session: _Session, step: Step) -> None:
        """`userCancelSession`: the client must send session/cancel here."""
        try:
            await asyncio.wait_for(session.cancelled.wait(), CANCEL_WAIT_S)
        except TimeoutError:
            self._fail(step.pos.line, f"the client did not send session/cancel within {CANCEL_WAIT_S:g} s")
            return
        raise Cancelled


async def _no_terminal(terminal_id: str) -> None:
    return None


def _text_block(text: str) -> Any:
    from acp import text_block

    return text_block(text)


def _plan(event: m.AcpEvent) -> Any:
    data = event.data if isinstance(event.data, Mapping) else {}
    entries = [plan_entry(str(e.get("content", "")), priority=e.get("priority", "medium"), status=e.get("status", "pending"))
               for e in data.get("entries") or [] if isinstance(e, Mapping)]  # fmt: skip
    return update_plan(entries)


def _next_action(turn: Turn, position: int) -> Step | None:
    for step in turn.steps[position + 1 :]:
        if step.kind in (StepKind.TOOL_START, StepKind.EDIT):
            return step
        if step.kind in (StepKind.THINK, StepKind.ASSISTANT, StepKind.LLM_ERROR, StepKind.CANCEL) or (
            step.kind is StepKind.ACP
            and isinstance(step.event, m.AcpEvent)
            and step.event.name == "agentPermissionRequest"
        ):
            return None
    return None


def _title_of(step: Step) -> str:
    if isinstance(step.event, m.FileEdit) and step.kind is StepKind.EDIT:
        return f"Edit {step.event.path}"
    return tool_title(step.tool.tool_name, step.tool.args)


def _kind_of(step: Step) -> ToolKind:
    return "edit" if step.kind is StepKind.EDIT else tool_kind(step.tool.tool_name)
