"""One run of one scenario: the execution core shared by `workbench run` and the app.

A run prepares the scenario (load + compile), makes a workspace, hands the
agent side to the driver of its mode (:mod:`workbench.engine.drivers`), and
walks the schedule on a virtual clock: each step is offered to the driver
first, then played from the runner's table (:data:`STEP_KINDS`): input typed
into the terminal, commands run in the workspace, screenshots captured,
assertions checked. Observers (the trace, the console, the app) see every step.

Screens are compared only once the driver says the terminal has settled (the
mock agent: every byte it wrote has been drawn; another program: quiet for
``settle_ms``). That is why screenshots are identical at every speed.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, assert_never

from workbench.agent.control import ControlError
from workbench.clock import VirtualClock
from workbench.crash import ReportedCrash, write_crash_report
from workbench.engine import loaded
from workbench.engine.drivers import DEFAULT_MODE, DRIVERS, driver_class, unknown_mode
from workbench.engine.drivers.base import (
    Checks,
    Driver,
    DriverError,
    RunContext,
    Skip,
    Stopped,
    key_notation,
)
from workbench.engine.fork import can_fork, fork_session
from workbench.engine.options import RunOptions
from workbench.engine.program import Program, program_for, unsaved_text
from workbench.engine.report import Failure, ScenarioResult, ShotResult, SkippedCheck
from workbench.engine.requires import expand_env
from workbench.engine.screen_responders import ScreenResponders
from workbench.engine.steps import handler_of
from workbench.engine.trace import StepRecord, TraceObserver
from workbench.names import Env
from workbench.records import record
from workbench.scenario import model as m
from workbench.scenario.loader import display_name, readable
from workbench.scenario.masks import option_masks, scenario_masks
from workbench.scenario.names import folder_name
from workbench.scenario.outcomes import CheckOutcome, FailureKind, skipped
from workbench.scenario.user_regex import PatternTooSlow, UserRegex
from workbench.terminal import AsciicastRecorder, GoldenStore, PtySession, Screen
from workbench.terminal.line_read import line_reader
from workbench.terminal.masks import mask_shot
from workbench.terminal.session import WaitTimeout
from workbench.timeline import Schedule, Step, StepKind
from workbench.timeline.prepare import Prepared, prepare
from workbench.workspace import Workspace, WorkspaceError
from workbench.workspace.asserts import command_checks
from workbench.workspace.diffs import FileTexts
from workbench.workspace.landlock import default_writable, scratch_folder
from workbench.workspace.sandbox import ProgramSandbox, Sandbox

__all__ = ["Observer", "RunOptions", "ScenarioRun", "key_notation", "run_scenario"]

USER_COMMAND_TIMEOUT_S = 30.0
TERMINAL_TARGETS = frozenset({"tui", "cli"})  # `userInputs.target`s a terminal run types
EXIT_AFTER_EOF_S = (
    5.0  # how long a program whose output ended may take to exit, for a failure to name its code
)


class Observer(Protocol):
    """Anything that wants to watch a run: the trace, the console, the app."""

    def run_started(self, run: ScenarioRun) -> None: ...
    def step_finished(self, run: ScenarioRun, record: StepRecord) -> None: ...
    def run_finished(self, run: ScenarioRun, result: ScenarioResult) -> None: ...


@record
class ScenarioRun:
    """The state of one run, readable by observers while it goes on."""

    path: Path
    options: RunOptions
    observers: Sequence[Observer] = ()
    prepared: Prepared | None = None
    """The scenario already loaded and compiled (a playbook, a batch): the run does not read ``path``."""
    clock: VirtualClock = field(default_factory=lambda: VirtualClock(None))
    scenario: m.Scenario | None = None
    schedule: Schedule | None = None
    run_dir: Path | None = None
    result: ScenarioResult | None = None
    sessions: list[dict[str, Any]] = field(default_factory=list)  # `complete` / `merge` records
    _session: PtySession | None = None
    _program_sandbox: ProgramSandbox | None = None  # the program under test's confinement and scratch folder
    _line_reads_seen: int = 0  # consecutive polls that found the program reading a line (asks_for_a_line)
    _workspace: Workspace | None = None
    _ctx: RunContext | None = None
    _driver: Driver | None = None
    _started: float = 0.0
    mode: str = DEFAULT_MODE
    _current_step: int = 0
    _playing: Step | None = None  # the step being played (None before the first)
    _finishing: bool = False  # every step played: the driver waits for the end (`expect.exitCode`: the exit)
    _interrupted: bool = False
    _last_style: dict[str, Any] | None = None
    _texts: FileTexts | None = None  # the files' last texts, for each step's diffs
    _body: asyncio.Task[None] | None = None  # the schedule being played, while it is
    _aborted: Failure | None = None

    def __post_init__(self) -> None:
        self.clock = VirtualClock(self.options.speed)
        self.observers = [ScreenResponders(), TraceObserver(), *self.observers]  # answers join the trace

    # ------------------------------------------------------------------ public

    @property
    def screen(self) -> Screen | None:
        """The live screen of the program under test (None before it starts): for observers such as the app."""
        return self._session.screen if self._session is not None else None

    def failures_so_far(self) -> list[Failure]:
        """The failures recorded up to now (the app lists them while a paused run waits; the result has all)."""
        return list(self._ctx.result.failures) if self._ctx is not None else []

    def asks_for_a_line(self) -> bool:
        """Whether the program waits to read a line from its terminal while the run waits for it to act:
        a free-text question (see :mod:`workbench.terminal.line_read`), never the agent reading its next
        prompt (the run then waits to type it, not for the agent). When it does, the screen is brought up
        to date first: the program wrote its question before it began to read, and all of it is on the
        screen once the pty is drained."""
        session, ctx = self._session, self._ctx
        if session is None or ctx is None or not ctx.waiting_for_program or not session.alive:
            return False
        if line_reader(session.fd) is None:
            self._line_reads_seen = 0
            return False
        session.drain()
        # What the program wrote before its read() can still be in the kernel's queue to our side of the
        # pty (seen under load: the question's line was not on the screen yet and the one above it was
        # taken for it): answer only when the next poll finds the same read, with the pty drained again.
        self._line_reads_seen += 1
        if self._line_reads_seen < 2:
            return False
        self._line_reads_seen = 0
        return True

    def send_input(self, data: bytes) -> bool:
        """Write a person's keys to the program under test (the app's focus mode); False if none runs.

        The bytes count as typed input, so the mock agent's next sync waits for them as well.
        """
        session = self._session
        if session is None or not session.alive or self._ctx is None:
            return False
        session.write_bytes(data)
        self._ctx.typed_bytes += len(data)
        return True

    def abort(self, failure: Failure) -> bool:
        """Fail the run with ``failure`` and stop it now, for an observer that saw what no later step can
        mend (a question nothing will answer): waiting for the run's timeout would only hide the cause.

        The failure is recorded at once; the schedule stops where it is, then the run ends its program,
        cleans up and reports `failed` as usual. Only the first abort counts: False for a later one.
        """
        if self.result is None or self._aborted is not None:
            return False
        self._aborted = failure
        self.result.fail(failure)
        if self._body is not None and not self._body.done():
            self._body.cancel()
        return True

    async def run(self) -> ScenarioResult:
        self._started = time.monotonic()
        result = ScenarioResult(
            name=readable(self.path.stem), file=display_name(self.path), mode=self.options.mode
        )
        self.result = result
        prepared = (
            self.prepared
            or loaded.take(self.path, self.options.defines)
            or prepare(self.path, defines=self.options.defines)
        )
        if prepared.scenario is None or prepared.schedule is None:
            result.status = "error"
            for d in prepared.errors:
                result.failures.append(
                    Failure(0, d.pos.line, "validation", d.message, d.pos.file, col=d.pos.col)
                )
            return self._finish(result)
        self.scenario, self.schedule = prepared.scenario, prepared.schedule
        if self.options.command:  # `run --command`: the program under test, whatever the file names
            self.scenario = replace(self.scenario, command=self.options.command, command_pos=None)
            self.schedule = replace(self.schedule, scenario=self.scenario)
        result.name = self.scenario.name
        result.first_line = self.scenario.pos.line if self.scenario.pos else 1
        self.mode = result.mode = self._mode_of(self.scenario)
        if self.options.driver is None and self.mode not in DRIVERS:
            at = self.scenario.mode_pos
            failure = Failure(0, at.line if at else 0, "validation", unknown_mode(self.mode), result.file,
                              col=at.col if at else 0)  # fmt: skip
            result.status = "error"
            result.failures.append(failure)
            return self._finish(result)
        from workbench.engine.requires import skip_reason

        tools_run = self.options.driver is not None or DRIVERS[self.mode].runs_tools
        reason = skip_reason(self.scenario, tools_run=tools_run)  # e.g. Agent Harbor's `ah`
        if reason is not None:
            result.status, result.skip_reason = "skipped", reason
            return self._finish(result)
        if self.scenario.extra.get("scp"):  # an SCP folder: its Python script talks ACP to its agent
            from workbench.engine.scp_run import run_scp_scenario

            await run_scp_scenario(self.path, self.scenario, self.options, result)
            return self._finish(result)
        result.virtual_ms = self.schedule.duration_ms
        try:
            self._body = asyncio.ensure_future(self._run_body(result))
            await asyncio.wait_for(self._body, self.options.timeout_s)
        except Skip as exc:
            result.status = "skipped"
            result.skip_reason = str(exc)
        except Stopped:
            pass  # the driver recorded the failures that stopped it
        # a wait of the run's own ran out (e.g. an agent's ready text): it says which, with the screen
        except WaitTimeout as exc:
            result.fail(Failure(self._current_step, self._step_line(), "timing", str(exc)))
        except TimeoutError:
            screen = self._ctx.the_screen() if self._ctx else "nothing had started"
            expect = self.scenario.expect
            if self._finishing and expect.exit_code is not None and expect.exit_code_pos is not None:
                result.fail(Failure(len(self.schedule.steps), expect.exit_code_pos.line, "timing",
                                    f"the program did not exit within {self.options.timeout_s:g} s, and "
                                    f"`expect.exitCode` waits for its exit; {screen}"))  # fmt: skip
            else:
                result.fail(Failure(self._current_step, self._step_line(), "timing",
                                    f"timed out after {self.options.timeout_s:g} s; {screen}"))  # fmt: skip
        except (WorkspaceError, PatternTooSlow) as exc:
            if exc.pos is None:
                result.fail(Failure(self._current_step, self._step_line(), "process", str(exc)))
            else:  # a scenario field, such as a seed folder's `repo.dir`
                result.fail(
                    Failure(
                        self._current_step, exc.pos.line, "process", str(exc), exc.pos.file, col=exc.pos.col
                    )
                )
        except (ControlError, OSError, DriverError) as exc:
            step, line, kind = getattr(exc, "at", None) or (self._current_step, self._step_line(), "process")
            result.fail(Failure(step, line, kind, str(exc)))  # type: ignore[arg-type]
        except Exception as exc:  # a bug in the engine: this scenario errors, the batch goes on
            result.fail(Failure(self._current_step, self._step_line(), "process",
                                f"internal error: {_crash_report(exc)}"))  # fmt: skip
            result.status = "error"
        except asyncio.CancelledError:
            # Ctrl-C or the app stopped the run: end every process, leave no workspace behind. A run that
            # did not finish is `cancelled`, and observers (the trace, the app) are told so, never `passed`.
            # (Stopped by :meth:`abort` instead, the run has failed and goes on to clean up and report.)
            if self._aborted is None or _cancelling():
                self._interrupted = True
                result.status = "cancelled"
                raise
        finally:
            await self._cleanup(result)
            if self._interrupted:
                self._finish(result)
        return self._finish(result)

    # ------------------------------------------------------------------ body

    async def _run_body(self, result: ScenarioResult) -> None:
        assert self.scenario is not None and self.schedule is not None
        scenario, schedule = self.scenario, self.schedule
        profile = scenario.terminal
        self.run_dir = _new_run_dir(self.options.out_dir / folder_name(scenario.name) / profile.id)
        result.run_dir = str(self.run_dir)
        self._workspace = Workspace.create(self.path.parent, scenario.repo, keep=self.options.keep)
        self._goldens = GoldenStore(self.options.goldens_dir, folder_name(scenario.name), profile.id,
                                    ci=self.options.ci, update=self.options.update_goldens,
                                    actual_dir=self.options.out_dir)  # fmt: skip
        home = self.run_dir / "home"
        home.mkdir(exist_ok=True)
        program = program_for(scenario, self.path, self._workspace.path, speed=self.options.speed_text,
                              defines=self.options.defines,
                              home=home)  # fmt: skip
        ctx = RunContext(self.path, scenario, schedule, self.options, result, self.run_dir, self._workspace,
                         self.clock, self._spawn, started=self._started)  # fmt: skip
        self._ctx = ctx
        mode = self.mode
        driver = (self.options.driver or driver_class(mode))(ctx)
        self._driver = driver
        ctx.settle = driver.settle
        await driver.start(program)
        if self._session is None:
            raise DriverError(f"the {mode} driver started no program")
        for observer in self.observers:
            observer.run_started(self)
        files_before = self._workspace.snapshot()
        self._texts = FileTexts(self._workspace.path, files_before.keys())
        for step in schedule.steps:
            self._current_step, self._playing = step.index, step
            await self.clock.gate(step.index)
            await self.clock.sleep_until(step.at_ms)
            checks = self._foreign_input(step)
            if checks is None:
                checks = await driver.play(step)
            if checks is None:
                checks = await self._play(step)
            files_after = self._workspace.snapshot()
            record = self._record(step, checks, files_before, files_after)
            files_before = files_after
            for observer in self.observers:
                observer.step_finished(self, record)
            ctx.step_played(step.index)
        self._finishing = True  # a timeout from here on is the program not exiting
        await self._finish_program(result, await driver.finish())

    def _mode_of(self, scenario: m.Scenario) -> str:
        """The run's mode: ``--mode`` when it names one, else the scenario's own ``mode:``, else the default."""
        if scenario.mode is not None and self.options.mode == DEFAULT_MODE:
            return scenario.mode
        return self.options.mode

    async def _spawn(self, program: Program) -> PtySession:
        assert self.run_dir is not None and self._workspace is not None and self.scenario is not None
        profile = self.scenario.terminal
        recorder = AsciicastRecorder(self.run_dir / "terminal.cast", profile.width, profile.height)
        confined = ProgramSandbox(self._workspace.path, self.run_dir, program.env)
        self._program_sandbox = confined
        with confined.sandbox as sandbox:
            if program.agent_args is not None and can_fork():  # the mock agent, from this warm process
                self._session = await fork_session(program.agent_args, env=confined.env, cwd=str(self._workspace.path),
                                                   width=profile.width, height=profile.height, recorder=recorder,
                                                   confine=sandbox.confine_self, prepared=(self.scenario, self.schedule))  # fmt: skip
            else:
                text = self.prepared.text if self.prepared is not None and program.mock_agent else None
                with unsaved_text(text, confined.env) as (env, fds):
                    try:
                        self._session = await PtySession.spawn(list(program.argv), env=env, cwd=str(self._workspace.path),
                                                               width=profile.width, height=profile.height, recorder=recorder,
                                                               confine=sandbox.confine_self, pass_fds=fds)  # fmt: skip
                    except OSError as exc:  # the scenario's `command` names what cannot start: it fails there
                        at = self.scenario.command_pos
                        if at is None or tuple(program.argv) != self.scenario.command:
                            raise
                        raise DriverError(
                            f"{exc} (the scenario's `command`)", at=(0, at.line, "process")
                        ) from None
        assert self._ctx is not None
        self._ctx.session = self._session
        self._program = program
        return self._session

    async def _finish_program(self, result: ScenarioResult, code: int | None) -> None:
        assert self.scenario is not None and self._workspace is not None and self.schedule is not None
        expect = self.scenario.expect
        if expect.exit_code is not None and code is not None and code != expect.exit_code:
            message = f"the program exited with {code}, expected {expect.exit_code}"
            line = expect.exit_code_pos.line if expect.exit_code_pos else 0  # 0: the scenario's first line
            result.fail(Failure(len(self.schedule.steps), line, "expect", message))
        for artifact in expect.artifacts:  # checked after the last step, as the exit code is
            check = self._workspace.check_artifacts([artifact.pattern])
            if not check.ok:
                result.fail(Failure(len(self.schedule.steps), artifact.pos.line, "expect", check.message))

    # ------------------------------------------------------------------ steps (the runner's table)

    async def _play(self, step: Step) -> Checks:
        match step.kind:
            case StepKind.INPUT:
                await self._typed(step, step.input.text)
                return []
            case StepKind.KEY:
                assert isinstance(step.event, m.KeyPress)
                await self._typed(step, key_notation(step.event.key))
                return []
            case StepKind.CONTROL:
                return await self._control(step)
            case (StepKind.THINK | StepKind.ASSISTANT | StepKind.LLM_ERROR | StepKind.LLM_RESPONSE
                  | StepKind.TOOL_START | StepKind.TOOL_PROGRESS | StepKind.TOOL_OUTPUT | StepKind.TOOL_RESULT
                  | StepKind.EDIT | StepKind.ACP | StepKind.CANCEL | StepKind.ADVANCE):  # fmt: skip
                return []  # recorded only: no driver played it (the agent steps of a plain program...)
            case unknown:
                assert_never(unknown)

    async def _control(self, step: Step) -> Checks:
        """A control step: the runner's own handler of its event, else one an extension registered."""
        assert self._ctx is not None
        own = CONTROL_STEPS.get(type(step.event))
        if own is not None:
            return await own(self, step)
        handler = handler_of(step.event)
        if handler is None:
            if isinstance(step.event, RECORDED):
                return []
            raise RuntimeError(f"no handler for step kind {step.action!r} (line {step.pos.line})")
        return await handler(self._ctx, step)

    @staticmethod
    def _foreign_input(step: Step) -> Checks | None:
        """An input for a target this run does not have (e.g. `webui`): not typed, noted in the trace."""
        target = step.input.target if step.kind is StepKind.INPUT else None
        if target is None or target in TERMINAL_TARGETS:
            return None
        message = f"input for target `{target}` not typed: this run drives a terminal (targets tui, cli)"
        return [skipped(message)]

    async def _typed(self, step: Step, text: str) -> None:
        # Typed the way a person types: once the screen has settled, so what the program shows does not
        # depend on how fast the run goes, and into a TUI a key per read (RunContext.type).
        assert self._ctx is not None
        await self._ctx.settle()
        session = self._session
        if session is not None and not session.alive:  # typed into nothing, the run passed all the same
            code = session.exit_code
            raise DriverError(f"the program exited with {code} before this input, so nothing reads it; end the "
                              f"timeline where the program ends (`expect: {{exitCode: {code}}}` checks how)",
                              at=(step.index, step.pos.line, "process"))  # fmt: skip
        await self._ctx.type(text)

    async def _screenshot(self, step: Step) -> Checks:
        assert self._session is not None and self._ctx is not None and self.scenario is not None
        result = self._ctx.result
        await self._ctx.settle()
        assert isinstance(step.event, m.Screenshot)
        label = step.event.label
        masks = (*scenario_masks(self.scenario), *option_masks(self.options.masks))
        shot = mask_shot(self._session.screen.snapshot(), masks)
        self._last_style = shot.style_json()
        outcome = self._goldens.check(label, shot)
        result.screenshots.append(
            ShotResult(label, str(outcome.golden_path), str(outcome.actual_path), outcome.status)
        )
        if self._session.recorder is not None:
            self._session.recorder.marker(label)
        if outcome.status in ("mismatch", "missing"):
            message = f"screenshot `{label}` {'does not match' if outcome.status == 'mismatch' else 'has no golden'}"
            if outcome.problem:  # in the report too, not in a diff only
                message += f": {outcome.problem}"
            result.fail(
                Failure(step.index, step.pos.line, "screenshot", message, result.file, outcome.diff or "")
            )
            return [CheckOutcome(False, message)]
        return [CheckOutcome(True, f"screenshot `{label}`: {outcome.status}")]

    async def _assert_vm(self, step: Step) -> Checks:
        """`assertVm` checks the view model of Agent Harbor's own TUI, which no program here exposes: skipped, never passed."""
        assert self.result is not None
        message = f"{step.summary}: not checked by this runner (it asserts the view model of Agent Harbor's own TUI)"
        self.result.skipped_checks.append(SkippedCheck(step.index, step.pos.line, "assertVm", message))
        return [skipped(message)]

    async def _wait_for(self, step: Step) -> Checks:
        """Hold the timeline until the screen shows the text (or matches the regex); else fail with the screen."""
        assert self._session is not None and self._ctx is not None
        event = step.event
        assert isinstance(event, m.WaitFor)
        wanted = (
            event.text
            if event.text is not None
            else UserRegex(str(event.regex), "`waitFor` regex", step.pos, re.M)
        )
        what = repr(event.text) if event.text is not None else f"/{event.regex}/"
        try:
            await self._session.wait_for_text(wanted, timeout=event.timeout_ms / 1000)
        except WaitTimeout:  # what follows was written for that screen: the run ends here, with it
            session = self._session
            if session.eof or not session.alive:  # it ended early: not a matter of waiting longer
                try:  # the output ends a moment before the program does: its exit code says why
                    ended = f"the program exited with {await session.wait_exit(EXIT_AFTER_EOF_S)}"
                except WaitTimeout:  # it closed its terminal and goes on
                    ended = "the program's output ended"
                message = f"{ended} before the screen showed {what}; {self._ctx.the_screen()}"
            else:
                message = (
                    f"the screen did not show {what} within {event.timeout_ms} ms; {self._ctx.the_screen()}"
                )
            raise DriverError(message, at=(step.index, step.pos.line, "timing")) from None
        return [CheckOutcome(True, f"the screen shows {what}")]

    async def _assert(self, step: Step) -> Checks:
        assert self._ctx is not None
        return self._report_checks(step, await self._ctx.assert_outcomes(step), "assert")

    def _report_checks(self, step: Step, outcomes: Sequence[CheckOutcome], kind: FailureKind) -> Checks:
        assert self._ctx is not None
        checks: Checks = []
        for outcome in outcomes:
            checks.append(outcome)
            if not outcome.ok:
                self._ctx.fail(step.index, step.pos.line, kind, outcome.message)
        return checks

    async def _user_command(self, step: Step) -> Checks:
        assert self._workspace is not None and self._ctx is not None
        event = step.event
        assert isinstance(event, m.UserCommand)
        await self._ctx.settle()
        cwd = (
            self._workspace.resolve(event.cwd, what="userCommand cwd") if event.cwd else self._workspace.path
        )
        env = dict(self._program.env)
        env.update({name: expand_env(value, os.environ) for name, value in event.env.items()})
        if event.cmd is not None:
            argv: list[str] = ["bash", "-c", event.cmd]
        else:
            program = event.program or "ah"
            if program == "ah":
                program = os.environ.get(Env.AH, "ah")
            argv = [program, *event.args]
            if shutil.which(program, path=env.get("PATH")) is None:
                self._ctx.fail(
                    step.index, step.pos.line, "process", f"userCommand: `{program}` not found on PATH"
                )
                return [CheckOutcome(False, f"`{program}` not found")]
        done = await asyncio.to_thread(_run_command, argv, cwd, env, self._workspace.path)
        return self._report_checks(step, command_checks(event, done, self._workspace), "assert")

    async def _user_edits(self, step: Step) -> Checks:
        assert isinstance(step.event, m.UserEdits)
        return await self._apply(step, step.event.patch)

    async def _apply(self, step: Step, rel: str) -> Checks:
        """Apply a patch from the scenario folder to the workspace with `git apply`."""
        assert self._workspace is not None and self._ctx is not None
        await self._ctx.settle()
        try:
            patch = Workspace.resolve_scenario_path(self.path.parent, rel, "patch")
            self._workspace.apply_patch(patch)
        except WorkspaceError as exc:
            self._ctx.fail(step.index, step.pos.line, "process", str(exc))
            return [CheckOutcome(False, str(exc))]
        return [CheckOutcome(True, f"applied {rel}")]

    async def _apply_patch(self, step: Step) -> Checks:
        event = step.event
        assert isinstance(event, m.ApplyPatch) and self._workspace is not None
        checks = await self._apply(step, event.path)
        if checks[0].ok and event.commit:
            self._workspace.commit(event.message or f"Apply {Path(event.path).name}")
        return checks

    async def _session_event(self, step: Step) -> Checks:
        assert isinstance(step.event, m.Complete | m.Merge)
        self.sessions.append({"event": step.action, "value": step.event.value, "at_ms": step.at_ms})
        return []

    # ------------------------------------------------------------------ helpers

    def _record(self, step: Step, checks: Checks, before: Any, after: Any) -> StepRecord:
        assert self._workspace is not None
        shot = self._session.screen.snapshot() if self._session else None  # one read of the screen per step
        files = self._workspace.changed_files(before, after)
        record = StepRecord(
            index=step.index, at_ms=step.at_ms, wall_ms=int((time.monotonic() - self._started) * 1000),
            actor=step.actor, action=step.action, summary=step.summary, line=step.pos.line,
            screen=list(shot.rows) if shot else [], cursor=shot.cursor if shot else (0, 0),
            files=files, checks=[check.to_json() for check in checks],
        )  # fmt: skip
        if files and self._texts is not None:
            record.diffs = self._texts.diffs(files)
        if isinstance(step.event, m.Screenshot):
            record.style = self._last_style
        elif shot is not None and shot.has_styles():  # so stepping back in the app shows the colours too
            record.style = shot.style_json()
        return record

    async def _cleanup(self, result: ScenarioResult) -> None:
        if self._driver is not None:
            await self._driver.stop()
        if self._session is not None:
            await self._session.terminate()
            if self._session.recorder is not None:
                self._session.recorder.close()
        if self._program_sandbox is not None:
            self._program_sandbox.remove()
        if self._workspace is not None:
            if result.status in ("failed", "error") and not self._interrupted:  # a skip keeps nothing
                self._workspace.keep_for_failure()
            kept = self._workspace.close()
            result.kept_workspace = str(kept) if kept else None

    def _step_line(self) -> int:
        """The line of the step being played; 0 (the report names the scenario) before the first."""
        return self._playing.pos.line if self._playing is not None else 0

    def _finish(self, result: ScenarioResult) -> ScenarioResult:
        result.duration_ms = int((time.monotonic() - self._started) * 1000)
        for observer in self.observers:
            observer.run_finished(self, result)
        return result


StepHandler = Callable[[ScenarioRun, Step], Awaitable[Checks]]

CONTROL_STEPS: dict[type[m.Event], StepHandler] = {
    m.Screenshot: ScenarioRun._screenshot,
    m.WaitFor: ScenarioRun._wait_for,
    m.Assert: ScenarioRun._assert,
    m.AssertVm: ScenarioRun._assert_vm,
    m.AssertGit: ScenarioRun._assert,
    m.UserCommand: ScenarioRun._user_command,
    m.UserEdits: ScenarioRun._user_edits,
    m.ApplyPatch: ScenarioRun._apply_patch,
    m.Complete: ScenarioRun._session_event,
    m.Merge: ScenarioRun._session_event,
}
"""How the runner plays each control event a driver leaves to it (an extension's: `engine.steps`)."""

RECORDED = (m.Log, m.Status, m.SseEvent)
"""Control events that are recorded only when no driver plays them (a simulation client shows them)."""


def _cancelling() -> bool:
    """Whether the task running this code was asked to stop (Ctrl-C, the app), as opposed to its child."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _crash_report(exc: BaseException) -> str:
    if isinstance(exc, ReportedCrash):  # another process's bug, its traceback already in a file
        return str(exc)
    return f"{type(exc).__name__}: {exc} (this is a bug; the traceback is in {write_crash_report(exc)})"


def _run_command(
    argv: list[str], cwd: Path, env: dict[str, str], workspace: Path
) -> subprocess.CompletedProcess[str]:
    """Run a userCommand; where the kernel has Landlock it writes only in the workspace, its private
    TMPDIR and the run's HOME."""
    scratch = scratch_folder()
    home = [Path(env["HOME"])] if env.get("HOME") else []
    try:
        with Sandbox(default_writable(workspace, scratch, *home)) as sandbox:
            return sandbox.call(
                argv, cwd=cwd, env={**env, "TMPDIR": str(scratch)}, timeout=USER_COMMAND_TIMEOUT_S
            )
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(
            argv, 124, str(exc.stdout or ""), f"timed out after {USER_COMMAND_TIMEOUT_S:g} s"
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


async def run_scenario(
    path: Path, options: RunOptions, observers: Sequence[Observer] = (), prepared: Prepared | None = None
) -> ScenarioResult:
    """Run the scenario at ``path``, or ``prepared`` (already loaded and compiled, as if it were at ``path``)."""
    return await ScenarioRun(path, options, observers, prepared).run()


def _new_run_dir(parent: Path) -> Path:
    """A run folder of its own, ``<timestamp>-<pid>``: a second run in the same second gets ``-2``, ``-3``..."""
    parent.mkdir(parents=True, exist_ok=True)
    base = f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    for n in range(1, 10_000):
        folder = parent / (base if n == 1 else f"{base}-{n}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise RuntimeError(f"no free run folder name under {parent}")
