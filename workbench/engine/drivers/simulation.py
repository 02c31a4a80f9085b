"""`simulation`: the program under test is a *client* of the agent service; a mock REST/SSE server plays the agent.

The run starts :class:`~workbench.rest.server.RestServer` on its own loop
(127.0.0.1, a free port) with one session for the scenario, then the client:
the scenario's ``command`` with ``{rest_base_url}`` (the API root,
``http://127.0.0.1:PORT/api/v1``), ``{session_id}``, ``{workspace}`` and
``{scenario_dir}`` filled in (also in the environment as
``WORKBENCH_REST_URL`` and ``WORKBENCH_SESSION_ID``), or, without a
``command``, the built-in viewer (:mod:`workbench.rest.viewer`). A client that
creates a session (``POST /sessions``) is given the run's.

Agent steps, ``log``, ``status``, ``sse``, ``complete`` and ``merge`` are
published as session events when the run's clock reaches them (see
:mod:`workbench.rest.events`); input, screenshots and assertions are the
runner's, against the client's screen; user input, keys and ``userCommand``
are also published (``log`` ``user input (tui): ...``, as the format's mock
server does). An ``assert`` checks only ``text.contains`` (the client's
screen): its workspace checks are skipped checks with a note, never a pass,
since no tool runs in this mode. Before a screen is read, every event
published so far has been written to every subscriber and read by it (the
kernel's receive queue of its socket is empty), then the client's screen has
been quiet for ``max(settle_ms, 300)`` ms counted from then, so screenshots
are the same at every speed.
"""

from __future__ import annotations

import asyncio
import difflib
import re
import sys
from typing import Any, assert_never

from workbench.engine.program import Program
from workbench.engine.report import SkippedCheck
from workbench.names import Env
from workbench.scenario import model as m
from workbench.scenario.outcomes import skipped
from workbench.timeline import Step, StepKind

from .base import Checks, DriverError, RunContext, Skip
from .program import ProgramDriver

PUBLISHED = (m.Log, m.Status, m.SseEvent)  # besides the agent's steps
ALSO_RUNNER = (m.Complete, m.Merge, m.UserCommand)  # published, and the runner's too (with input and keys)
NOT_EVALUATED = (
    "not evaluated in simulation mode: Agent Harbor's format leaves workspace checks to modes where tools "
    "run (no tool runs here); the screen's `text.contains` is checked against the client"
)
SUBSCRIBE_WAIT_S = 10.0
CLIENT_QUIET_MS = 300
"""A client reads the stream into its own buffers (what the kernel shows as read may still wait there), then
draws; its quiet time counts from when it has read the new events, not from its last output."""
DELIVER_WAIT_S = 10.0


class SimulationDriver:
    def __init__(self, ctx: RunContext) -> None:
        from workbench.rest.events import EventMaker
        from workbench.rest.player import new_session, session_id_for
        from workbench.rest.server import RestServer

        self.ctx = ctx
        self.session = new_session(session_id_for(ctx.scenario.name, set()), ctx.scenario, ctx.schedule)
        self.server = RestServer(creator=self._created)
        self.server.add(self.session)
        self.maker = EventMaker(self.session.id)
        self._client = ProgramDriver(ctx, quiet_ms=CLIENT_QUIET_MS)
        self._waited_for_subscriber = False
        self._settled_events = 0

    def _created(self, body: Any) -> Any:
        return self.session  # a client that asks for a session follows the run's

    async def start(self, program: Program) -> None:
        from workbench.rest.player import no_timeline

        if (why := no_timeline(self.ctx.scenario)) is not None:
            raise Skip(why)
        base_url = await self.server.start()
        ctx = self.ctx
        values = {"rest_base_url": base_url, "session_id": self.session.id, "workspace": str(ctx.workspace.path),
                  "scenario_dir": str(ctx.path.parent.resolve())}  # fmt: skip
        if ctx.scenario.command:
            _check_placeholders(ctx.scenario, values)
            argv = tuple(_fill(word, values) for word in ctx.scenario.command)
        else:
            argv = (sys.executable, "-m", "workbench.rest.viewer", base_url, self.session.id)
            if ctx.scenario.expect.exit_code is not None:  # the run waits for its exit: at the stream's end
                argv += ("--exit",)
        env = {**program.env, Env.REST_URL: base_url, Env.SESSION_ID: self.session.id}
        await self._client.start(Program(argv, env, mock_agent=False))

    async def play(self, step: Step) -> Checks | None:
        match step.kind:
            case (StepKind.THINK | StepKind.ASSISTANT | StepKind.LLM_ERROR | StepKind.LLM_RESPONSE | StepKind.TOOL_START
                  | StepKind.TOOL_PROGRESS | StepKind.TOOL_OUTPUT | StepKind.TOOL_RESULT | StepKind.EDIT | StepKind.ACP):  # fmt: skip
                self.session.play(self.maker.step(step))
                return []
            case StepKind.CONTROL:
                if isinstance(step.event, (*PUBLISHED, *ALSO_RUNNER)):
                    self.session.play(self.maker.step(step))
                if isinstance(step.event, m.Assert):
                    return await self._assert(step, step.event)
                return [] if isinstance(step.event, PUBLISHED) else None
            case StepKind.INPUT | StepKind.KEY:
                self.session.play(self.maker.step(step))
                return None
            case StepKind.CANCEL | StepKind.ADVANCE:
                return None
            case unknown:
                assert_never(unknown)

    async def _assert(self, step: Step, event: m.Assert) -> Checks:
        """The client's screen is checked; the workspace parts are noted as not evaluated, never passed."""
        checks: Checks = []
        if event.text_contains:
            for outcome in await self.ctx.assert_outcomes(step, screen_only=True):
                checks.append(outcome)
                if not outcome.ok:
                    self.ctx.fail(step.index, step.pos.line, "assert", outcome.message)
        if event.fs_exists or event.fs_not_exists or event.json_file or event.git_commit_message_contains:
            message = f"{step.summary}: {NOT_EVALUATED}"
            self.ctx.result.skipped_checks.append(SkippedCheck(step.index, step.pos.line, "assert", message))
            checks.append(skipped(message))
        return checks

    async def settle(self) -> None:
        if not self._waited_for_subscriber:
            self._waited_for_subscriber = True
            await self._wait_for_client()
        await self.session.wait_delivered(DELIVER_WAIT_S)
        if len(self.session.events) != self._settled_events:
            # The client has read events it may not have drawn yet: a screen that was quiet before they came
            # says nothing about them. Give it the quiet time from now, then the usual quiet test.
            self._settled_events = len(self.session.events)
            await asyncio.sleep(self._client.quiet_ms / 1000)
        await self._client.settle()

    async def _wait_for_client(self) -> None:
        """Until the client follows (or lists) the session's events, at most :data:`SUBSCRIBE_WAIT_S` (a client
        that never reads them waits it out); a client that exits first never will: the run fails saying so."""
        client = self.ctx.session
        assert client is not None
        subscribed = asyncio.ensure_future(self.session.wait_subscribed(SUBSCRIBE_WAIT_S))
        exited = asyncio.ensure_future(client.wait_exit(SUBSCRIBE_WAIT_S))
        try:
            await asyncio.wait((subscribed, exited), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (subscribed, exited):
                task.cancel()
            await asyncio.gather(subscribed, exited, return_exceptions=True)
        if client.alive or self.session.subscribers or self.session.polled:
            return
        events = f"{self.server.base_url}/sessions/{self.session.id}/events"
        raise DriverError(f"the client exited (code {client.exit_code}) before it followed the session's events "
                          f"(GET {events}) or listed them; {self.ctx.the_screen()}")  # fmt: skip

    async def finish(self) -> int | None:
        self.session.close()  # the client's streams end: the session is over
        return await self._client.finish()

    async def stop(self) -> None:
        await self.server.stop()


def _check_placeholders(scenario: m.Scenario, values: dict[str, str]) -> None:
    """A ``{name}`` in the client's command close to a placeholder but not one (``{rest_url}``) is a typo:
    fail at `command` naming the nearest (braces that name nothing near, ``{}`` or ``{x}``, are the
    program's own)."""
    for word in scenario.command or ():
        for name in re.findall(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", word):
            near = difflib.get_close_matches(name, values, n=1, cutoff=0.7)
            if name not in values and near:
                known = ", ".join("{" + v + "}" for v in values)
                pos = scenario.command_pos
                raise DriverError(f"`{{{name}}}` is no placeholder of simulation mode: did you mean `{{{near[0]}}}`? "
                                  f"(the placeholders are {known})", at=(0, pos.line, "process") if pos else None)  # fmt: skip


def _fill(word: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        word = word.replace("{" + name + "}", value)
    return word
