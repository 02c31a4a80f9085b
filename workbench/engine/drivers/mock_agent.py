"""`mock-agent`: the built-in mock agent plays the agent side, paced over its control channel.

The engine tells the agent when to play each agent step and learns how many
bytes it wrote; before any screen is read, the pty reader has drawn all of them.
That is why mock-agent screenshots are identical at every speed, with no
quiet-time guess. A user input is a prompt to the agent: it is sent like a chat
message (with Enter) and synced the same way.

A scenario that names its own program (``command:``, ``ah:``) has no mock agent
to pace: this mode then plays it as the ``program`` mode does.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from typing import assert_never

from workbench.agent.control import ENV_VAR, EngineLink
from workbench.engine.program import Program
from workbench.scenario import model as m
from workbench.scenario.outcomes import CheckOutcome
from workbench.timeline import AGENT_KINDS, Step, StepKind

from .base import Checks, RunContext, Skip, key_notation
from .program import ProgramDriver

SYNC_TIMEOUT_S = 30.0


class MockAgentDriver:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self._link: EngineLink | None = None
        self._socket_dir: str | None = None
        self._base = 0
        self._plain: ProgramDriver | None = None

    async def start(self, program: Program) -> None:
        if self.ctx.scenario.format == "claudeless":
            # Response rules answer a real agent's requests; there is nothing for the mock agent to play.
            raise Skip("Claudeless rules answer a real agent: run them with --mode real-agent")
        if not program.mock_agent:
            if any(step.kind in AGENT_KINDS for step in self.ctx.schedule.steps):
                self.ctx.result.warnings.append(
                    "the scenario scripts the model's replies, but its program replaces the built-in mock agent "
                    "and in mock-agent mode nothing serves a model API to it: the replies are not played (an "
                    "agent of your own runs with `--mode real-agent`; a plain program with `--mode program`)"
                )
            self._plain = ProgramDriver(self.ctx)
            await self._plain.start(program)
            return
        checkpoint = self.ctx.options.option("checkpoint-cmd")
        if checkpoint:  # the agent runs it after each tool and edit
            extra = ("--checkpoint-cmd", checkpoint)
            program = replace(
                program, argv=(*program.argv, *extra), agent_args=(*(program.agent_args or ()), *extra)
            )
        self._link = EngineLink()  # in a private folder of its own, short enough whatever TMPDIR is
        await self._link.start()
        program.env[ENV_VAR] = self._link.path
        session = await self.ctx.spawn(program)
        hello = await self._link.wait_connected(  # an agent that dies first ends the wait with its screen
            timeout=SYNC_TIMEOUT_S, exited=session.wait_exit(SYNC_TIMEOUT_S), screen=self.ctx.screen_text
        )
        await self._sync(hello["written"])

    async def play(self, step: Step) -> Checks | None:
        if self._plain is not None:
            return await self._plain.play(step)
        match step.kind:
            case (StepKind.THINK | StepKind.ASSISTANT | StepKind.LLM_ERROR | StepKind.LLM_RESPONSE | StepKind.TOOL_START
                  | StepKind.TOOL_PROGRESS | StepKind.TOOL_OUTPUT | StepKind.TOOL_RESULT | StepKind.EDIT | StepKind.ACP):  # fmt: skip
                return await self._agent_step(step)
            case StepKind.INPUT:
                text = step.input.text
                if not text.endswith(("<Enter>", "\r", "\n")):
                    text += "<Enter>"  # to the mock agent a user input is a prompt, sent like a chat message
                await self._type(text)
                return []
            case StepKind.KEY:
                assert isinstance(step.event, m.KeyPress)
                await self._type(key_notation(step.event.key))
                return []
            case StepKind.CANCEL | StepKind.ADVANCE | StepKind.CONTROL:
                return None
            case unknown:
                assert_never(unknown)

    async def _agent_step(self, step: Step) -> Checks:
        assert self._link is not None
        done = await self._link.request(
            {"op": "step", "index": step.index}, "done", timeout=self.ctx.options.timeout_s
        )
        await self._sync(done["written"])
        checks: Checks = []
        for f in done.get("failures", []):
            self.ctx.fail(step.index, f["line"], f["kind"], f["message"])
            checks.append(CheckOutcome(False, f["message"]))
        return checks

    async def _type(self, text: str) -> None:
        assert self._link is not None
        self.ctx.write(text)
        synced = await self._link.request(
            {"op": "sync", "bytes": self.ctx.typed_bytes}, "synced", timeout=SYNC_TIMEOUT_S
        )
        await self._sync(synced["written"])

    async def _sync(self, written: int) -> None:
        """Wait until the pty reader has drawn every byte the mock agent reports having written."""
        assert self.ctx.session is not None
        await self.ctx.session.wait_bytes_read(self._base + written, timeout=SYNC_TIMEOUT_S)

    async def settle(self) -> None:
        if self._plain is not None:
            await self._plain.settle()
        # else: every step is synced already

    async def finish(self) -> int | None:
        if self._plain is not None:
            return await self._plain.finish()
        assert self._link is not None and self.ctx.session is not None
        bye = await self._link.request({"op": "end"}, "bye", timeout=SYNC_TIMEOUT_S)
        await self._sync(bye["written"])
        return await self.ctx.session.wait_exit(timeout=SYNC_TIMEOUT_S)

    async def stop(self) -> None:
        if self._link is not None:
            await self._link.close()
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
