"""`workbench run --mode real-agent`: a real coding agent in the pty, the mock LLM
server playing the model.

The run starts :class:`~workbench.llm.LlmServer` on its own asyncio loop with the
scenario, a fresh API key (so the run has its own session), the run's workspace
(for ``assert`` fs checks) and run folder (request log, mismatching requests),
then starts the agent through a preset (``--agent claude-code|codex|pi``, see
:mod:`workbench.llm.agents`) or the scenario's ``command`` with ``{base_url}``
placeholders. The schedule is then walked as in mock-agent mode, except:

* agent steps (thinking, text, tool calls) are the server's: the engine waits
  until the server has sent them (or the agent exits, a failure);
* ``assert`` steps are evaluated by the server before it sends the next reply;
  it calls back into the run for what only the engine sees (the screen's
  ``text.contains``, ``assertGit``), with the runner's own checks;
* in print mode the scenario's first input is the agent's command-line prompt
  and is not typed; in TUI mode inputs are typed once the agent shows that it
  takes input and, without a preset's ready text, has gone idle (:mod:`workbench.terminal.idle`);
* the server sends a reply only once the runner has played the steps before it
  (a screenshot, an input), as the mock agent is paced;
* before a screenshot the engine waits for the agent steps before it, then for
  the screen to be quiet for ``max(settle_ms, 500)`` ms; in print mode a
  screenshot after the last agent step waits for the agent to exit.

At the end the server checks what the session left (final asserts, replies never
asked for) and every :class:`~workbench.llm.LlmFailure` becomes a report failure
with its kind and line.

Volatile text (versions, timings, temp paths) is kept out of goldens either by
the moment and the size of the screen (print mode screenshots after the agent
exits hold only the model's text) or, for the agents' TUIs, by the scenario's
``masks`` (:mod:`workbench.terminal.masks`), applied to every screenshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import TYPE_CHECKING, Any, assert_never

from workbench.engine.program import Program
from workbench.engine.report import Mismatch
from workbench.scenario import model as m
from workbench.terminal.idle import BUSY_LIMIT_S
from workbench.terminal.session import WaitTimeout
from workbench.timeline import AGENT_KINDS, Step, StepKind

from .base import Checks, DriverError, RunContext

if TYPE_CHECKING:
    from workbench.llm import LlmFailure, LlmServer
    from workbench.llm.drift import DriftCheck
    from workbench.terminal.session import PtySession

AGENT_EXIT_GRACE_S = 0.5
MIN_SETTLE_MS = 500
READY_TIMEOUT_S = 60.0
DRAW_AFTER_REPLY_S = 5.0  # how long a settle waits for the agent to draw a reply it was sent


class RealAgentDriver:
    """The real-agent side of one run."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.server: LlmServer | None = None
        self.api_key = "wb-" + secrets.token_hex(8)  # short: Claude Code stores the last 20 characters
        self.ui = ctx.options.option("agent-ui") or "tui"
        self.ready: str | None = None
        self._typed_prompt = False
        self._ready_seen = False  # the program has taken input once: later keys need no wait
        self._finished = False
        self._last_agent_step = -1
        self._drawn_from: int | None = None  # output read when the last reply went out, until it is drawn
        self._asked: dict[
            int, tuple[str, bool]
        ] = {}  # input step -> the agent's prompt at it, whether it holds it

    # ------------------------------------------------------------------ start

    async def start(self, program: Program) -> None:
        """Start the server, then the agent (its preset's argv and environment, or the scenario's command)."""
        await self.ctx.spawn(await self._agent_program(program))

    async def _agent_program(self, program: Program) -> Program:
        from workbench.llm.agents import Endpoint, PresetError, endpoint_env, expand_command
        from workbench.llm.agents import agent_named as preset_named

        ctx = self.ctx
        scenario, options = ctx.scenario, ctx.options
        preset = None
        agent = options.option("agent")
        if agent:
            try:
                preset = preset_named(agent)
            except PresetError as exc:
                raise DriverError(str(exc)) from None
        elif not scenario.command:
            from workbench.llm.agents import AGENTS

            raise DriverError(f"real-agent mode needs an agent: `--agent {'|'.join(AGENTS)}`, "
                              "or a scenario `command` with {base_url} placeholders")  # fmt: skip
        if scenario.rules is None:
            steps = [s.index for s in ctx.schedule.steps if s.kind in AGENT_KINDS]
            self._last_agent_step = max(steps, default=-1)
        self.server = self.new_server(
            speed=options.speed, out_dir=ctx.run_dir, workspace=ctx.workspace.path,
            on_assert=self._on_assert, on_step=self._on_step, on_prompt=self._on_prompt,
            profile=preset.profile if preset else None,
            drift=self._drift(),
        )  # fmt: skip
        base_url = await self.server.start()
        home = (ctx.run_dir / "home").resolve()  # the agent runs in the workspace: no relative paths
        endpoint = Endpoint(base_url, self.api_key, ctx.workspace.path, home, self._prompt(scenario))
        env = {**program.env, "HOME": str(home)}
        if preset is None:
            assert scenario.command is not None
            env.update(endpoint_env(endpoint))
            if any("{prompt}" in word for word in scenario.command):
                self.ui = "print"  # the first input is on its command line, not typed
            elif self.ui == "print" and (first := next((s for s in ctx.schedule.steps if s.kind is StepKind.INPUT),
                                                        None)) is not None:  # fmt: skip
                raise DriverError(f"--agent-ui print gives the first input (line {first.pos.line}) on the agent's "
                                  "command line, but the scenario's `command` has no `{prompt}` placeholder to put "
                                  "it in: add one (as in `-p \"{prompt}\"`), or leave out --agent-ui print to type "
                                  "the inputs")  # fmt: skip
            return Program(expand_command(scenario.command, endpoint), env, mock_agent=False)
        try:
            launch = preset.launch(endpoint, self.ui)
        except PresetError as exc:
            raise DriverError(str(exc)) from None
        env.update(launch.env)
        self.ready = launch.ready
        return Program(launch.argv, env, mock_agent=False)

    def _drift(self) -> DriftCheck | None:
        """``--drift``: the requests recorded beside the scenario, to compare the replay's with."""
        if self.ctx.options.option("drift") is None:
            return None
        from workbench.llm.drift import DriftError, drift_check, sidecar_path

        ws = self.ctx.workspace.path
        places = (str(ws), str(ws.resolve()), str((self.ctx.run_dir / "home").resolve()))
        try:
            return drift_check(sidecar_path(self.ctx.path), places)
        except DriftError as exc:
            raise DriverError(str(exc)) from None

    def _report_drift(self) -> None:
        server = self.server
        if server is None or server.drift is None:
            return
        for change in server.drift.report():
            if self.ctx.options.option("drift") == "fail":
                self.ctx.fail(0, 0, "expect", f"drift: {change}")
            else:
                self.ctx.result.warnings.append(f"drift: {change}")

    def new_server(self, **kwargs: Any) -> LlmServer:
        """The run's mock LLM server, playing the scenario (a playbook run plays its playbook instead)."""
        from workbench.llm import LlmServer

        return LlmServer([self.ctx.scenario], **kwargs)

    def _prompt(self, scenario: m.Scenario) -> str:
        return scenario.effective_initial_prompt or "hello"

    # ------------------------------------------------------------------ steps

    async def play(self, step: Step) -> Checks | None:
        """Play ``step`` the real-agent way; None lets the runner play it as usual."""
        match step.kind:
            case (StepKind.THINK | StepKind.ASSISTANT | StepKind.LLM_ERROR | StepKind.LLM_RESPONSE | StepKind.TOOL_START
                  | StepKind.TOOL_PROGRESS | StepKind.TOOL_OUTPUT | StepKind.TOOL_RESULT | StepKind.EDIT | StepKind.ACP):  # fmt: skip
                if (prompt := self._initial_prompt()) is not None and not await self._wait_ready(
                    step, prompt
                ):
                    await self._type_input(prompt)
                self.ctx.waiting_for_program = True
                try:
                    await self._wait_served(step)
                finally:
                    self.ctx.waiting_for_program = False
                return []
            case StepKind.INPUT:
                if self.ui == "print" and not self._typed_prompt:
                    self._typed_prompt = True  # it is the agent's command-line prompt
                    return []
                if await self._wait_ready(step):
                    return []  # the agent has it already: it asked the model with it
                await self._type_input(step.input.text)
                return []
            case StepKind.KEY:
                await self._wait_ready(step)
                return None
            case StepKind.CONTROL:
                if isinstance(step.event, m.Assert | m.AssertGit):
                    return []  # the server evaluates it before its next reply (see on_assert)
                if (
                    isinstance(step.event, m.Screenshot)
                    and self.ui == "print"
                    and step.index > self._last_agent_step
                ):
                    await self._wait_exit()
                return None
            case StepKind.CANCEL | StepKind.ADVANCE:
                return None
            case unknown:
                assert_never(unknown)

    async def _type_input(self, text: str) -> None:
        """Typed, then submitted once the agent has drawn it: text and Enter in one write look like a paste to
        some TUIs (the Enter becomes a newline)."""
        submit = not text.endswith(("<Enter>", "\r", "\n"))
        await self.settle()
        await self.ctx.type(text)
        if submit:
            await self.settle()
            self.ctx.write("<Enter>")

    def _initial_prompt(self) -> str | None:
        """Before the model's first turn: the scenario's ``initialPrompt`` when it types nothing else (Agent
        Harbor's files for its mock agent, which takes the prompt as an argument), to type into the agent's
        TUI; None in print mode or a ``{prompt}`` command, which have it on the command line already."""
        if self._typed_prompt or self.ui == "print":
            return None
        self._typed_prompt = True
        inputs = (s for s in self.ctx.schedule.steps if s.kind in (StepKind.INPUT, StepKind.KEY))
        return self.ctx.scenario.initial_prompt if next(inputs, None) is None else None

    def _model_asked(self) -> bool:
        return self.server is not None and any(session.requests for session in self.server.sessions)

    async def _wait_served(self, step: Step) -> None:
        assert self.server is not None and self.ctx.session is not None
        session = self.ctx.session
        served = self.server.position() >= step.index
        while not await self.server.wait_step(step.index, timeout=0.2):
            if self.server.fatal is not None:  # the step cannot be sent (no offered tool does it)
                fatal = self.server.fatal
                raise DriverError(fatal.message, at=(fatal.step, fatal.line, fatal.kind))
            if not session.alive:
                # the agent may still be sending: give its last request a moment
                if await self.server.wait_step(step.index, timeout=AGENT_EXIT_GRACE_S):
                    return
                raise DriverError(
                    f"the agent exited (code {session.exit_code}) before step {step.index} "
                    f"(line {step.pos.line}, {step.summary}) was served{self._print_hint(step)}"
                )
        if not served:
            self._drawn_from = session.bytes_read

    def _print_hint(self, step: Step) -> str:
        """Why a print-mode agent may have exited early: it answers its one prompt, and a later input needs
        the TUI."""
        if self.ui != "print":
            return ""
        inputs = [s for s in self.ctx.schedule.steps if s.kind is StepKind.INPUT and s.index <= step.index]
        if len(inputs) < 2:
            return ""
        return (f"; in print mode the agent answers its one prompt and exits, so the input at line "
                f"{inputs[1].pos.line} is never read: drive its TUI (no `{{prompt}}` in `command`, "
                "no --agent-ui print) for a conversation")  # fmt: skip

    async def _wait_ready(self, step: Step, initial: str | None = None) -> bool:
        """Before the first key: the preset's ready text, else until the program's terminal asks for input
        (:mod:`workbench.terminal.reading`); a program that never does ends the run with its screen. True
        when nothing is to be typed: before anything was typed, the agent asked the model with this input
        (or the ``initial`` prompt) as its prompt (it took it from its command line)."""
        session = self.ctx.session
        if session is None or self._ready_seen:
            return False
        if initial is not None and self._model_asked():
            return True
        if self.ready is not None:
            try:
                await session.wait_for_text(
                    self.ready, timeout=min(READY_TIMEOUT_S, self.ctx.options.timeout_s)
                )
            except WaitTimeout as exc:
                raise DriverError(
                    f"the agent never showed its ready text (its preset's `ready`): {exc}"
                ) from None
        else:
            from workbench.terminal.reading import reads_input

            loop = asyncio.get_running_loop()
            deadline = loop.time() + min(READY_TIMEOUT_S, self.ctx.options.timeout_s)
            busy_until = loop.time() + BUSY_LIMIT_S
            while True:
                while not reads_input(session.fd):
                    if self._given(step, blocked=True) or (initial is not None and self._model_asked()):
                        return True
                    if not session.alive:
                        raise DriverError(f"the agent exited (code {session.exit_code}) before it took input"
                                          f"{self._print_hint(step)}; {self.ctx.the_screen()}")  # fmt: skip
                    if loop.time() > deadline:
                        raise DriverError(f"the agent never asked for input (its terminal stayed in line mode "
                                          f"and nothing read it); {self.ctx.the_screen()}")  # fmt: skip
                    await asyncio.sleep(0.05)
                # Asking is not taking: it may still be loading, and drop what is typed (terminal.idle). One
                # whose screen never goes quiet fails in the settle, as it would before typing.
                await self.settle()
                settle_ms = max(self.ctx.options.settle_ms, MIN_SETTLE_MS)
                idle = await session.wait_idle(settle_ms, limit=max(0.0, busy_until - loop.time()))
                if not idle or reads_input(session.fd):
                    break
        if self._given(step):
            return True
        self._ready_seen = True
        return False

    def _on_prompt(self, step: Step, prompt: str, holds: bool) -> None:
        self._asked[step.index] = (prompt, holds)

    def _given(self, step: Step, blocked: bool = False) -> bool:
        """Whether the agent asked the model before anything was typed, as a program does that takes its
        prompt from its command line: with this input as its prompt, the input is given (True). With another,
        from an agent that is ``blocked`` (it does not read its terminal: it waits for that answer), the replay
        cannot go on, since the scenario answers that input: a failure naming both, at once. (One that reads
        its terminal is typed to: its request was one of its own, a warm-up, and is answered after the input.)"""
        asked = self._asked.get(step.index)
        if asked is None or self.ctx.typed_bytes:
            return False
        prompt, holds = asked
        if holds or not blocked:
            return holds
        typed = step.input.text if step.kind is StepKind.INPUT else step.summary
        shown = " ".join(prompt.split())
        raise DriverError(
            f"the agent asked the model before the input at line {step.pos.line} was typed, with a prompt of its "
            f"own ({shown[:80]!r}) that is not the scenario's input ({typed[:80]!r}): the replay answers that "
            "input, so it cannot go on. An agent that takes its prompt on its command line gets the scenario's "
            "with `{prompt}` in its `command`"
        )

    async def _wait_exit(self) -> None:
        session = self.ctx.session
        if session is not None and session.alive:
            await session.wait_exit(timeout=self.ctx.options.timeout_s)

    async def settle(self) -> None:
        session = self.ctx.session
        assert session is not None
        ms = max(self.ctx.options.settle_ms, MIN_SETTLE_MS)
        if self._drawn_from is not None:
            # A reply just went out: quiet only counts once the agent has drawn something of it (a busy
            # machine may take a while to get it on screen; the quiet before the reply is not the end).
            with contextlib.suppress(WaitTimeout):
                await session.wait_bytes_read(self._drawn_from + 1, DRAW_AFTER_REPLY_S)
            self._drawn_from = None
        await session.wait_stable(ms, timeout=min(30.0, self.ctx.options.timeout_s))

    async def _on_step(self, step: Step) -> None:
        """Before the server sends what comes after ``step`` (a screenshot, an input, a command): until the
        runner has played it, as the mock agent is paced. The agent asks at once; a screenshot the file puts
        before a reply would otherwise show the reply, or not, as the race went."""
        await self.ctx.wait_played(step.index)

    async def _on_assert(self, step: Step) -> list[LlmFailure]:
        """The run's checks for what the server cannot see itself (the screen, git branches)."""
        from workbench.llm import LlmFailure

        outcomes = await self.ctx.assert_outcomes(step, screen_only=True)
        return [LlmFailure("assert", o.message, step.pos.line, step.index, self.ctx.result.file)
                for o in outcomes if not o.ok]  # fmt: skip

    # ------------------------------------------------------------------ end

    async def finish(self) -> int | None:
        """After the last step: the agent's exit code (print mode), then the server's verdict."""
        session = self.ctx.session
        assert session is not None
        code: int | None = None
        if self.ui == "print" or self.ctx.scenario.expect.exit_code is not None:
            if self.ui != "print":
                await self._end_input(session)
            code = await session.wait_exit(timeout=self.ctx.options.timeout_s)
        elif not session.alive:
            code = session.exit_code
        await self._collect()
        return code

    async def _end_input(self, session: PtySession) -> None:
        """The scenario is over and ``expect.exitCode`` waits for the agent to exit: one that waits for a line
        from its terminal (a prompt such as ``> ``, read in canonical mode) gets the end of input (Ctrl-D), as
        the user ends such a program; the scenario has nothing more to type. One that reads keys (a TUI) is
        left to exit by itself."""
        from workbench.terminal.line_read import line_reader

        deadline = asyncio.get_running_loop().time() + self.ctx.options.timeout_s
        while session.alive and asyncio.get_running_loop().time() < deadline:
            if line_reader(session.fd) is not None:
                self.ctx.write("<C-d>")
                return
            await asyncio.sleep(0.05)

    async def _collect(self, final: bool = True) -> None:
        """Turn the server's failures into report failures; ``final`` also ends the sessions
        (final asserts, replies never asked for), which only makes sense after the last step."""
        if self.server is None or self._finished:
            return
        self._finished = True
        if final:
            await self.server.finish()
            self._report_drift()
        for f in self.server.failures:
            if f is not self.server.fatal and f.kind != "note":  # the fatal one is the run's failure already
                self.ctx.fail(f.step, f.line, f.kind, f.message)
        self.ctx.result.notes.extend(dict.fromkeys(str(n.message) for n in self.server.notes))
        self.ctx.result.mismatches.extend(
            Mismatch(n.step, n.line, "prompt", n.expected, n.actual or "")
            for n in dict.fromkeys(self.server.notes)
            if n.expected is not None
        )

    async def stop(self) -> None:
        """On the way out, also after a failure or a timeout: report what the server saw, stop it."""
        self.ctx.step_played(len(self.ctx.schedule.steps))  # nothing more is played: no reply waits for it
        await self._collect(final=False)
        if self.server is not None:
            await self.server.stop()
            self.server = None
