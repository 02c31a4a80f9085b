"""`workbench acp-agent SCENARIO`: the scenario as an ACP agent on stdin/stdout.

An ACP client (an editor, a terminal UI, a test) starts this as its agent. The
SDK speaks the protocol; this module only guards the stream in front of it:
a line that is not JSON, or JSON that is not a JSON-RPC message, gets the
JSON-RPC error the specification prescribes (-32700 / -32600) and a one-line
note on stderr, where the SDK alone would drop it silently. Logging goes to
stderr as one line per message, never a traceback.

At the end (the client closes stdin) every mismatch between what the client
did and what the scenario says is printed as ``file:line: message``, as are the
prompts the client never sent; the exit code is 1 if there was any, else 0.
SIGTERM or SIGHUP ends the agent (exit 128 + the signal) once the commands its
tools were running have ended.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import stat
import sys
from typing import Any

from workbench.usage import EXIT_FAILED, EXIT_INVALID, EXIT_OK, add_define, path_arg

PROG = "workbench acp-agent"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenario", type=path_arg, help="the scenario file to play as an ACP agent")
    p.add_argument(
        "--speed",
        default="1",
        help="1 = the scenario's own pace (default), 4 = four times faster, max = no waiting",
    )
    add_define(p)


class _OneLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{PROG}: {record.getMessage()}"


def _quiet_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)


def run(args: argparse.Namespace) -> int:
    from workbench.scenario.diagnostics import ScenarioError
    from workbench.scenario.loader import load_scenario
    from workbench.stopping import server_speed
    from workbench.timeline import compile_schedule

    try:
        speed = server_speed(args.speed)
    except ValueError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    try:
        schedule = compile_schedule(load_scenario(args.scenario, defines=args.define))
    except ScenarioError as exc:
        for d in exc.diagnostics:
            print(d, file=sys.stderr)
        return EXIT_INVALID
    _quiet_logging()
    from .agent import ScenarioAgent

    agent = ScenarioAgent(
        schedule, speed=speed, report=lambda f: print(f"{PROG}: {f}", file=sys.stderr, flush=True)
    )
    try:
        ended_by = asyncio.run(_serve_until_signalled(agent))
    except KeyboardInterrupt:
        return 130
    if ended_by is not None:  # the client ended this agent: what it did not do is no finding
        print(f"{PROG}: ended by {ended_by.name}", file=sys.stderr)
        return 128 + ended_by
    unplayed = agent.unplayed()
    for mismatch in unplayed:
        print(f"{PROG}: {mismatch}", file=sys.stderr)
    return EXIT_FAILED if agent.failures or unplayed else EXIT_OK


async def _serve_until_signalled(agent: Any) -> signal.Signals | None:
    """Serve until the client closes stdin (None), or SIGTERM or SIGHUP ends this agent (that signal):
    an editor ends its agent with SIGTERM, a closed terminal hangs it up, and either way the commands
    its tools were running end first (:func:`serve_stdio`'s cleanup), never left behind orphaned."""
    loop = asyncio.get_running_loop()
    serving = asyncio.ensure_future(serve_stdio(agent))
    ended_by: list[signal.Signals] = []

    def end(sig: signal.Signals) -> None:
        ended_by.append(sig)
        serving.cancel()

    for sig in (signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, end, sig)
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await serving
    finally:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(sig)
    return ended_by[0] if ended_by else None


async def serve_stdio(agent: Any) -> None:
    """Serve ``agent`` on this process's stdin/stdout until the client closes stdin."""
    from acp import run_agent
    from acp.stdio import stdio_streams

    from .guard import MAX_LINE_BYTES, guarded

    if all(_pollable(fd) for fd in (0, 1)):
        raw_in, writer = await stdio_streams(limit=MAX_LINE_BYTES)
    else:  # a file or /dev/null (`< messages.jsonl`): the event loop cannot watch it
        # The SDK's thread-fed streams (its Windows path) work for any file; it has no public name for them
        # in acp 0.12, and tests/acp feed a file to stdin, so an SDK that drops them fails there.
        from acp.stdio import _windows_stdio_streams

        raw_in, writer = await _windows_stdio_streams(asyncio.get_running_loop(), limit=MAX_LINE_BYTES)
    checked, guard = guarded(
        raw_in, writer, lambda text: print(f"{PROG}: {text}", file=sys.stderr, flush=True)
    )
    try:
        await run_agent(agent, writer, checked)
    finally:
        guard.cancel()
        end_children()  # a command a tool was running when the client left: its thread can then return
        for session in getattr(agent, "_sessions", {}).values():
            session.shells.close()


def _pollable(fd: int) -> bool:
    """Whether the event loop can watch ``fd``: a pipe, a socket or a terminal (not a file, not /dev/null)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)


def end_children() -> None:
    """SIGKILL the process group of every descendant of this process (tools run each command in its own)."""
    from workbench.terminal import descendants

    me = os.getpid()
    # a fresh token matches nobody: what is found is what descends from this process
    for pid in descendants.find(descendants.new_token(), me, since=descendants.start_time(me)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)  # a pid that leads no group is no group: nothing happens
