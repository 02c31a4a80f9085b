"""`workbench mock-agent SCENARIO`: a deterministic coding agent for the terminal.

It plays the agent steps of a scenario's schedule: prints thinking and assistant
text as a coding agent would, runs the tools for real in the workspace, compares
their real results with the scenario's ``result``/``status`` and reports each
mismatch as a failure (exit code 1).

Two ways to pace it:

* alone (``--speed N|max``), it keeps its own virtual clock;
* under the engine (``--control SOCKET`` or ``$WORKBENCH_CONTROL``), it never
  sleeps and plays exactly the step the engine asks for (see ``control``).

Two faces: *print mode* writes the transcript and exits; *interactive mode*
(the default when the scenario has user input) draws a one-line chat input at
the bottom (``> ``) so typed text has somewhere real to go. The terminal is put
in raw mode: the agent echoes keys itself, and output processing is off so every
byte it writes reaches the engine unchanged.
"""

from __future__ import annotations

import argparse
import codecs
import os
import re
import select
import subprocess
import sys
import termios
import time
import tty
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, assert_never

from workbench.agent import render
from workbench.agent.claude import command as claude_command
from workbench.agent.control import ENV_VAR, AgentLink, ControlError
from workbench.crash import summary, write_crash_report
from workbench.names import EXIT_FAILED, EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, Env
from workbench.records import record
from workbench.scenario import model as m
from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import load_scenario
from workbench.scenario.user_regex import PatternTooSlow
from workbench.timeline import AGENT_KINDS, Schedule, Step, StepKind, compile_schedule
from workbench.usage import UsageError, add_define, check_folder, path_arg

_SGR = re.compile(r"\x1b\[[0-9;]*m")


@record
class StepFailure:
    kind: str
    message: str
    line: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "line": self.line}


@record
class Terminal:
    """The agent's terminal: counts bytes written and keeps the chat input line."""

    interactive: bool
    out_fd: int = 1
    written: int = 0
    buffer: str = ""
    read_bytes: int = 0
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace")
    )
    in_escape: bool = False
    eof: bool = False
    plain: bool = field(default_factory=lambda: not os.isatty(1) or "NO_COLOR" in os.environ)
    on_submit: Callable[[str], None] | None = None  # called with each line the user enters

    def write(self, text: str) -> None:
        if self.plain:
            text = _SGR.sub("", text)  # piped or NO_COLOR: no colour codes in the transcript
        data = text.encode("utf-8")
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.out_fd, view)
            except BlockingIOError:
                select.select([], [self.out_fd], [])
                continue
            view = view[n:]
            self.written += n

    def emit(self, text: str) -> None:
        """Print a transcript paragraph above the input line."""
        if self.interactive:
            self.write("\r\x1b[K" + text + render.CRLF + self._input_line())
        else:
            self.write(text + render.CRLF)

    def _input_line(self) -> str:
        return f"{render.BOLD}{render.PROMPT}{render.RESET}{self.buffer}"

    def draw_input(self) -> None:
        if self.interactive:
            self.write("\r\x1b[K" + self._input_line())

    def feed(self, data: bytes) -> None:
        """Handle typed bytes: edit the input line; Enter submits it to the transcript."""
        self.read_bytes += len(data)
        if not data:
            self.eof = True
            return
        for ch in self.decoder.decode(data):
            if self.in_escape:
                if ch.isalpha() or ch == "~":
                    self.in_escape = False
                continue
            if ch == "\x1b":
                self.in_escape = True
            elif ch in "\r\n":
                submitted, self.buffer = self.buffer, ""
                self.write("\r\x1b[K" + f"{render.DIM}{render.PROMPT}{render.RESET}{submitted}" + render.CRLF)
                if self.on_submit is not None:
                    self.on_submit(submitted)
                self.draw_input()
            elif ch in "\x7f\x08":
                self.buffer = self.buffer[:-1]
                self.draw_input()
            elif ch == "\x04" and not self.buffer:
                self.eof = True
            elif ch == "\x03":
                self.buffer = ""
                self.write("^C")
                self.eof = True
            elif ch >= " " or ch == "\t":
                self.buffer += ch
                if self.interactive:
                    self.write(ch)


class MockAgent:
    """Plays agent steps; owns the tools' state (background shells) and the failures."""

    def __init__(self, scenario: m.Scenario, schedule: Schedule, workspace: Path, term: Terminal,
                 checkpoint_cmd: str | None) -> None:  # fmt: skip
        from workbench.agent.tools import ShellRegistry

        self.scenario = scenario
        self.schedule = schedule
        self.workspace = workspace
        self.term = term
        self.checkpoint_cmd = checkpoint_cmd
        self.shells = ShellRegistry()
        self.outcomes: dict[int, Any] = {}
        self.failures: list[StepFailure] = []
        self._matcher: Any = None  # a RuleMatcher, for Claudeless scenarios
        self._claude_tools: Any = None  # their tools' shared state (workbench.agent.claude.tools.ToolState)

    def answer(self, prompt: str) -> None:
        """A Claudeless scenario: reply to what the user entered by the first matching rule.

        Tool calls follow the scenario's `tool_execution` exactly as print mode does
        (:func:`workbench.agent.claude.tools.run_call`): a per-tool `error` fails the call, a
        canned `result` (the call's, else the tool's) answers without running anything, mode
        `mock` without one is an error, mode `live` runs the tool for real in the workspace.
        `auto_approve = false` denies the call (there is no one to ask on this terminal).
        """
        from workbench.agent.claude.tools import ToolState, run_call
        from workbench.scenario.matching import RuleMatcher

        rules = self.scenario.rules
        if rules is None:
            return
        if self._matcher is None:
            self._matcher = RuleMatcher(rules)
            self._claude_tools = ToolState(lambda todos: None, lambda plan: "the session")
        try:
            reply, failure = self._matcher.choose(prompt)
        except PatternTooSlow as exc:  # a rule's `regex`: said on the screen, where the run sees it
            self.term.emit(render.mismatch(exc.placed()))
            return
        if failure is not None:
            params = ", ".join(f"{k}={v}" for k, v in failure.params.items())
            self.term.emit(render.mismatch(f"API error: {failure.type}" + (f" ({params})" if params else "")))
            return
        if reply is None:
            return
        if reply.text:
            self.term.emit(render.assistant(reply.text))
        for call in reply.tool_calls:
            self.term.emit(render.tool_title(call.tool, dict(call.input)))
            setting = rules.tools.get(call.tool)
            if setting is not None and setting.auto_approve is False:
                self.term.emit(render.tool_result("error", f"permission denied: {call.tool} needs approval"))
                continue
            run = run_call(call.tool, dict(call.input), call.result, setting, rules.tool_mode, self.workspace,
                           self._claude_tools)  # fmt: skip
            self.term.emit(render.tool_result("error" if run.is_error else "ok", run.content))

    def play(self, step: Step) -> list[StepFailure]:
        """Perform one schedule step and return the failures it found."""
        before = len(self.failures)
        match step.kind:
            case StepKind.THINK:
                self.term.emit(render.thinking(step.text.text))
            case StepKind.ASSISTANT:
                self.term.emit(render.assistant(step.text.text))
            case StepKind.LLM_ERROR:
                error = step.error
                self.term.emit(render.llm_error(error.status_code, error.error_type, error.message))
            case StepKind.TOOL_START:
                self._tool_start(step, step.tool)
            case StepKind.TOOL_PROGRESS:
                self.term.emit(render.sub_line(step.text.text, render.DIM))
            case StepKind.TOOL_OUTPUT:
                pass  # `toolExecution` simulates a tool's output for simulation mode; this agent runs the real tool
            case StepKind.TOOL_RESULT:
                self._tool_result(step, step.tool)
            case StepKind.EDIT:
                self._edit(step)
            case StepKind.ACP:
                self.term.emit(render.note(step.summary))
            case (StepKind.LLM_RESPONSE | StepKind.INPUT | StepKind.KEY | StepKind.CANCEL | StepKind.ADVANCE
                  | StepKind.CONTROL):  # fmt: skip
                pass  # nothing to draw: an empty response, or a step the engine plays
            case unknown:
                assert_never(unknown)
        return self.failures[before:]

    def _fail(self, step: Step, kind: str, message: str) -> None:
        self.failures.append(StepFailure(kind, message, step.pos.line))
        self.term.emit(render.mismatch(message))

    def _tool_start(self, step: Step, tool: m.ToolUse) -> None:
        from workbench.agent.tools import execute_tool

        self.term.emit(render.tool_title(tool.tool_name, tool.args))
        self.outcomes[id(tool)] = execute_tool(
            tool.tool_name, dict(tool.args), self._workspace(), canned_result=tool.result, shells=self.shells
        )

    def _tool_result(self, step: Step, tool: m.ToolUse) -> None:
        from workbench.agent.tools import compare_result

        outcome = self.outcomes.pop(id(tool))
        self.term.emit(render.tool_result(outcome.status, outcome.result))
        problem = compare_result(tool.result, outcome, tool.status)
        if problem:
            self._fail(step, "tool", f"{tool.tool_name}: {problem}")
        self._checkpoint(step)

    def _edit(self, step: Step) -> None:
        from workbench.agent.tools import perform_edit

        edit = step.event
        assert isinstance(edit, m.FileEdit)
        self.term.emit(render.edit(edit.path, edit.lines_added, edit.lines_removed))
        problem = perform_edit(self._workspace(), edit.path, edit.lines_added, edit.lines_removed)
        if problem:
            self._fail(step, "tool", f"agentEdits {edit.path}: {problem}")
        self._checkpoint(step)

    def _checkpoint(self, step: Step) -> None:
        if not self.checkpoint_cmd:
            return
        done = subprocess.run(["bash", "-c", self.checkpoint_cmd], cwd=self.workspace, capture_output=True,
                              text=True, timeout=60, check=False)  # fmt: skip
        if done.returncode != 0:
            self._fail(
                step, "tool", f"--checkpoint-cmd exited {done.returncode}: {done.stderr.strip()[:200]}"
            )

    def _workspace(self) -> Any:
        from workbench.workspace import Workspace

        return Workspace.attach(self.workspace)

    def close(self) -> None:
        self.shells.close()
        if self._claude_tools is not None:
            self._claude_tools.close()


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `workbench mock-agent` (the CLI builds its parser from these)."""
    p.add_argument(
        "scenario",
        type=path_arg,
        nargs="?",
        metavar="SCENARIO",
        help="the scenario (or Claudeless rules) to play",
    )
    p.add_argument("--workspace", type=path_arg, default=None, metavar="DIR",
                   help="where tools run (default: a fresh temporary folder, printed at exit)")  # fmt: skip
    p.add_argument("--speed", default="1", help="1 = real time, 4 = four times faster, max = no waiting")
    p.add_argument("--checkpoint-cmd", default=None, help="a shell command run after each tool and edit")
    p.add_argument(
        "--control", default=os.environ.get(ENV_VAR), help="the engine's control socket (set by the engine)"
    )
    add_define(p)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--interactive", dest="interactive", action="store_true", default=None,
                      help="wait for typed prompts (default when the scenario has user input)")  # fmt: skip
    mode.add_argument("-p", "--print", dest="print_mode", nargs="?", const=True, default=None, metavar="PROMPT",
                      help="play the steps and exit; with Claudeless rules, answer PROMPT as `claude -p`")  # fmt: skip
    claude_command.add_arguments(p)


def read_unsaved_text(environ: MutableMapping[str, str]) -> str | None:
    """The unsaved scenario text the engine handed this process, once; None when it handed none."""
    fd = environ.pop(Env.SCENARIO_FD, None)
    if fd is None:
        return None
    with open(int(fd), "rb") as source:  # closes it: the agent's own children never see it
        return os.pread(source.fileno(), os.fstat(source.fileno()).st_size, 0).decode("utf-8")


def has_user_input(scenario: m.Scenario) -> bool:
    return any(isinstance(e, m.UserInputs | m.KeyPress) for e in scenario.timeline)


def main(argv: Sequence[str] | None = None, prepared: tuple[m.Scenario, Schedule] | None = None) -> int:
    """Parse ``argv`` (`workbench mock-agent`'s arguments) and play (``prepared``: the scenario and
    schedule the engine already has, when it forked this process)."""
    parser = argparse.ArgumentParser(prog="workbench mock-agent")
    add_arguments(parser)
    return run(parser.parse_args(list(sys.argv[1:] if argv is None else argv)), prepared)


def run(args: argparse.Namespace, prepared: tuple[m.Scenario, Schedule] | None = None) -> int:
    """Play the scenario's agent steps in this terminal (or paced by the engine over ``--control``).

    The scenario is ``prepared`` (a forked agent), else the text the engine handed over (an unsaved
    scenario, `workbench.engine.program.unsaved_text`), else the file. Claudeless rules with ``-p``
    or a prompt (argument or stdin) answer as Claude Code's print mode."""
    if args.print_mode is not None:
        args.interactive = False
        if isinstance(args.print_mode, str):
            args.prompt = args.print_mode
    if args.install_shim is not None:
        return claude_command.install_shim(args)
    if args.scenario is None:
        print("workbench mock-agent: error: give a SCENARIO (or --install-shim DIR)", file=sys.stderr)
        return EXIT_INVALID
    try:
        if prepared is not None:
            scenario, schedule = prepared
        else:
            scenario = load_scenario(args.scenario, defines=args.define, text=read_unsaved_text(os.environ))
            schedule = compile_schedule(scenario)
    except ScenarioError as exc:
        for d in exc.diagnostics:
            print(d, file=sys.stderr)
        return EXIT_INVALID
    if scenario.format == "claudeless" and claude_command.wants_print_mode(args):
        return claude_command.run_print(args)
    from workbench.clock import parse_speed

    try:
        speed = parse_speed(args.speed)
    except ValueError as exc:
        print(f"workbench mock-agent: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    try:
        check_folder(args.workspace, "--workspace", "where the tools run")
    except UsageError as exc:
        print(f"workbench mock-agent: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    rules_mode = scenario.format == "claudeless"  # a scripted agent answering what is typed, by rules
    interactive = has_user_input(scenario) or rules_mode if args.interactive is None else args.interactive
    term = Terminal(interactive)
    saved = _raw_terminal()
    workspace = args.workspace
    if workspace is None:  # never the current folder: a user's checkout is not a scratch space
        from workbench.workspace import Workspace, WorkspaceError

        try:  # seeded from the scenario's `repo:`, as `workbench run` seeds its workspace
            workspace = Workspace.create(args.scenario.resolve().parent, scenario.repo, keep=True).path
        except (WorkspaceError, OSError) as exc:
            _restore_terminal(saved)
            where = f"{exc.pos}: " if isinstance(exc, WorkspaceError) and exc.pos else ""
            print(f"workbench mock-agent: error: {where}cannot prepare the workspace: {exc}", file=sys.stderr)
            return EXIT_INVALID
        print(f"workbench mock-agent: workspace {workspace}", file=sys.stderr)
    agent = MockAgent(scenario, schedule, workspace.resolve(), term, args.checkpoint_cmd)
    if rules_mode:
        term.on_submit = agent.answer
    try:
        link = _connect(args.control)
        term.emit(render.banner(scenario.name))
        term.draw_input()
        if link is not None:
            return _controlled(agent, term, link)
        return _alone(agent, term, speed)
    except UsageError as exc:
        print(f"workbench mock-agent: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except ControlError as exc:
        print(f"workbench mock-agent: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # a bug here or in a tool: a crash file, whose path the engine learns
        cause = exc.__cause__ if isinstance(exc, _Crashed) and exc.__cause__ is not None else exc
        path = exc.crash_path if isinstance(exc, _Crashed) else write_crash_report(exc)
        print(
            f"workbench mock-agent: internal error: {summary(cause)}; the traceback is in {path}",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        return 130
    finally:
        agent.close()
        _restore_terminal(saved)


def _raw_terminal() -> list[Any] | None:
    """Raw input (the agent echoes), and no output processing (bytes in = bytes out)."""
    if not os.isatty(0):
        return None
    saved = termios.tcgetattr(0)
    tty.setraw(0, termios.TCSANOW)
    return saved


def _restore_terminal(saved: list[Any] | None) -> None:
    if saved is not None:
        termios.tcsetattr(0, termios.TCSADRAIN, saved)


def _read_stdin(term: Terminal) -> None:
    try:
        data = os.read(0, 4096)
    except OSError:
        data = b""
    term.feed(data)


def _connect(control: str | None) -> AgentLink | None:
    """The engine's control channel (None: played alone); a socket nobody listens on is a UsageError."""
    if not control:
        return None
    try:
        return AgentLink(control)
    except OSError as exc:
        raise UsageError(
            f"--control {control}: no engine listens there ({exc.strerror or exc}); the engine sets it "
            f"(`workbench run`): to play a scenario alone, leave it out (and ${ENV_VAR})"
        ) from None


def _controlled(agent: MockAgent, term: Terminal, link: AgentLink) -> int:
    link.send({"op": "hello", "pid": os.getpid(), "written": term.written})
    pending_sync: int | None = None
    watch_stdin = os.isatty(0)
    try:
        while True:
            fds: list[Any] = [link] + ([0] if watch_stdin and not term.eof else [])
            ready, _, _ = select.select(fds, [], [])
            if 0 in ready:
                _read_stdin(term)
                if pending_sync is not None and (term.read_bytes >= pending_sync or term.eof):
                    link.send({"op": "synced", "written": term.written})
                    pending_sync = None
                continue
            for message in link.read_available():
                op = message.get("op")
                if op == "step":
                    step = agent.schedule.steps[int(message["index"])]
                    failures = agent.play(step)
                    link.send({"op": "done", "index": step.index, "written": term.written,
                               "failures": [f.to_json() for f in failures]})  # fmt: skip
                elif op == "sync":
                    if term.read_bytes >= int(message["bytes"]) or term.eof or not watch_stdin:
                        link.send({"op": "synced", "written": term.written})
                    else:
                        pending_sync = int(message["bytes"])
                elif op == "end":
                    code = EXIT_FAILED if agent.failures else EXIT_OK
                    link.send({"op": "bye", "exit": code, "written": term.written})
                    return code
    except Exception as exc:
        if not isinstance(exc, ControlError):
            raise _Crashed(link.report_crash(exc)) from exc
        raise
    finally:
        link.close()


class _Crashed(Exception):
    """A crash already written to ``crash_path`` and reported to the engine."""

    def __init__(self, crash_path: str) -> None:
        super().__init__(crash_path)
        self.crash_path = crash_path


def _alone(agent: MockAgent, term: Terminal, speed: float | None) -> int:
    start = time.monotonic()
    for step in agent.schedule.steps:
        if step.kind not in AGENT_KINDS:
            continue
        if speed is not None:
            due = start + step.at_ms / 1000 / speed
            while (left := due - time.monotonic()) > 0:
                _wait_input(term, left)
        agent.play(step)
    if term.interactive:
        while not term.eof:
            _wait_input(term, None)
    return EXIT_FAILED if agent.failures else EXIT_OK


def _wait_input(term: Terminal, timeout: float | None) -> None:
    if not os.isatty(0) or term.eof:
        if timeout is not None:
            time.sleep(timeout)
        else:
            term.eof = True
        return
    ready, _, _ = select.select([0], [], [], timeout)
    if ready:
        _read_stdin(term)


if __name__ == "__main__":
    raise SystemExit(main())
