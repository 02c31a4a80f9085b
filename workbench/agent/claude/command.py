"""What ``workbench mock-agent`` adds for Claude Code's print mode: ``-p``, its flags, ``--install-shim``.

``workbench mock-agent RULES -p PROMPT`` (or the prompt on stdin when stdin is
not a terminal) answers like ``claude -p``; without a prompt and with a terminal
the mock agent stays the interactive one. ``--install-shim DIR`` writes
``DIR/claude`` (see :mod:`.shim`).
"""

from __future__ import annotations

import argparse
import os
import sys

from workbench.agent.claude.flags import ClaudeUsageError, add_claude_arguments, options_from
from workbench.usage import path_arg


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("prompt", nargs="?", default=None, help="Claudeless rules: the prompt to answer (with -p)")
    p.add_argument("--install-shim", type=path_arg, default=None, metavar="DIR",
                   help="write DIR/claude, a drop-in `claude` answering from the rules (SCENARIO or "
                        "$CLAUDELESS_SCENARIO), and exit")  # fmt: skip
    group = p.add_argument_group("Claude Code print mode (Claudeless rules)")
    add_claude_arguments(group)


def wants_print_mode(args: argparse.Namespace) -> bool:
    """``-p``, a prompt argument, or a prompt waiting on stdin (not a terminal)."""
    if getattr(args, "control", None):
        return False
    return args.interactive is False or args.prompt is not None or not os.isatty(0)


def install_shim(args: argparse.Namespace) -> int:
    from workbench.agent.claude.shim import install

    try:
        target = install(args.install_shim, args.scenario)
    except OSError as exc:
        print(f"workbench mock-agent: error: cannot install the shim: {exc}", file=sys.stderr)
        return 2
    print(target)
    return 0


def run_print(args: argparse.Namespace) -> int:
    from workbench.agent.claude.main import run_print as answer

    try:
        opts = options_from(args, os.environ)
    except ClaudeUsageError as exc:
        print(exc, file=sys.stderr)
        return 1
    opts.scenario = str(args.scenario)
    cwd = args.workspace.resolve() if args.workspace is not None else None
    return answer(opts, os.environ, cwd=cwd)
