"""The `workbench` command line: one module per command, registered in :data:`COMMANDS`.

A command is a module of this package with ``add_arguments(parser)`` and
``run(args) -> int``; adding one is that module plus one line here. Only the
chosen command's module is imported, and each imports what it needs inside
``run``, so `workbench --help` and `workbench run` start fast.

Exit codes (:mod:`workbench.usage`): 0 success; 1 a scenario failed; 2 invalid
input with diagnostics on stderr (or no room where the output goes: a full disk);
3 internal error (the traceback goes to a file whose path is printed); 130
interrupted; 143 terminated. `workbench run` whose standard output fails (a
reader that left, a full disk) goes on to its reports and its own exit code.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import errno
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from workbench.usage import (
    EXIT_INTERNAL,
    EXIT_INVALID,
    EXIT_OK,
    Terminated,
    UsageError,
    UsageParser,
)

#: command name -> (module in this package, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("run", "run scenarios headless; exit 0 if all pass, 1 if any fails"),
    "validate": ("validate", "check scenario files and print diagnostics"),
    "edit": ("edit", "open the app on a scenario file or folder (also: workbench [PATH])"),
    "show": ("show", "open a recorded run (a run folder, a scenario name or file) in the app, read-only"),
    "timeline": ("timeline", "print the compiled schedule of a scenario as a table"),
    "schema": ("schema", "print the JSON Schema of the YAML scenario format"),
    "mock-agent": ("mock_agent", "play a scenario's agent steps in this terminal"),
    "serve": ("serve", "serve scenarios over HTTP: `serve llm` plays the model for a real agent"),
    "report": (
        "report",
        "`report merge REPORT...`: one report from sharded runs; `report html RUN... -o DIR`: an HTML report",
    ),
    "record": ("record", "record a real agent session through a proxy into a scenario that replays it"),
    "acp-agent": ("acp_agent", "play a scenario as an ACP agent on stdin/stdout (for testing ACP clients)"),
    "verify-install": (
        "verify_install",
        "build and install a package as published, check its commands, smoke-run",
    ),
}


def command_module(name: str) -> ModuleType:
    """The module behind a command name of :data:`COMMANDS`."""
    return importlib.import_module(f"{__name__}.{COMMANDS[name][0]}")


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``chosen`` with its arguments, or of every command without theirs when it is None.

    Filling in a command's arguments imports its module; `workbench --help` needs none of them. A chosen
    command's parser has no others (building the eleven others cost ~3 ms of each start, the app's too):
    its usage, help and errors name only it.
    """
    parser = UsageParser(
        prog="workbench",
        description="Deterministic end-to-end tests for coding agents: scenarios, a real terminal, golden screens.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=UsageParser)
    for name, (_module, help_text) in COMMANDS.items():
        if chosen in COMMANDS and name != chosen:
            continue
        command = sub.add_parser(
            name, help=help_text, description=help_text[:1].upper() + help_text[1:] + "."
        )
        if chosen == name:
            command_module(name).add_arguments(command)
    return parser


def _version() -> str:
    from workbench import __version__

    return __version__


def _chosen(argv: list[str]) -> str | None:
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        argv.insert(0, "edit")  # `workbench PATH` opens the app on PATH
    elif argv and argv[0].startswith("--") and argv[0] not in ("--help", "--version") and argv[0] != "-h":
        argv.insert(0, "edit")  # `workbench --theme X` / `workbench --web`: the app's own options
    elif not argv and sys.stdin.isatty() and sys.stdout.isatty():
        argv = ["edit"]  # `workbench` in a terminal opens the app on ./scenarios; elsewhere it prints help
    chosen = _chosen(argv)
    args = build_parser(chosen if chosen in COMMANDS else None).parse_args(argv)
    if args.command is None:
        build_parser(None).print_help()
        return EXIT_OK
    try:
        return int(command_module(args.command).run(args))
    except UsageError as exc:
        print(f"workbench: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except Terminated as stop:
        hung_up = stop.signum == signal.SIGHUP
        print(
            "workbench: terminated" + (" (SIGHUP: the terminal closed?)" if hung_up else ""), file=sys.stderr
        )
        return 128 + stop.signum
    except KeyboardInterrupt:
        print("workbench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        if exc.errno not in _NO_ROOM:
            return internal_error()
        where = f"{exc.filename}: " if exc.filename else ""  # none: standard output, or an open file
        print(f"workbench: error: {where}cannot write: {exc.strerror or exc} (no room where the output goes)",
              file=sys.stderr)  # fmt: skip
        return EXIT_INVALID  # not a bug: a full disk, a quota, /dev/full as standard output
    except Exception:  # a bug: never a bare traceback in the user's face
        return internal_error()


_NO_ROOM = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
"""The errors of a write that found no room: where the output goes is full, not the workbench wrong."""


def entry() -> NoReturn:
    """The `workbench` program (and `python -m workbench`): :func:`main`, then the exit.

    When no thread but this one is left, the process ends right after the exit handlers (``atexit``)
    and a flush of the standard streams, without the interpreter's teardown: freeing every module
    and object one by one cost `workbench run` about 25 ms of CPU, a tenth of a batch of 20 short
    scenarios. With a thread still running, the exit is Python's own (it waits for the thread)."""
    code = main()
    threading = sys.modules.get("threading")
    if threading is not None and any(
        t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()
    ):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream: nothing more to say
            stream.flush()
    os._exit(code)


def internal_error() -> int:
    """Report the exception being handled as a bug: its traceback in a crash file, exit 3."""
    from workbench.crash import write_crash_report

    exc = sys.exc_info()[1]
    assert exc is not None
    path = write_crash_report(exc)
    print(f"workbench: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
    print(f"workbench: this is a bug; the traceback is in {path}", file=sys.stderr)
    return EXIT_INTERNAL
