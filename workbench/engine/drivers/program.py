"""`program`: a plain terminal program (a shell, a REPL, a TUI) with no agent side to play.

Agent steps are the program's own business and are recorded only. Input is
typed the way a person types: once the program has shown something (a program
that has printed nothing yet is not ready, however quiet it is) and its screen
has then been quiet for ``settle_ms``, so what it shows never depends on how
fast the run goes or how busy the machine is. A program that shows nothing
until it is typed to (``cat``, a script's prompt-less ``input()``) is ready as soon
as the kernel shows it blocked reading a line from its terminal
(:func:`~workbench.terminal.line_read.line_reader`); one that neither shows
anything nor reads is given :data:`SILENT_START_S` of wall time, once; then
input is typed anyway. (A TUI that has switched its terminal to raw mode but
drawn nothing yet is not ready: it draws next.) Nor is one, the first time, whose processes are still
busy, however quiet its screen: it may be loading, and drop what is typed (:mod:`workbench.terminal.idle`;
after :data:`~workbench.terminal.idle.BUSY_LIMIT_S` it is typed to all the same). A scenario that must wait for a particular
prompt or output says so with ``waitFor``.
"""

from __future__ import annotations

import asyncio
import contextlib

from workbench.engine.program import Program
from workbench.terminal import PtySession
from workbench.terminal.idle import BUSY_LIMIT_S
from workbench.terminal.line_read import line_reader
from workbench.terminal.session import WaitTimeout
from workbench.timeline import AGENT_KINDS, Step

from .base import Checks, RunContext

SILENT_START_S = 5.0  # a program that printed nothing this long after its start waits for input
_POLL_S = 0.02  # how often a silent program is looked at (it wakes the wait at once when it prints)


class ProgramDriver:
    def __init__(self, ctx: RunContext, *, quiet_ms: int | None = None) -> None:
        self.ctx = ctx
        self.quiet_ms = ctx.options.settle_ms if quiet_ms is None else max(quiet_ms, ctx.options.settle_ms)
        self._started = False  # it has shown something, or was given its time to

    async def start(self, program: Program) -> None:
        await self.ctx.spawn(program)

    async def play(self, step: Step) -> Checks | None:
        return [] if step.kind in AGENT_KINDS else None  # recorded: nobody plays the agent side

    async def settle(self) -> None:
        session = self.ctx.session
        assert session is not None
        timeout = self.ctx.options.timeout_s
        if not self._started:
            await _started(session, min(SILENT_START_S, timeout))
            self._started = True
            await session.wait_stable(self.quiet_ms, timeout=timeout)  # one that never goes quiet fails here
            await session.wait_idle(self.quiet_ms, limit=min(BUSY_LIMIT_S, timeout))
        await session.wait_stable(self.quiet_ms, timeout=timeout)

    async def finish(self) -> int | None:
        session = self.ctx.session
        assert session is not None
        if self.ctx.scenario.expect.exit_code is None:
            return None
        return await session.wait_exit(timeout=self.ctx.options.timeout_s)

    async def stop(self) -> None:
        return None


async def _started(session: PtySession, limit: float) -> None:
    """Until the program has shown something, or reads a line from its terminal without having shown
    anything, or has ended; at most ``limit`` seconds."""
    deadline = asyncio.get_running_loop().time() + limit
    while session.bytes_read == 0 and session.alive and line_reader(session.fd) is None:
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0:
            return
        with contextlib.suppress(WaitTimeout):
            await session.wait_bytes_read(1, timeout=min(_POLL_S, left))
