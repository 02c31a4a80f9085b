"""One run of one scenario: the execution core shared by `workbench run` and the app.

A run loads and compiles the scenario, makes a workspace, starts the program
under test in a real pty, and walks the schedule on a virtual clock: agent steps
go to the mock agent over its control channel, user steps are typed into the
terminal or run in the workspace, control steps capture screenshots and check
assertions. Observers (the trace writer, the console, the app) see every step.

Screens are compared only once the terminal is settled: for the mock agent the
engine waits until it has read every byte the agent reports having written; for
any other program it waits until the screen has been quiet for ``settle_ms``.
That is why screenshots are identical at every speed.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from workbench.agent.control import ENV_VAR, ControlError, EngineLink
from workbench.clock import VirtualClock
from workbench.crash import ReportedCrash, write_crash_report
from workbench.engine.program import Program, program_for
from workbench.engine.real_agent import RealAgent, RealAgentError
from workbench.engine.report import Failure, ScenarioResult, ShotResult
from workbench.engine.trace import TRACE_FILE, StepRecord, TraceWriter
from workbench.scenario import model as m
from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import display_name, load_scenario
from workbench.terminal import AsciicastRecorder, GoldenStore, PtySession, Screen, encode_keys
from workbench.terminal.masks import mask_shot
from workbench.timeline import Schedule, Step, compile_schedule
from workbench.workspace import Check, Workspace, WorkspaceError
from workbench.workspace.git import git

AGENT_ACTIONS = frozenset(
    {"think", "assistant", "llm-error", "llm-response", "tool-start", "tool-progress", "tool-output", "tool-result",
     "edit", "acp"}
)  # fmt: skip
USER_COMMAND_TIMEOUT_S = 30.0


@dataclass
class RunOptions:
    speed: float | None = None  # None: as fast as possible
    ci: bool = False
    update_goldens: bool = False
    goldens_dir: Path = Path("screenshots")
    out_dir: Path = Path("target/tmp/workbench")
    defines: tuple[str, ...] = ()
    timeout_s: float = 120.0
    keep: bool = False
    settle_ms: int = 150
    checkpoint_cmd: str | None = None
    mode: str = "mock-agent"
    agent: str | None = None  # real-agent mode: a preset of workbench.llm.presets
    agent_ui: str = "tui"  # real-agent mode: `tui` or `print`
    masks: tuple[
        str, ...
    ] = ()  # --mask: regexes blanked out of every screenshot (with the scenario's `masks`)

    @property
    def speed_text(self) -> str:
        return "max" if self.speed is None else repr(self.speed)


class Observer(Protocol):
    """Anything that wants to watch a run: the trace, the console, the app."""

    def run_started(self, run: ScenarioRun) -> None: ...
    def step_finished(self, run: ScenarioRun, record: StepRecord) -> None: ...
    def run_finished(self, run: ScenarioRun, result: ScenarioResult) -> None: ...


@dataclass
class ScenarioRun:
    """The state of one run, readable by observers while it goes on."""

    path: Path
    options: RunOptions
    observers: Sequence[Observer] = ()
    clock: VirtualClock = field(default_factory=lambda: VirtualClock(None))
    scenario: m.Scenario | None = None
    schedule: Schedule | None = None
    run_dir: Path | None = None
    result: ScenarioResult | None = None
    sessions: list[dict[str, Any]] = field(default_factory=list)  # `complete` / `merge` records
    _session: PtySession | None = None
    _link: EngineLink | None = None
    _workspace: Workspace | None = None
    _typed_bytes: int = 0
    _program: Program | None = None
    _real: RealAgent | None = None
    _started: float = 0.0

    def __post_init__(self) -> None:
        self.clock = VirtualClock(self.options.speed)

    # ------------------------------------------------------------------ public

    @property
    def screen(self) -> Screen | None:
        """The live screen of the program under test (None before it starts): for observers such as the app."""
        return self._session.screen if self._session is not None else None

    def send_input(self, data: bytes) -> bool:
        """Write a person's keys to the program under test (the app's focus mode); False if none runs.

        The bytes count as typed input, so the mock agent's next sync waits for them as well.
        """
        session = self._session
        if session is None or not session.alive:
            return False
        session.write_bytes(data)
        self._typed_bytes += len(data)
        return True

    async def run(self) -> ScenarioResult:
        self._started = time.monotonic()
        result = ScenarioResult(name=self.path.stem, file=display_name(self.path), mode=self.options.mode)
        self.result = result
        try:
            self.scenario = load_scenario(self.path, defines=self.options.defines)
            self.schedule = compile_schedule(self.scenario)
        except ScenarioError as exc:
            result.status = "error"
            for d in exc.diagnostics:
                result.failures.append(Failure(0, d.pos.line, "validation", d.message, d.pos.file))
            return self._finish(result)
        result.name = self.scenario.name
        result.virtual_ms = self.schedule.duration_ms
        if self.scenario.format == "claudeless" and self.options.mode == "mock-agent":
            # Response rules answer a real agent's requests; there is nothing for the mock agent to play.
            result.status = "skipped"
            result.skip_reason = "Claudeless rules answer a real agent: run them with --mode real-agent"
            return self._finish(result)
        try:
            await asyncio.wait_for(self._run_body(result), self.options.timeout_s)
        except TimeoutError:
            screen = self._screen_text()
            result.fail(Failure(self._current_step, 0, "timing",
                                f"timed out after {self.options.timeout_s:g} s; the screen was:\n{screen}"))  # fmt: skip
        except (ControlError, OSError, WorkspaceError, RealAgentError) as exc:
            result.fail(Failure(self._current_step, 0, "process", str(exc)))
        except Exception as exc:  # a bug in the engine: this scenario errors, the batch goes on
            result.fail(Failure(self._current_step, 0, "process", f"internal error: {_crash_report(exc)}"))
            result.status = "error"
        except asyncio.CancelledError:
            # Ctrl-C or the app stopped the run: end every process, leave no workspace behind. A run
            # that did not finish is `cancelled` in its trace, never `passed`.
            self._interrupted = True
            result.status = "cancelled"
            raise
        finally:
            await self._cleanup(result)
        return self._finish(result)

    _interrupted: bool = False

    # ------------------------------------------------------------------ body

    _current_step: int = 0

    async def _run_body(self, result: ScenarioResult) -> None:
        assert self.scenario is not None and self.schedule is not None
        scenario, schedule = self.scenario, self.schedule
        profile = scenario.terminal
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        self.run_dir = self.options.out_dir / scenario.name / profile.id / f"{stamp}-{os.getpid()}"
        self.run_dir.mkdir(parents=True, exist_ok=True)
        result.run_dir = str(self.run_dir)
        self._trace = TraceWriter(self.run_dir / TRACE_FILE)
        self._trace.write({"type": "run", "version": 1, "scenario": scenario.name, "file": result.file,
                           "profile": {"id": profile.id, "width": profile.width, "height": profile.height},
                           "steps": len(schedule.steps), "speed": self.options.speed_text})  # fmt: skip
        self._workspace = Workspace.create(self.path.parent, scenario.repo, keep=self.options.keep)
        self._goldens = GoldenStore(self.options.goldens_dir, scenario.name, profile.id,
                                    ci=self.options.ci, update=self.options.update_goldens)  # fmt: skip
        home = self.run_dir / "home"
        home.mkdir(exist_ok=True)
        program = program_for(scenario, self.path, self._workspace.path, speed=self.options.speed_text,
                              defines=self.options.defines, checkpoint_cmd=self.options.checkpoint_cmd,
                              home=home)  # fmt: skip
        if self.options.mode == "real-agent":
            self._real = RealAgent(self, result)
            program = await self._real.start(program)
        self._program = program
        if program.mock_agent:
            self._socket_dir = tempfile.mkdtemp(prefix="wb-ctl-")
            self._link = EngineLink(os.path.join(self._socket_dir, "c"))
            await self._link.start()
            program.env[ENV_VAR] = self._link.path
        recorder = AsciicastRecorder(self.run_dir / "terminal.cast", profile.width, profile.height)
        self._session = await PtySession.spawn(list(program.argv), env=program.env, cwd=str(self._workspace.path),
                                               width=profile.width, height=profile.height, recorder=recorder)  # fmt: skip
        for observer in self.observers:
            observer.run_started(self)
        if self._link is not None:
            hello = await self._link.wait_connected(timeout=30)
            await self._sync_output(hello["written"])
        files_before = self._workspace.snapshot()
        for step in schedule.steps:
            self._current_step = step.index
            await self.clock.gate(step.index)
            await self.clock.sleep_until(step.at_ms)
            checks = await self._play(step, result)
            files_after = self._workspace.snapshot()
            record = self._record(step, checks, files_before, files_after)
            files_before = files_after
            self._trace.write(record.to_json())
            for observer in self.observers:
                observer.step_finished(self, record)
        await self._finish_program(result)

    async def _finish_program(self, result: ScenarioResult) -> None:
        assert self._session is not None and self.scenario is not None and self._workspace is not None
        expect = self.scenario.expect
        if self._real is not None:
            code = await self._real.finish()
        elif self._link is not None:
            bye = await self._link.request({"op": "end"}, "bye", timeout=30)
            await self._sync_output(bye["written"])
            code = await self._session.wait_exit(timeout=30)
        elif expect.exit_code is not None:
            code = await self._session.wait_exit(timeout=self.options.timeout_s)
        else:
            code = None
        if expect.exit_code is not None and code is not None and code != expect.exit_code:
            result.fail(Failure(len(self.schedule.steps) if self.schedule else 0, 0, "expect",
                                f"the program exited with {code}, expected {expect.exit_code}"))  # fmt: skip
        for artifact in expect.artifacts:
            check = self._workspace.check_artifacts([artifact.pattern])
            if not check.ok:
                result.fail(Failure(0, artifact.pos.line, "expect", check.message))

    # ------------------------------------------------------------------ steps

    async def _play(self, step: Step, result: ScenarioResult) -> list[dict[str, Any]]:
        action = step.action
        if self._real is not None and (played := await self._real.play(step)) is not None:
            return played
        if action in AGENT_ACTIONS:
            return await self._agent_step(step, result)
        if action == "input":
            text = step.item.text
            if self._link is not None and not text.endswith(("<Enter>", "\r", "\n")):
                text += "<Enter>"  # to the mock agent a user input is a prompt, sent like a chat message
            await self._type(text)
            return []
        if action == "key":
            await self._type(key_notation(step.event.key))  # type: ignore[attr-defined]
            return []
        handler: Callable[[Step, ScenarioResult], Any] | None = getattr(
            self, "_do_" + action.replace("-", "_"), None
        )
        if handler is None:
            return []  # recorded only: log, status, sse, advance, cancel, assert-vm
        checks: list[dict[str, Any]] = await handler(step, result)
        return checks

    async def _agent_step(self, step: Step, result: ScenarioResult) -> list[dict[str, Any]]:
        if self._link is None:
            return []  # the program under test is not the mock agent: agent steps are its own business
        done = await self._link.request(
            {"op": "step", "index": step.index}, "done", timeout=self.options.timeout_s
        )
        await self._sync_output(done["written"])
        checks = []
        for f in done.get("failures", []):
            result.fail(Failure(step.index, f["line"], f["kind"], f["message"], result.file))
            checks.append({"ok": False, "message": f["message"]})
        return checks

    async def _type(self, text: str) -> None:
        assert self._session is not None
        # Another program is typed to the way a person types: once its screen has settled, so what it
        # shows does not depend on how fast the run goes.
        await self._settle()
        data = encode_keys(text)
        self._session.write_bytes(data)
        self._typed_bytes += len(data)
        if self._link is not None:
            synced = await self._link.request(
                {"op": "sync", "bytes": self._typed_bytes}, "synced", timeout=30
            )
            await self._sync_output(synced["written"])

    async def _sync_output(self, written: int) -> None:
        """Wait until the pty reader has seen every byte the mock agent wrote."""
        assert self._session is not None
        await self._session.wait_bytes_read(self._base_bytes + written, timeout=30)

    _base_bytes: int = 0

    async def _settle(self) -> None:
        """Before a screen is compared: the mock agent is synced already; other programs must be quiet."""
        assert self._session is not None
        if self._real is not None:
            await self._real.settle()
        elif self._link is None:
            await self._session.wait_stable(self.options.settle_ms, timeout=min(30.0, self.options.timeout_s))

    async def _do_screenshot(self, step: Step, result: ScenarioResult) -> list[dict[str, Any]]:
        assert self._session is not None
        await self._settle()
        label = step.event.label  # type: ignore[attr-defined]
        assert self.scenario is not None
        shot = mask_shot(self._session.screen.snapshot(), (*self.scenario.masks, *self.options.masks))
        self._last_style = shot.style_json()
        outcome = self._goldens.check(label, shot)
        result.screenshots.append(
            ShotResult(label, str(outcome.golden_path), str(outcome.actual_path), outcome.status)
        )
        if self._session.recorder is not None:
            self._session.recorder.marker(label)
        if outcome.status == "mismatch" or (outcome.status == "missing"):
            message = f"screenshot `{label}` {'does not match' if outcome.status == 'mismatch' else 'has no golden'}"
            result.fail(
                Failure(step.index, step.pos.line, "screenshot", message, result.file, outcome.diff or "")
            )
            return [{"ok": False, "message": message}]
        return [{"ok": True, "message": f"screenshot `{label}`: {outcome.status}"}]

    async def _do_assert(self, step: Step, result: ScenarioResult) -> list[dict[str, Any]]:
        outcomes = await self.assert_outcomes(step)
        return self._report_checks(step, result, outcomes, "assert")

    _do_assert_git = _do_assert

    async def assert_outcomes(self, step: Step, *, screen_only: bool = False) -> list[Check]:
        """The checks of an `assert` or `assertGit` step, once the screen has settled.
        ``screen_only``: of an `assert`, only `text.contains` (the mock LLM server checks the rest)."""
        assert self._workspace is not None and self._session is not None
        event = step.event
        if not (screen_only and isinstance(event, m.Assert) and not event.text_contains):
            await self._settle()  # a program's output, files and commits are final once its screen is quiet
        if isinstance(event, m.AssertGit):
            return git_checks(self._workspace.path, event.checks)
        assert isinstance(event, m.Assert)
        ws = self._workspace
        outcomes: list[Check] = []
        if not screen_only:
            outcomes += [ws.check_fs_exists(p) for p in event.fs_exists]
            outcomes += [ws.check_fs_not_exists(p) for p in event.fs_not_exists]
        if event.text_contains:
            screen = self._screen_text()
            for text in event.text_contains:
                ok = text in screen or text in screen.replace("\n", "")
                outcomes.append(Check(ok, f"the screen {'contains' if ok else 'does not contain'} {text!r}"))
        if not screen_only:
            outcomes += [ws.check_json_file(c.path, c.pointer, c.equals) for c in event.json_file]
            outcomes += [ws.check_git_commit_message_contains(t) for t in event.git_commit_message_contains]
        return outcomes

    def _report_checks(
        self, step: Step, result: ScenarioResult, outcomes: Sequence[Any], kind: str
    ) -> list[dict[str, Any]]:
        checks = []
        for outcome in outcomes:
            checks.append({"ok": outcome.ok, "message": outcome.message})
            if not outcome.ok:
                result.fail(Failure(step.index, step.pos.line, kind, outcome.message, result.file))  # type: ignore[arg-type]
        return checks

    async def _do_user_command(self, step: Step, result: ScenarioResult) -> list[dict[str, Any]]:
        assert self._workspace is not None and self._program is not None
        event = step.event
        assert isinstance(event, m.UserCommand)
        await self._settle()
        cwd = (
            self._workspace.resolve(event.cwd, what="userCommand cwd") if event.cwd else self._workspace.path
        )
        env = dict(self._program.env)
        env.update(event.env)
        if event.cmd is not None:
            argv: list[str] = ["bash", "-c", event.cmd]
        else:
            program = event.program or "ah"
            if program == "ah":
                program = os.environ.get("WORKBENCH_AH", "ah")
            argv = [program, *event.args]
            if shutil.which(program, path=env.get("PATH")) is None:
                result.fail(
                    Failure(
                        step.index, step.pos.line, "process", f"userCommand: `{program}` not found on PATH"
                    )
                )
                return [{"ok": False, "message": f"`{program}` not found"}]
        done = await asyncio.to_thread(_run_command, argv, cwd, env)
        return self._report_checks(step, result, _command_checks(event, done, self._workspace), "assert")

    async def _do_user_edits(self, step: Step, result: ScenarioResult) -> list[dict[str, Any]]:
        assert isinstance(step.event, m.UserEdits)
        return await self._apply(step, result, step.event.patch)

    async def _apply(self, step: Step, result: ScenarioResult, rel: str) -> list[dict[str, Any]]:
        """Apply a patch from the scenario folder to the workspace with `git apply`."""
        assert self._workspace is not None
        await self._settle()
        try:
            patch = Workspace.resolve_scenario_path(self.path.parent, rel, "patch")
            self._workspace.apply_patch(patch)
        except WorkspaceError as exc:
            result.fail(Failure(step.index, step.pos.line, "process", str(exc), result.file))
            return [{"ok": False, "message": str(exc)}]
        return [{"ok": True, "message": f"applied {rel}"}]

    async def _do_apply_patch(self, step: Step, result: ScenarioResult) -> list[dict[str, Any]]:
        event = step.event
        assert isinstance(event, m.ApplyPatch) and self._workspace is not None
        checks = await self._apply(step, result, event.path)
        if checks[0]["ok"] and event.commit:
            self._workspace.commit(event.message or f"Apply {Path(event.path).name}")
        return checks

    async def _do_complete(self, step: Step, result: ScenarioResult) -> list[dict[str, Any]]:
        self.sessions.append({"event": "complete", "value": step.event.value, "at_ms": step.at_ms})  # type: ignore[attr-defined]
        return []

    async def _do_merge(self, step: Step, result: ScenarioResult) -> list[dict[str, Any]]:
        self.sessions.append({"event": "merge", "value": step.event.value, "at_ms": step.at_ms})  # type: ignore[attr-defined]
        return []

    # ------------------------------------------------------------------ helpers

    def _record(self, step: Step, checks: list[dict[str, Any]], before: Any, after: Any) -> StepRecord:
        assert self._workspace is not None
        shot = self._session.screen.snapshot() if self._session else None  # one read of the screen per step
        files = self._workspace.changed_files(before, after)
        record = StepRecord(
            index=step.index, at_ms=step.at_ms, wall_ms=int((time.monotonic() - self._started) * 1000),
            actor=step.actor, action=step.action, summary=step.summary, line=step.pos.line,
            screen=list(shot.rows) if shot else [], cursor=shot.cursor if shot else (0, 0),
            files=files, checks=checks,
        )  # fmt: skip
        if step.action == "screenshot":
            record.style = getattr(self, "_last_style", None)
        elif shot is not None and shot.has_styles():  # so stepping back in the app shows the colours too
            record.style = shot.style_json()
        return record

    def _screen_text(self) -> str:
        if self._session is None:
            return ""
        return "\n".join(row.rstrip() for row in self._session.screen.text_rows())

    async def _cleanup(self, result: ScenarioResult) -> None:
        if self._real is not None:
            await self._real.stop()
        if self._session is not None:
            await self._session.terminate()
            if self._session.recorder is not None:
                self._session.recorder.close()
        if self._link is not None:
            await self._link.close()
            shutil.rmtree(self._socket_dir, ignore_errors=True)
        if self._workspace is not None:
            if result.status != "passed" and not self._interrupted:
                self._workspace.keep_for_failure()
            kept = self._workspace.close()
            result.kept_workspace = str(kept) if kept else None
        trace = getattr(self, "_trace", None)
        if trace is not None:
            result.duration_ms = int((time.monotonic() - self._started) * 1000)
            trace.write({"type": "result", **result.to_json()})
            trace.close()

    def _finish(self, result: ScenarioResult) -> ScenarioResult:
        result.duration_ms = int((time.monotonic() - self._started) * 1000)
        for observer in self.observers:
            observer.run_finished(self, result)
        return result


def _crash_report(exc: BaseException) -> str:
    if isinstance(exc, ReportedCrash):  # another process's bug, its traceback already in a file
        return str(exc)
    return f"{type(exc).__name__}: {exc} (this is a bug; the traceback is in {write_crash_report(exc)})"


def key_notation(key: str) -> str:
    """`{type: key, key: ...}` names (`Up`, `Enter`, `ctrl+c`, `Ctrl-C`, `<Tab>`) in our key notation."""
    if key.startswith("<") and key.endswith(">"):
        return key
    lowered = key.lower()
    for prefix in ("ctrl+", "ctrl-", "c-"):
        if lowered.startswith(prefix) and len(key) == len(prefix) + 1:
            return f"<C-{lowered[-1]}>"
    return f"<{key}>"


def _run_command(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=USER_COMMAND_TIMEOUT_S,
                              check=False, start_new_session=True)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(
            argv, 124, str(exc.stdout or ""), f"timed out after {USER_COMMAND_TIMEOUT_S:g} s"
        )


def _command_checks(event: m.UserCommand, done: subprocess.CompletedProcess[str], ws: Workspace) -> list[Any]:
    expect = event.expect
    checks: list[Any] = []
    if "exitCode" in expect:
        ok = done.returncode == expect["exitCode"]
        detail = "" if ok else f" (stderr: {done.stderr.strip()[:300]})"
        checks.append(
            Check(ok, f"userCommand exited {done.returncode}, expected {expect['exitCode']}{detail}")
        )
    for key, stream in (("stdoutContains", done.stdout), ("stderrContains", done.stderr)):
        if key in expect:
            wanted = expect[key] if isinstance(expect[key], list) else [expect[key]]
            for text in wanted:
                checks.append(Check(str(text) in stream, f"userCommand {key[:6]} contains {text!r}"))
    fs = expect.get("fs") or {}
    checks += [ws.check_fs_exists(p) for p in fs.get("exists", [])]
    checks += [ws.check_fs_not_exists(p) for p in fs.get("notExists", [])]
    for item in fs.get("contains", []):
        path = ws.resolve(item["path"], what="fs.contains path")
        text = path.read_text(errors="replace") if path.is_file() else ""
        checks.append(Check(item["substring"] in text, f"{item['path']} contains {item['substring']!r}"))
    return checks


def _git(path: Path, *args: str) -> str:
    """git's output in the workspace, never a parent repository's (workspace.git's environment); "" on failure."""
    done = git(path, *args, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def git_checks(path: Path, checks: Mapping[str, Any]) -> list[Check]:
    """The ah-cli `assertGit` form: `branch` names the subject (default HEAD)."""
    branch = str(checks.get("branch", "HEAD"))
    out: list[Check] = []
    if "exists" in checks:
        exists = bool(_git(path, "rev-parse", "--verify", "--quiet", branch))
        want = bool(checks["exists"])
        out.append(Check(exists == want, f"branch {branch!r} {'exists' if exists else 'does not exist'}"))
    if "commitsAheadOf" in checks:
        base = str(checks["commitsAheadOf"])
        count = int(_git(path, "rev-list", "--count", f"{base}..{branch}") or 0)
        want_count = int(checks.get("commitCount", 1))
        ok = count == want_count if "commitCount" in checks else count > 0
        out.append(Check(ok, f"{branch!r} is {count} commits ahead of {base!r}"))
    elif "commitCount" in checks:
        count = int(_git(path, "rev-list", "--count", branch) or 0)
        out.append(
            Check(
                count == int(checks["commitCount"]),
                f"{branch!r} has {count} commits, expected {checks['commitCount']}",
            )
        )
    if "headMessageContains" in checks:
        message = _git(path, "log", "-1", "--format=%B", branch)
        text = str(checks["headMessageContains"])
        out.append(Check(text in message, f"the last commit message on {branch!r} contains {text!r}"))
    if "remoteExists" in checks:
        remotes = _git(path, "remote").split()
        wanted = checks["remoteExists"]
        if isinstance(wanted, bool):
            out.append(
                Check(
                    bool(remotes) == wanted,
                    f"remotes: {remotes or 'none'}, expected {'some' if wanted else 'none'}",
                )
            )
        else:
            out.append(Check(str(wanted) in remotes, f"remote {wanted!r} exists (remotes: {remotes})"))
    if "branch" in checks and len(checks) == 1:
        current = _git(path, "rev-parse", "--abbrev-ref", "HEAD")
        out.append(Check(current == branch, f"the current branch is {current!r}, expected {branch!r}"))
    return out


async def run_scenario(path: Path, options: RunOptions, observers: Sequence[Observer] = ()) -> ScenarioResult:
    return await ScenarioRun(path, options, observers).run()
