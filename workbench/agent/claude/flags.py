"""Claude Code's command line, as the shim and `workbench mock-agent -p` accept it.

Every flag of Claude Code's print mode is accepted, so an orchestrator's command
line never fails on an unknown option; the ones that change what a scripted
model does are honoured (``--output-format``, ``--verbose``,
``--include-partial-messages``, ``--model``, ``--allowedTools``,
``--disallowedTools``, ``--permission-mode``, ``--dangerously-skip-permissions``,
``--session-id``, ``--resume``, ``--continue``, ``--fork-session``,
``--no-session-persistence``, ``--settings``, ``--max-turns``, ``--tools``,
``--input-format``), the rest are
read and ignored, as a model that is not there cannot use a system prompt.

Bad values fail as Claude Code fails (its commander texts, exit 1), not with
argparse's usage and exit 2; a flag whose value is one of a set is checked from
one table, :data:`CHOICES`. Which rules answer comes from ``--scenario FILE``
or ``$CLAUDELESS_SCENARIO`` (``$WORKBENCH_CLAUDE_RULES`` is the same).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

from workbench.names import Env

OUTPUT_FORMATS = ("text", "json", "stream-json")
INPUT_FORMATS = ("text", "stream-json")
# Claude Code 2.1.12's permission modes (its `--permission-mode` choices).
PERMISSION_MODES = ("acceptEdits", "bypassPermissions", "default", "delegate", "dontAsk", "plan")

CHOICES: dict[str, tuple[str, tuple[str, ...]]] = {
    "--output-format": ("<format>", OUTPUT_FORMATS),
    "--input-format": ("<format>", INPUT_FORMATS),
    "--permission-mode": ("<mode>", PERMISSION_MODES),
    "--thinking": ("<mode>", ("enabled", "adaptive", "disabled")),
    "--thinking-display": ("<display>", ("summarized", "omitted")),
}
"""Every flag whose value is one of a set (commander's ``.choices()`` in Claude Code): flag -> (the value's
name in its messages, the allowed values). A value outside the set is refused as Claude Code refuses it,
while the command line is read (its order: the first bad one is named), exit 1."""
SCENARIO_ENV = ("CLAUDELESS_SCENARIO", Env.CLAUDE_RULES)
FAILURE_ENV = "CLAUDELESS_FAILURE"

# Flags read and ignored: (flags, takes a value).
_IGNORED: tuple[tuple[tuple[str, ...], bool], ...] = (
    (("--system-prompt",), True), (("--system-prompt-file",), True), (("--append-system-prompt",), True),
    (("--append-system-prompt-file",), True), (("--add-dir",), True), (("--agent",), True), (("--agents",), True),
    (("--betas",), True), (("--fallback-model",), True), (("--max-budget-usd",), True), (("--json-schema",), True),
    (("--plugin-dir",), True), (("--tools",), True), (("--setting-sources",), True), (("--mcp-config",), True),
    (("--permission-prompt-tool",), True), (("-d", "--debug"), False), (("--mcp-debug",), False),
    (("--strict-mcp-config",), False), (("--replay-user-messages",), False), (("--ide",), False),
    (("--chrome",), False), (("--no-chrome",), False), (("--disable-slash-commands",), False),
    (("--allow-dangerously-skip-permissions",), False),
    # what the Claude Agent SDKs pass besides
    (("--thinking",), True), (("--thinking-display",), True), (("--max-thinking-tokens",), True),
    (("--effort",), True), (("--task-budget",), True), (("--resume-session-at",), True),
    (("--resume-drops-turn",), True), (("--include-hook-events",), False), (("--session-mirror",), False),
)  # fmt: skip


class ClaudeUsageError(Exception):
    """A command line Claude Code refuses: printed as it prints it, exit 1."""


def _one_of(flag: str) -> Callable[[str], str]:
    """The argparse type of ``flag``, one of :data:`CHOICES`: its value, or Claude Code's refusal."""
    value_name, allowed = CHOICES[flag]

    def checked(value: str) -> str:
        if value not in allowed:
            raise ClaudeUsageError(
                f"error: option '{flag} {value_name}' argument '{value}' is invalid. "
                f"Allowed choices are {', '.join(allowed)}."
            )
        return value

    return checked


class _Formatter(argparse.HelpFormatter):
    """A fixed width: argparse otherwise asks the terminal's size (and imports shutil) for every option."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=100)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments: "):
            message = f"unknown option '{message.split(': ', 1)[1].split()[0]}'"
        raise ClaudeUsageError(f"error: {message}")


class PrintOptions:
    """What one print-mode call asked for (a plain class: the shim must not import ``dataclasses``)."""

    def __init__(self, prompt: str | None, **values: Any) -> None:
        self.prompt = prompt
        self.output_format: str = values.get("output_format", "text")
        self.input_format: str = values.get("input_format", "text")
        self.verbose: bool = values.get("verbose", False)
        self.partial: bool = values.get("partial", False)
        self.model: str | None = values.get("model")
        self.allowed: tuple[str, ...] = values.get("allowed", ())
        self.disallowed: tuple[str, ...] = values.get("disallowed", ())
        self.permission_mode: str | None = values.get("permission_mode")
        self.skip_permissions: bool = values.get("skip_permissions", False)
        self.session_id: str | None = values.get("session_id")
        self.resume: str | None = values.get("resume")
        self.resume_given: bool = values.get("resume_given", False)
        self.continue_: bool = values.get("continue_", False)
        self.fork: bool = values.get("fork", False)
        self.persist: bool = values.get("persist", True)
        self.settings: str | None = values.get("settings")
        self.max_turns: int | None = values.get("max_turns")
        self.scenario: str | None = values.get("scenario")
        self.failure: str | None = values.get("failure")
        self.tools: tuple[str, ...] | None = values.get(
            "tools"
        )  # --tools: the tools the model has (None: all)


def add_claude_arguments(p: argparse._ActionsContainer) -> None:
    """Claude Code's flags (but not ``-p``/``--print``, nor the prompt: the caller adds those)."""
    p.add_argument("--output-format", default=None, type=_one_of("--output-format"), metavar="FORMAT",
                   help="text, json or stream-json (print mode)")  # fmt: skip
    p.add_argument("--input-format", default=None, type=_one_of("--input-format"), metavar="FORMAT",
                   help=argparse.SUPPRESS)  # fmt: skip
    p.add_argument(
        "--verbose", action="store_true", help="with stream-json or json: every message, not only the result"
    )
    p.add_argument(
        "--include-partial-messages", action="store_true", help="stream-json: Anthropic stream events too"
    )
    p.add_argument("--model", default=None, help="the model reported (alias or full name)")
    p.add_argument("--allowedTools", "--allowed-tools", dest="allowed", action="extend", nargs="+", default=[],
                   metavar="TOOL", help="tools allowed without asking, e.g. Bash(git:*) Edit")  # fmt: skip
    p.add_argument("--disallowedTools", "--disallowed-tools", dest="disallowed", action="extend", nargs="+",
                   default=[], metavar="TOOL", help="tools refused")  # fmt: skip
    p.add_argument("--permission-mode", default=None, type=_one_of("--permission-mode"), metavar="MODE",
                   help=", ".join(PERMISSION_MODES))  # fmt: skip
    p.add_argument("--dangerously-skip-permissions", action="store_true", help="allow every tool")
    p.add_argument("--session-id", default=None, metavar="UUID", help="the new session's id")
    p.add_argument("-r", "--resume", nargs="?", const="", default=None, metavar="SESSION",
                   help="continue the session with this id")  # fmt: skip
    p.add_argument(
        "-c", "--continue", dest="continue_", action="store_true", help="continue the latest session here"
    )
    p.add_argument("--fork-session", action="store_true", help="with --resume/--continue: a new session id")
    p.add_argument("--no-session-persistence", action="store_true", help="write no session files")
    p.add_argument("--settings", default=None, metavar="FILE_OR_JSON", help="settings (permissions) to add")
    p.add_argument("--max-turns", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument(
        "--failure", default=None, help="inject a failure (rate-limit, auth-error, ...); $CLAUDELESS_FAILURE"
    )
    for flags, takes_value in _IGNORED:
        if takes_value:
            checked = next((_one_of(f) for f in flags if f in CHOICES), str)
            p.add_argument(*flags, action="append", default=None, type=checked, help=argparse.SUPPRESS)
        else:
            p.add_argument(*flags, action="store_true", help=argparse.SUPPRESS)


def shim_parser() -> argparse.ArgumentParser:
    """The parser of the installed ``claude``: Claude Code's flags plus ``--scenario``."""
    p = _Parser(
        formatter_class=_Formatter,
        prog="claude",
        add_help=True,
        description="A mock Claude Code answering from Claudeless rules.",
    )
    p.add_argument("prompt", nargs="?", default=None)
    p.add_argument("-p", "--print", dest="print_mode", action="store_true", help="print the answer and exit")
    p.add_argument("-v", "--version", action="store_true", help="print the version")
    p.add_argument("--scenario", default=None, metavar="FILE", help="the rules ($CLAUDELESS_SCENARIO)")
    add_claude_arguments(p)
    return p


def options_from(args: argparse.Namespace, environ: Mapping[str, str]) -> PrintOptions:
    """Check the values as Claude Code checks them once its command line is read (a value outside its set
    was refused while reading: :data:`CHOICES`); ClaudeUsageError with its text."""
    out = "text" if args.output_format is None else args.output_format
    inp = "text" if args.input_format is None else args.input_format
    mode = args.permission_mode
    if out == "stream-json" and not args.verbose:
        raise ClaudeUsageError("Error: When using --print, --output-format=stream-json requires --verbose")
    if args.include_partial_messages and out != "stream-json":
        raise ClaudeUsageError(
            "Error: --include-partial-messages requires --print and --output-format=stream-json."
        )
    if args.session_id is not None and not is_uuid(args.session_id):
        raise ClaudeUsageError("Error: Invalid session ID. Must be a valid UUID.")
    if args.resume == "":
        raise ClaudeUsageError(
            "Error: --resume requires a valid session ID or session title when used with --print. "
            "Usage: claude -p --resume <session-id|title>."
        )
    scenario = getattr(args, "scenario", None) or next(
        (environ[k] for k in SCENARIO_ENV if environ.get(k)), None
    )
    return PrintOptions(
        prompt=args.prompt,
        output_format=out,
        input_format=inp,
        verbose=args.verbose,
        partial=args.include_partial_messages,
        model=args.model,
        allowed=tuple(_split_tools(args.allowed)),
        disallowed=tuple(_split_tools(args.disallowed)),
        permission_mode=mode,
        skip_permissions=args.dangerously_skip_permissions,
        session_id=args.session_id,
        resume=args.resume,
        resume_given=args.resume is not None,
        continue_=args.continue_,
        fork=args.fork_session,
        persist=not args.no_session_persistence,
        settings=args.settings,
        max_turns=args.max_turns,
        scenario=scenario,
        failure=args.failure or environ.get(FAILURE_ENV) or None,
        tools=_tool_set(getattr(args, "tools", None)),
    )


def _tool_set(values: list[str] | None) -> tuple[str, ...] | None:
    """``--tools``: "default" (or none given) is every built-in tool, "" is none, else the names listed."""
    if not values:
        return None
    last = values[-1].strip()
    return None if last == "default" else tuple(_split_tools([last]))


def _split_tools(values: Sequence[str]) -> list[str]:
    """``Bash,Read`` and ``Bash Read`` both list two tools; a comma inside ``Bash(a,b)`` does not split."""
    out: list[str] = []
    for value in values:
        depth, start = 0, 0
        for i, ch in enumerate(value + ","):
            depth += ch == "("
            depth -= ch == ")"
            if ch in ", " and depth == 0:
                if value[start:i].strip():
                    out.append(value[start:i].strip())
                start = i + 1
    return out


def is_uuid(text: str) -> bool:
    parts = text.split("-")
    if [len(x) for x in parts] != [8, 4, 4, 4, 12]:
        return False
    return all(c in "0123456789abcdefABCDEF" for c in "".join(parts))


def read_prompt(prompt: str | None) -> str | None:
    """The prompt argument, else everything on stdin when stdin is not a terminal (as Claude Code)."""
    if prompt is not None:
        return prompt
    try:
        if os.isatty(0):
            return None
        data = sys.stdin.buffer.read()
    except (OSError, ValueError):
        return None
    text = data.decode("utf-8", "replace").strip()
    return text or None
