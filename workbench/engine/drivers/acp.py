"""`workbench run --mode acp`: a real ACP agent, the engine as its ACP client, the mock LLM server behind it.

The agent is the scenario's ``command`` (``{base_url}`` placeholders and the
usual API variables point it at the mock LLM server, as in real-agent mode), or
a known adapter, ``--agent claude-code-acp|codex-acp|gemini-acp`` (the ``acp`` of an agent module in
:mod:`workbench.llm.agents`), set up as its agent's preset sets that agent up. It
runs in the run's pty through :mod:`workbench.acp.launch`, so its stderr is on
screen and in the recording, while its stdin/stdout are a socket the engine
speaks ACP on with the official SDK (:class:`~workbench.acp.client.WorkbenchClient`):

* ``initialize`` (fs read/write and terminals offered), ``session/new`` in the workspace;
* each user input is a ``session/prompt`` (one at a time: the next waits for the
  turn before it); ``userCancelSession`` is ``session/cancel``;
* permission requests are answered as the scenario's ``agentPermissionRequest``
  say, else with the first allow option (every answer is in the turn record);
* ``fs/*`` and ``terminal/*`` are served from the workspace;
* agent steps wait until the mock LLM server has served them; when a turn ends
  it is checked against the scenario (:mod:`workbench.acp.expect`);
* every JSON-RPC message goes to ``acp.jsonl`` in the run folder.

Anything the agent does not answer within the run's timeout fails the run with
the last ACP messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
from typing import TYPE_CHECKING, Any, assert_never

from workbench.agent.control import private_socket_path
from workbench.engine.program import Program
from workbench.scenario import model as m
from workbench.terminal.session import WaitTimeout
from workbench.timeline import Step, StepKind

from .base import Checks, DriverError, RunContext
from .real_agent import RealAgentDriver

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from workbench.acp.client import TurnRecord, WorkbenchClient
    from workbench.acp.script import Turn
    from workbench.acp.wire import WireRecorder

CLOSE_GRACE_S = 5.0
EXIT_AFTER_CLOSE_S = 5.0
"""How long an agent that closed its connection is given to exit, for its exit code in the failure."""


class AcpDriver(RealAgentDriver):
    """The ACP-client side of one run (see the module docstring)."""

    def __init__(self, ctx: RunContext) -> None:
        super().__init__(ctx)
        self.ui = "acp"
        self.conn: Any = None
        self.client: WorkbenchClient | None = None
        self.recorder: WireRecorder | None = None
        self.session_id = ""
        self._turn_task: asyncio.Task[TurnRecord] | None = None
        self._turn: Turn | None = None
        self._socket_dir = ""
        self._server: asyncio.AbstractServer | None = None
        self._deadline = 0.0
        self._turns: dict[int, Turn] = {}
        self._writers: list[asyncio.StreamWriter] = []
        self._guard: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ start

    async def start(self, program: Program) -> None:
        from acp import connect_to_agent

        from workbench.acp.client import WorkbenchClient
        from workbench.acp.expect import ScriptedAnswers, scripted_answers, scripted_extensions
        from workbench.acp.guard import guarded
        from workbench.acp.launch import STDIN_TAG, STDOUT_TAG
        from workbench.acp.script import build_script
        from workbench.acp.wire import WIRE_FILE, WireRecorder

        ctx = self.ctx
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + max(1.0, ctx.options.timeout_s - 2.0)
        for turn in build_script(ctx.schedule).whole:
            if turn.prompt is not None:
                self._turns[id(turn.prompt)] = turn
        if not ctx.options.option("agent") and not ctx.scenario.command:
            from workbench.llm.agents import acp_adapters

            raise DriverError(f"acp mode needs an ACP agent: `--agent {'|'.join(acp_adapters())}`, or a scenario "
                              "`command` that speaks ACP on stdio")  # fmt: skip
        agent = await (
            self._adapter_program(program) if ctx.options.option("agent") else self._agent_program(program)
        )
        # TMPDIR when the socket's path fits in AF_UNIX's 108 bytes, else a short standard folder
        # (a deep TMPDIR, as CI runners and pytest's tmp_path give, made start_unix_server fail).
        self._socket_dir, path = private_socket_path()
        ends: dict[bytes, asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]]] = {
            STDIN_TAG: loop.create_future(), STDOUT_TAG: loop.create_future()}  # fmt: skip

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            tag = await reader.read(1)
            self._writers.append(writer)
            if tag in ends and not ends[tag].done():
                ends[tag].set_result((reader, writer))

        self._server = await asyncio.start_unix_server(on_connect, path, limit=50 * 1024 * 1024)
        launch = (sys.executable, "-m", "workbench.acp.launch", path, "--", *agent.argv)
        session = await ctx.spawn(Program(launch, agent.env, mock_agent=False))
        _, writer = await self._within(self._first(ends[STDIN_TAG], session), "the connection")
        reader, _ = await self._within(self._first(ends[STDOUT_TAG], session), "the connection")
        self.recorder = WireRecorder(ctx.run_dir / WIRE_FILE, start=ctx.started or None)
        self.client = WorkbenchClient(ctx.workspace.path, answer=ScriptedAnswers(scripted_answers(ctx.scenario, ctx.schedule.steps)),
                                      extensions=scripted_extensions(ctx.scenario))  # fmt: skip
        checked, self._guard = guarded(reader, writer, self._garbage)
        self.conn = connect_to_agent(self.client, writer, checked, observers=[self.recorder])
        init = await self._within(self.client.initialize(self.conn), "initialize")  # fs and terminals offered
        await self._authenticate(init)
        created = await self._within(
            self.conn.new_session(cwd=str(ctx.workspace.path), mcp_servers=[]), "session/new"
        )
        self.session_id = created.session_id

    async def _authenticate(self, init: Any) -> None:
        """``authenticate`` with the method the scenario names (``acp.authenticate``), one the agent offers."""
        method = self.ctx.scenario.acp.get("authenticate")
        if not isinstance(method, str):
            return
        offered = [str(getattr(m, "id", "")) for m in init.auth_methods or []]
        if method not in offered:
            raise DriverError(f"the scenario authenticates with `{method}`; the agent offers "
                              f"{', '.join(f'`{o}`' for o in offered) or 'no auth method'}")  # fmt: skip
        await self._within(self.conn.authenticate(method_id=method), "authenticate")

    async def _adapter_program(self, program: Program) -> Program:
        """``--agent NAME``: a known ACP adapter, its HOME written as its agent's preset writes it."""
        from workbench.llm import LlmServer
        from workbench.llm.agents import acp_adapters
        from workbench.llm.agents.base import Endpoint, find_program

        ctx = self.ctx
        name = str(ctx.options.option("agent"))
        adapters = acp_adapters()
        agent = adapters.get(name)
        if agent is None or agent.acp is None:
            raise DriverError(
                f"unknown ACP adapter `{name}`; known: {', '.join(adapters)} (or a scenario `command`)"
            )
        adapter = agent.acp
        exe = find_program(adapter.program)
        if exe is None:
            raise DriverError(f"{name}: `{adapter.program}` is not installed: `{adapter.install_hint()}` "
                              "(or list npm prefixes in WORKBENCH_AGENTS)")  # fmt: skip
        self.server = LlmServer([ctx.scenario], speed=ctx.options.speed, out_dir=ctx.run_dir,
                                workspace=ctx.workspace.path, on_assert=self._on_assert, profile=adapter.profile)  # fmt: skip
        base_url = await self.server.start()
        home = (ctx.run_dir / "home").resolve()
        home.mkdir(parents=True, exist_ok=True)
        endpoint = Endpoint(base_url, self.api_key, ctx.workspace.path, home, self._prompt(ctx.scenario))
        launch = agent.build(adapter.program, endpoint, "print")  # for its HOME and env
        for rel, lines in adapter.settings:
            path = home / rel
            path.write_text(
                lines + (path.read_text(encoding="utf-8") if path.exists() else ""), encoding="utf-8"
            )
        return Program(
            (exe, *adapter.args), {**program.env, "HOME": str(home), **launch.env}, mock_agent=False
        )

    def _garbage(self, text: str) -> None:
        """The agent wrote something that is not JSON-RPC on stdout (it was answered with the JSON-RPC error)."""
        self.ctx.fail(0, 0, "process", f"the agent's stdout is not JSON-RPC: {text}")

    async def _first(self, accepted: asyncio.Future[Any], session: Any) -> Any:
        """The agent's connection, or a clear error if it exits first."""
        while not accepted.done():
            if not session.alive:
                raise DriverError(f"the agent exited (code {session.exit_code}) before connecting; "
                                  f"{self.ctx.the_screen()}", at=self._command_at())  # fmt: skip
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(accepted), 0.1)
        return accepted.result()

    async def _within(self, awaitable: Awaitable[Any], what: str) -> Any:
        """``awaitable`` before the run's deadline; else a failure naming the last ACP messages."""
        from acp import RequestError

        remaining = self._deadline - asyncio.get_running_loop().time()
        try:
            return await asyncio.wait_for(awaitable, max(0.1, remaining))
        except TimeoutError:
            tail = self.recorder.tail() if self.recorder is not None else "  (no message was exchanged)"
            raise DriverError(
                f"the agent did not answer {what} in time; the last ACP messages were:\n{tail}"
            ) from None
        except RequestError as exc:
            raise DriverError(f"{what} failed: {exc} {exc.data or ''}".rstrip()) from None
        except ConnectionError:
            exited = await self._exit_note()
            raise DriverError(f"the agent closed the connection during {what}{exited}; {self.ctx.the_screen()}",
                              at=self._command_at() if exited else None) from None  # fmt: skip

    async def _exit_note(self) -> str:
        """`` (it exited with code N)`` once the agent that closed its connection has exited, else nothing."""
        session = self.ctx.session
        if session is None:
            return ""
        with contextlib.suppress(WaitTimeout):
            return f" (it exited with code {await session.wait_exit(EXIT_AFTER_CLOSE_S)})"
        return ""

    def _command_at(self) -> tuple[int, int, str] | None:
        """Where the agent that could not run is written: the scenario's `command` (None for `--agent`)."""
        pos = self.ctx.scenario.command_pos
        return (0, pos.line, "process") if self.ctx.scenario.command and pos is not None else None

    # ------------------------------------------------------------------ steps

    async def play(self, step: Step) -> Checks | None:
        match step.kind:
            case StepKind.INPUT:
                await self._end_turn()
                self._start_turn(step.input)
                return []
            case StepKind.CANCEL:
                if self._turn_task is not None and not self._turn_task.done() and self.client is not None:
                    self.client.cancelled.add(self.session_id)
                    await self.conn.cancel(session_id=self.session_id)
                return []
            case StepKind.ACP | StepKind.KEY:
                return []  # acp: checked when its turn ends; keys mean nothing to an ACP agent
            case (StepKind.THINK | StepKind.ASSISTANT | StepKind.LLM_ERROR | StepKind.LLM_RESPONSE
                  | StepKind.TOOL_START | StepKind.TOOL_PROGRESS | StepKind.TOOL_OUTPUT | StepKind.TOOL_RESULT
                  | StepKind.EDIT):  # fmt: skip
                await self._served(step)
                return []
            case StepKind.CONTROL:
                if isinstance(step.event, m.Assert | m.AssertGit):
                    return []  # the server evaluates it before its next reply
                return None
            case StepKind.ADVANCE:
                return None
            case unknown:
                assert_never(unknown)

    def _start_turn(self, item: m.InputItem) -> None:
        from acp.schema import PromptRequest

        from workbench.acp.content import block_dicts

        assert self.client is not None
        blocks = PromptRequest.model_validate(
            {"sessionId": self.session_id, "prompt": block_dicts(item.input)}
        ).prompt
        self._turn_task = asyncio.ensure_future(
            self.client.prompt(self.conn, self.session_id, blocks, item.text)
        )
        self._turn = self._turns.get(id(item))

    async def _served(self, step: Step) -> None:
        """Wait until the server has played ``step``; a turn that ends without it is a failure."""
        assert self.server is not None
        while not await self.server.wait_step(step.index, timeout=0.1):
            task = self._turn_task
            if task is None:  # no prompt in flight: nothing will ask the model for this step
                self.ctx.fail(step.index, step.pos.line, "expect",
                              f"no prompt is in flight for the model's step `{step.summary}`: "
                              "a user input must come before it")  # fmt: skip
                return
            if task.done():
                await self._end_turn()  # raises the turn's error, or checks it
                if not await self.server.wait_step(step.index, timeout=0.5):
                    self.ctx.fail(step.index, step.pos.line, "expect",
                                  f"the agent ended its turn before the model's step `{step.summary}` was asked for")  # fmt: skip
                return
            if asyncio.get_running_loop().time() > self._deadline:
                await self._within(asyncio.sleep(1), f"the model's step `{step.summary}`")
            session = self.ctx.session
            if session is not None and not session.alive:
                raise DriverError(f"the agent exited (code {session.exit_code}) before step {step.index} "
                                  f"(line {step.pos.line}, {step.summary}) was served")  # fmt: skip

    async def _end_turn(self) -> None:
        """Wait for the turn in flight and check it against the scenario."""
        from workbench.acp.expect import check_turn

        task, turn = self._turn_task, self._turn
        self._turn_task = self._turn = None
        if task is None:
            return
        record = await self._within(task, "session/prompt")
        if turn is not None:
            for e in check_turn(turn.prompt, turn.steps, record):
                self.ctx.fail(e.step, e.line, "expect", e.message)
        # a scripted answer that did not fit the options offered: (scenario line, what was wrong)
        answers: list[tuple[int, str]] = getattr(self.client.answer, "problems", []) if self.client else []
        while answers:
            line, message = answers.pop(0)
            self.ctx.fail(0, line or (turn.line if turn else 0), "expect", message)

    # ------------------------------------------------------------------ end

    async def finish(self) -> int | None:
        await self._end_turn()
        await self._close()
        session = self.ctx.session
        code = None
        if session is not None:
            with contextlib.suppress(TimeoutError):
                code = await session.wait_exit(timeout=CLOSE_GRACE_S)
        await self._collect()
        return code

    async def _close(self) -> None:
        """Close the conversation: the agent reads end-of-file on its stdin, as when an editor quits."""
        if self.conn is not None:
            conn, self.conn = self.conn, None
            await conn.close()
        for writer in self._writers:
            writer.close()
        self._writers.clear()
        if self._guard is not None:
            self._guard.cancel()

    async def stop(self) -> None:
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()
        await self._close()
        if self.client is not None:
            await self.client.close()
        if self.recorder is not None:
            self.recorder.close()
        if self._server is not None:
            self._server.close()
        if self._socket_dir:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
        await super().stop()
