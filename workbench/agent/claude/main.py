"""One print-mode call: the prompt in, Claude Code's output out, the session written.

Exit codes and error texts are Claude Code's: 0 when the model answered, 1 for
an API error (its text on stdout in the chosen format) or a refused command line
(its text on stderr). Problems that are ours, not Claude Code's, keep the
workbench's codes: 2 for rules that are missing or invalid (the diagnostics at
``file:line:col``), 3 for an internal error.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from workbench.agent.claude import events as ev
from workbench.agent.claude import ids, output, sessions
from workbench.agent.claude.flags import (
    ClaudeUsageError,
    PrintOptions,
    options_from,
    read_prompt,
    shim_parser,
)
from workbench.scenario.user_regex import PatternTooSlow

EXIT_OK, EXIT_API_ERROR, EXIT_INVALID, EXIT_INTERNAL = 0, 1, 2, 3


def shim_main(argv: Sequence[str], environ: Mapping[str, str] | None = None,
              default_scenario: str | None = None) -> int:  # fmt: skip
    """The installed ``claude``: Claude Code's command line; the rules from ``--scenario``, else
    ``$CLAUDELESS_SCENARIO``, else ``default_scenario`` (the rules named when the shim was installed)."""
    environ = os.environ if environ is None else environ
    try:
        args = shim_parser().parse_args(list(argv))
        if args.version:
            print(f"{ev.VERSION} (Claude Code)")
            return EXIT_OK
        opts = options_from(args, environ)
        opts.scenario = opts.scenario or default_scenario
    except ClaudeUsageError as exc:
        print(exc, file=sys.stderr)
        return EXIT_API_ERROR
    if not args.print_mode and os.isatty(0):
        print(
            "claude (workbench shim): only print mode is scripted here; pass -p PROMPT or pipe the prompt on stdin. "
            "For a terminal session use `workbench mock-agent RULES`.",
            file=sys.stderr,
        )
        return EXIT_INVALID
    try:
        return run_print(opts, environ)
    except KeyboardInterrupt:
        return 130
    except PatternTooSlow as exc:  # a rule's `regex` on this prompt: the scenario's fault, placed at it
        print(f"claude (workbench shim): {exc.placed()}", file=sys.stderr)
        return EXIT_INVALID
    except Exception as exc:  # a bug here: say where the traceback is, exit 3
        from workbench.crash import summary, write_crash_report

        print(f"claude (workbench shim): internal error: {summary(exc)} (this is a bug; the traceback is in "
              f"{write_crash_report(exc)})", file=sys.stderr)  # fmt: skip
        return EXIT_INTERNAL


def run_print(opts: PrintOptions, environ: Mapping[str, str], cwd: Path | None = None,
              stdout: TextIO | None = None) -> int:  # fmt: skip
    """Answer one prompt from ``opts.scenario``'s rules."""
    started = time.monotonic()
    stdout = stdout or sys.stdout
    if not opts.scenario:
        print(
            "Error: no rules to answer from: give --scenario FILE or set CLAUDELESS_SCENARIO to a Claudeless "
            "rules file (TOML or JSON)",
            file=sys.stderr,
        )
        return EXIT_INVALID
    from workbench.agent.claude.rules_cache import RulesError, load_rules

    try:
        rules = load_rules(Path(opts.scenario), environ)
    except RulesError as exc:
        print(exc, file=sys.stderr)
        return EXIT_INVALID
    if opts.input_format == "stream-json":
        return _serve_stream(opts, rules, (cwd or Path.cwd()).absolute(), environ, stdout)
    prompt = read_prompt(opts.prompt)
    if prompt is None:
        print("Error: Input must be provided either through stdin or as a prompt argument when using --print",
              file=sys.stderr)  # fmt: skip
        return EXIT_API_ERROR
    here = (cwd or Path.cwd()).absolute()
    try:
        return _answer(opts, rules, prompt, here, environ, stdout, started)
    except _Refused as exc:
        print(exc, file=sys.stderr)
        return EXIT_API_ERROR


def _serve_stream(
    opts: PrintOptions, rules: Any, here: Path, environ: Mapping[str, str], stdout: TextIO
) -> int:
    """``--input-format stream-json``: prompts and control requests as JSON lines on stdin."""
    from workbench.agent.claude.stream_input import serve

    if opts.output_format != "stream-json":
        print("Error: --input-format=stream-json requires output-format=stream-json.", file=sys.stderr)
        return EXIT_API_ERROR
    try:
        session = PrintSession(opts, rules, here, environ, stdout)
    except _Refused as exc:
        print(exc, file=sys.stderr)
        return EXIT_API_ERROR
    try:
        return serve(session, sys.stdin.buffer)
    finally:
        session.close()


class _Refused(Exception):
    """A session flag Claude Code refuses (unknown session, id in use)."""


def _session(opts: PrintOptions, rules: Any, config: Path, cwd: str) -> tuple[str, Path | None]:
    """(the session id, the transcript to go on from or None for a new session)."""
    resumed: str | None = None
    if opts.resume_given and opts.resume:
        resumed = opts.resume
        if sessions.find(config, cwd, resumed) is None:
            if not _is_uuid(resumed):
                raise _Refused(
                    "Error: --resume requires a valid session ID or session title when used with --print. "
                    f'Usage: claude -p --resume <session-id|title>. Provided value "{resumed}" is not a UUID '
                    "and does not match any session title."
                )
            raise _Refused(f"No conversation found with session ID: {resumed}")
    elif opts.continue_:
        resumed = sessions.latest(config, cwd)
        if resumed is None:
            raise _Refused("No conversation found to continue")
    if resumed is not None:
        source = sessions.find(config, cwd, resumed)
        if opts.fork:
            return opts.session_id or ids.uuid4(), source
        return resumed, source
    if opts.session_id:
        if opts.persist and sessions.find(config, cwd, opts.session_id) is not None:
            raise _Refused(f"Error: Session ID {opts.session_id} is already in use.")
        return opts.session_id, None
    fixed = rules.identity.get("session_id")
    return (str(fixed) if fixed else ids.uuid4()), None


def _is_uuid(text: str) -> bool:
    from workbench.agent.claude.flags import is_uuid

    return is_uuid(text)


def _answer(opts: PrintOptions, rules: Any, prompt: str, here: Path, environ: Mapping[str, str],
            stdout: TextIO, started: float) -> int:  # fmt: skip
    session = PrintSession(opts, rules, here, environ, stdout)
    try:
        if opts.output_format == "stream-json":
            session.write_init()
        return session.turn(prompt, started)
    finally:
        session.close()


class PrintSession:
    """One call's session: its id, settings, rule state and tools; answers one prompt per :meth:`turn`."""

    def __init__(self, opts: PrintOptions, rules: Any, here: Path, environ: Mapping[str, str],
                 stdout: TextIO) -> None:  # fmt: skip
        from workbench.agent.claude import permissions
        from workbench.agent.claude.tools import ToolState
        from workbench.scenario.matching import RuleMatcher

        self.opts, self.rules, self.here, self.environ, self.stdout = opts, rules, here, environ, stdout
        self.config = config = sessions.config_dir(environ)
        self.cwd = str(here)
        self.session_id, self.source = _session(opts, rules, config, self.cwd)
        self.allow, self.deny, settings_mode = permissions.load_settings(here, config, opts.settings)
        identity = rules.identity
        self.mode = str(opts.permission_mode or settings_mode or identity.get("permission_mode") or "default")
        model = opts.model or identity.get("model") or ev.DEFAULT_MODEL
        self.call = ev.Call(session_id=self.session_id, cwd=self.cwd, model=str(model), permission_mode=self.mode,
                            disallowed=opts.disallowed, version=str(identity.get("version") or ev.VERSION),
                            tools=opts.tools,
                            api_key_source="ANTHROPIC_API_KEY" if environ.get("ANTHROPIC_API_KEY") else "none")  # fmt: skip
        self.matcher = RuleMatcher(rules)
        state = sessions.load_rules_state(config, self.session_id) if self.source is not None else {}
        try:  # a damaged state file starts the rules afresh rather than failing the call
            self.matcher.counts = {int(k): int(v) for k, v in dict(state.get("counts") or {}).items()}
            active = state.get("active")
            if isinstance(active, list) and len(active) == 2:
                rule, turn = int(active[0]), int(active[1])
                if 0 <= rule < len(rules.rules) and 0 <= turn < len(rules.rules[rule].turns):
                    self.matcher.active = (rule, turn)
        except (TypeError, ValueError):
            self.matcher.counts, self.matcher.active = {}, None
        sid = self.session_id
        self.tools = ToolState(lambda todos: sessions.write_todos(config, sid, todos),
                               lambda plan: sessions.write_plan(config, sid, plan, environ.get("HOME")))  # fmt: skip
        self.first = True

    def write_init(self) -> None:
        self.stdout.write(output.dump(ev.init(self.call)) + "\n")
        self.stdout.flush()

    def _run_tool(self, tool: str, tool_input: Mapping[str, Any], canned: str | None) -> tuple[Any, bool]:
        from workbench.agent.claude import permissions
        from workbench.agent.claude.tools import ToolRun, run_call

        if self.opts.tools is not None and tool not in self.opts.tools:  # not a tool this model was given
            return ToolRun(
                f"<tool_use_error>Error: No such tool available: {tool}</tool_use_error>", True
            ), True
        setting = self.rules.tools.get(tool)
        allowed = permissions.decide(
            tool, tool_input, mode=self.mode, skip=self.opts.skip_permissions,
            auto_approve=getattr(setting, "auto_approve", None), allow=[*self.allow, *self.opts.allowed],
            deny=[*self.deny, *self.opts.disallowed],
        )  # fmt: skip
        if not allowed:
            text = permissions.refusal(tool)
            return ToolRun(text, True, f"Error: {text}"), False
        return run_call(tool, tool_input, canned, setting, self.rules.tool_mode, self.here, self.tools), True

    def turn(self, prompt: str, started: float) -> int:
        """Answer ``prompt``: write its messages and result, record it in the session; the exit code."""
        from workbench.agent.claude import conversation
        from workbench.agent.claude.rules_cache import timeouts

        delay = timeouts(self.rules, self.environ)["response_delay_ms"] if self.first else 0
        self.first = False
        conv = conversation.answer(prompt, self.matcher, self._run_tool, first_delay_ms=delay,
                                   forced_failure=self.opts.failure, max_turns=self.opts.max_turns)  # fmt: skip
        msgs = list(ev.messages(self.call, conv, self.opts.partial))
        result = ev.result(self.call, conv, int((time.monotonic() - started) * 1000))
        if self.opts.output_format == "json" and self.opts.verbose:
            msgs.insert(0, ev.init(self.call))
        output.write(self.stdout, self.opts.output_format, self.opts.verbose, msgs, result)
        if self.opts.persist:
            try:
                _persist(self.config, self.cwd, self.here, self.session_id, self.source, self.call, prompt, conv,
                         self.matcher)  # fmt: skip
            except OSError as exc:  # the answer stands; say why the session could not be kept
                print(f"Warning: the session could not be saved in {self.config}: {exc.strerror or exc}",
                      file=sys.stderr)  # fmt: skip
            self.source = None  # the transcript is now in this folder's project
        return EXIT_API_ERROR if conv.failure is not None or conv.max_turns_reached else EXIT_OK

    def close(self) -> None:
        self.tools.close()


def _persist(config: Path, cwd: str, here: Path, session_id: str, source: Path | None, call: ev.Call, prompt: str,
             conv: Any, matcher: Any) -> None:  # fmt: skip
    target = sessions.project_dir(config, cwd) / f"{session_id}.jsonl"
    if source is not None and source != target:  # a fork (or a session from another folder) continues here
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
    transcript = sessions.Transcript(target, call, sessions.git_branch(here), sessions.last_uuid(target))
    transcript.record(prompt, conv)
    transcript.save(prompt)
    sessions.write_json(sessions.rules_state_file(config, session_id),
                        {"counts": {str(k): v for k, v in matcher.counts.items()},
                         "active": list(matcher.active) if matcher.active else None})  # fmt: skip
