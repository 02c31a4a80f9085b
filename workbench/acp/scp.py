"""Test scripts for ACP agents in the spirit of Symposium's SCP test runner, completed.

A *script* is ``async def mock_user(ctx: TestContext) -> None``. It starts
sessions and talks::

    async def mock_user(ctx):
        session = await ctx.start_session()
        turn = await session.say("Hello, world")        # the whole turn
        assert turn.text == "Hello, user" and turn.stop_reason == "end_turn"
        await session.send("Fix the typo")              # start a turn ...
        text = await session.read_response()            # ... and read it until it ends
        ctx.log("info", text)

The same script runs unchanged under two runners:

* :class:`DirectRunner` starts the agent as a subprocess and talks over its
  stdin/stdout (what an editor does);
* :class:`InProcessRunner` serves an agent *object* in this process, over a
  socket pair, with the same wire format (fast, and debuggable).

Unlike the original (whose ``readResponseString`` resolved on the first chunk
and whose client refused fs and terminals), a turn here is everything until
the prompt's response — text, thoughts, tool calls merged by id, plans, mode
changes, permission answers, stop reason — and the client serves ``fs/*`` and
``terminal/*`` from a folder and answers permissions by a script.

Every message is observed by a :class:`~workbench.acp.wire.WireRecorder` (and
written to ``acp.jsonl`` when a path is given). A script that takes longer than
``timeout`` fails with :class:`AcpTimeout`, naming the last messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import linecache
import os
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError, connect_to_agent, run_agent, text_block
from acp.schema import InitializeResponse
from acp.transports import spawn_stdio_transport

from .client import PermissionAnswer, TurnRecord, WorkbenchClient, first_allow
from .guard import MAX_LINE_BYTES, guarded
from .wire import WireRecorder

Script = Callable[["TestContext"], Awaitable[None]]


async def _no_note() -> str:
    return ""


class AcpError(Exception):
    """The conversation failed: the agent answered with an error, closed the connection, or broke the protocol."""


class AcpTimeout(AcpError):
    """Nothing finished in time; the message names the script's line it waited at (``line``, 0 when not
    known) and the last JSON-RPC messages."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


class TestSession:
    """One ACP session: prompts and their turns."""

    __test__ = False  # not a pytest class

    def __init__(self, ctx: TestContext, session_id: str) -> None:
        self.ctx = ctx
        self.id = session_id
        self.turns: list[TurnRecord] = []
        self._inflight: asyncio.Task[TurnRecord] | None = None
        self.finished = False

    async def send(self, text: str | Sequence[Any]) -> None:
        """Start a prompt turn and return at once (read it with :meth:`read_response`)."""
        if self.finished:
            raise AcpError(f"session {self.id} is finished")
        if self._inflight is not None and not self._inflight.done():
            raise AcpError("a turn is still running: read_response() or cancel() it first")
        self._inflight = asyncio.ensure_future(self._turn(text))
        await asyncio.sleep(0)  # let the request go out

    async def _turn(self, text: str | Sequence[Any]) -> TurnRecord:
        blocks = [text_block(text)] if isinstance(text, str) else list(text)
        shown = text if isinstance(text, str) else " ".join(getattr(b, "text", "") or "" for b in blocks)
        try:
            record = await self.ctx.client.prompt(self.ctx.conn, self.id, blocks, shown)
        except RequestError as exc:
            raise AcpError(f"session/prompt failed: {exc} {exc.data or ''}".rstrip()) from None
        except ConnectionError:
            raise AcpError(
                f"the agent closed the connection during the turn {shown!r}{await self.ctx.exit_note()}"
            ) from None
        self.turns.append(record)
        return record

    async def read_response(self) -> str:
        """The text of the turn in flight, once it has ended (end_turn, cancelled, ...)."""
        return (await self.wait_turn()).text

    async def read_response_string(self) -> str:
        """SCP's ``readResponseString()``: the text of the turn in flight once it has ended, or, after
        :meth:`say` (which already waited), of the last turn."""
        if self._inflight is None and self.turns:
            return self.turns[-1].text
        return await self.read_response()

    async def wait_turn(self) -> TurnRecord:
        if self._inflight is None:
            raise AcpError("no turn was started: send() first")
        task, self._inflight = self._inflight, None
        return await task

    async def say(self, text: str | Sequence[Any]) -> TurnRecord:
        """Send a prompt and return the whole turn."""
        await self.send(text)
        return await self.wait_turn()

    async def cancel(self) -> None:
        """``session/cancel``; pending permission requests are then answered ``cancelled``."""
        self.ctx.client.cancelled.add(self.id)
        await self.ctx.conn.cancel(session_id=self.id)

    async def set_mode(self, mode_id: str) -> None:
        await self.ctx.conn.set_session_mode(session_id=self.id, mode_id=mode_id)

    async def finish(self) -> None:
        """End the session: a turn still running is cancelled and awaited."""
        if self._inflight is not None and not self._inflight.done():
            await self.cancel()
            with contextlib.suppress(AcpError):
                await self.wait_turn()
        self.finished = True


@dataclass
class TestContext:
    """What a script gets: sessions, a log, and the client that recorded everything."""

    __test__ = False

    conn: Any
    client: WorkbenchClient
    cwd: Path
    init: InitializeResponse | None = None
    logs: list[tuple[str, str]] = field(default_factory=list)
    sessions: list[TestSession] = field(default_factory=list)
    exit_note: Callable[[], Awaitable[str]] = field(default=lambda: _no_note())

    async def start_session(self, cwd: Path | None = None) -> TestSession:
        response = await self.conn.new_session(cwd=str(cwd or self.cwd), mcp_servers=[])
        session = TestSession(self, response.session_id)
        self.sessions.append(session)
        return session

    async def load_session(self, session_id: str, cwd: Path | None = None) -> TestSession:
        """``session/load``: the replayed history is in ``ctx.client.history[session_id]``."""
        await self.conn.load_session(session_id=session_id, cwd=str(cwd or self.cwd), mcp_servers=[])
        session = TestSession(self, session_id)
        self.sessions.append(session)
        return session

    def log(self, level: str, message: str) -> None:
        self.logs.append((level, message))
        print(f"[{level}] {message}", file=sys.stderr)

    async def finish(self) -> None:
        for session in self.sessions:
            await session.finish()


@dataclass
class RunResult:
    logs: list[tuple[str, str]]
    turns: list[TurnRecord]
    messages: int


async def _drive(conn: Any, client: WorkbenchClient, cwd: Path, script: Script, recorder: WireRecorder,
                 timeout: float, exit_note: Callable[[], Awaitable[str]]) -> RunResult:  # fmt: skip
    ctx = TestContext(conn, client, cwd, exit_note=exit_note)

    async def body() -> None:
        try:
            ctx.init = await client.initialize(conn)
        except ConnectionError:
            raise AcpError(
                f"the agent closed the connection before answering initialize{await exit_note()}"
            ) from None
        await script(ctx)
        await ctx.finish()

    task = asyncio.ensure_future(body())
    try:
        await asyncio.wait({task}, timeout=timeout)
        if not task.done():
            line, source, for_agent = _waiting_at(task, script)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            tail = f"the last messages were:\n{recorder.tail()}"
            if not line:
                raise AcpTimeout(f"no answer within {timeout:g} s; {tail}")
            if for_agent:
                raise AcpTimeout(f"no answer within {timeout:g} s: the script waits at line {line} ({source}) "
                                 f"for the agent; {tail}", line)  # fmt: skip
            raise AcpTimeout(f"the script did not finish within {timeout:g} s: it waits at line {line} ({source}), "
                             f"not for the agent; {tail}", line)  # fmt: skip
        task.result()
    finally:
        if not task.done():  # this run was cancelled from outside
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await client.close()
    return RunResult(ctx.logs, [t for s in ctx.sessions for t in s.turns], recorder.count)


def _waiting_at(task: asyncio.Task[None], script: Script) -> tuple[int, str, bool]:
    """Where the suspended ``task`` waits in the script's file: its deepest line there (0 if none), that
    line's source, and whether what it awaits is this module's (an answer of the agent)."""
    code = getattr(script, "__code__", None)
    if code is None:
        return 0, "", False
    frames = []
    awaited: Any = task.get_coro()
    while awaited is not None:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
        if frame is None:
            break
        frames.append(frame)
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
    mine = [i for i, f in enumerate(frames) if f.f_code.co_filename == code.co_filename]
    if not mine:
        return 0, "", False
    frame = frames[mine[-1]]
    source = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    for_agent = any(f.f_code.co_filename == __file__ for f in frames[mine[-1] + 1 :])
    return frame.f_lineno, source, for_agent


@dataclass
class DirectRunner:
    """The agent as a subprocess on stdio: ``command`` is its argv."""

    command: Sequence[str]
    cwd: Path
    env: dict[str, str] | None = None
    timeout: float = 60.0
    wire: Path | None = None
    answer: PermissionAnswer = first_allow
    serve_files: bool = True
    stderr_tail: list[str] = field(default_factory=list)

    async def run(self, script: Script) -> RunResult:
        client = WorkbenchClient(self.cwd if self.serve_files else None, answer=self.answer)
        recorder = WireRecorder(self.wire)
        env = {**os.environ, **(self.env or {})}  # the SDK would pass a trimmed environment
        process: Any = None

        drain: asyncio.Future[None] | None = None

        async def exit_note() -> str:
            """How the agent ended: its exit code and the end of its stderr (once both are in)."""
            if process is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), 2.0)
            if drain is not None:
                with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(asyncio.shield(drain), 1.0)
            code = process.returncode if process is not None else None
            tail = "".join(self.stderr_tail)[-800:].strip()
            return (f" (exit code {code})" if code is not None else "") + (
                f"; its stderr ends:\n{tail}" if tail else ""
            )

        garbage: list[str] = []
        try:
            async with spawn_stdio_transport(
                self.command[0], *self.command[1:], env=env, cwd=self.cwd, limit=MAX_LINE_BYTES
            ) as (
                reader,
                writer,
                proc,
            ):
                process = proc
                drain = asyncio.ensure_future(self._drain(proc))
                checked, guard = guarded(reader, writer, garbage.append)
                conn = connect_to_agent(client, writer, checked, observers=[recorder])
                try:
                    result = await _drive(conn, client, self.cwd, script, recorder, self.timeout, exit_note)
                finally:
                    await conn.close()
                    drain.cancel()
                    guard.cancel()
        except FileNotFoundError as exc:
            raise AcpError(f"cannot start the agent: {exc.strerror}: {self.command[0]}") from None
        finally:
            recorder.close()
        if garbage:
            raise AcpError("the agent's stdout is not JSON-RPC: " + "; ".join(garbage[:5]))
        return result

    async def _drain(self, proc: Any) -> None:
        """Keep the agent's stderr flowing (a full pipe would block it) and keep its end for messages."""
        if proc.stderr is None:
            return
        while line := await proc.stderr.readline():
            self.stderr_tail.append(line.decode("utf-8", "replace"))
            del self.stderr_tail[:-50]


@dataclass
class InProcessRunner:
    """An agent object served in this process over a socket pair (same wire format as stdio)."""

    agent: Any
    cwd: Path
    timeout: float = 60.0
    wire: Path | None = None
    answer: PermissionAnswer = first_allow
    serve_files: bool = True

    async def run(self, script: Script) -> RunResult:
        client = WorkbenchClient(self.cwd if self.serve_files else None, answer=self.answer)
        recorder = WireRecorder(self.wire)
        agent_sock, client_sock = socket.socketpair()
        agent_reader, agent_writer = await asyncio.open_unix_connection(sock=agent_sock)
        client_reader, client_writer = await asyncio.open_unix_connection(sock=client_sock)
        serving = asyncio.ensure_future(run_agent(self.agent, agent_writer, agent_reader))
        conn = connect_to_agent(client, client_writer, client_reader, observers=[recorder])
        try:
            return await _drive(conn, client, self.cwd, script, recorder, self.timeout, _no_note)
        finally:
            await conn.close()
            client_writer.close()
            serving.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await serving
            agent_writer.close()
            recorder.close()
