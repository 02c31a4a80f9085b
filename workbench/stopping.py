"""Serving until told to stop: the flags every long-running server command checks, and what it waits on.

A server started from a shell (`workbench serve llm`, `workbench serve rest`)
serves until Ctrl-C or SIGTERM and then shuts down in order (pending work
cancelled, sessions checked, sockets closed). Waiting on the signals as an
event, rather than letting them raise inside the event loop, is what lets its
``finally`` run with the loop still whole.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from workbench.clock import parse_speed
from workbench.timeline.prepare import Prepared, prepare_to_serve
from workbench.usage import stop_signals


def server_speed(speed: str) -> float | None:
    """The ``--speed`` of a server command (None = max), once checked.

    One check for every server (`serve llm`, `serve rest`, `acp-agent`), so a bad
    flag reads the same whichever is started; a ValueError says what is allowed.
    (``--port`` and ``--host`` are checked while the command line is read:
    :func:`workbench.usage.add_listen_arguments`.)
    """
    return parse_speed(speed)


def server_inputs(
    args: argparse.Namespace, prog: str, picked_by: str
) -> tuple[float | None, list[Prepared]] | None:
    """A scenario server's checked ``--speed`` and its prepared scenarios, or None (exit 2).

    Every reason it is None is on stderr already: a bad flag, the scenarios' diagnostics, or two
    scenarios of one name (a client picks a scenario by its name, ``picked_by`` says how, so only one
    of them could ever be served).
    """
    try:
        speed = server_speed(args.speed)
    except ValueError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return None
    prepared = prepare_to_serve(args.paths, defines=args.define, prog=prog)
    if prepared is None:
        return None
    files: dict[str, list[str]] = {}
    for scenario in (p.scenario for p in prepared if p.scenario is not None):
        files.setdefault(scenario.name, []).append(scenario.file)
    for name, named in files.items():
        if len(named) > 1:
            print(f"{prog}: error: {len(named)} scenarios are named {name!r} ({', '.join(named)}); a client picks "
                  f"a scenario by its name ({picked_by}): give each its own `name:`", file=sys.stderr)  # fmt: skip
            return None
    return speed, prepared


async def until_stopped() -> None:
    """Return once this process receives SIGINT, SIGTERM or SIGHUP (where the loop can watch signals; SIGHUP
    not under ``nohup``): a closed terminal shuts the server down in order too, rather than killing it."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, *stop_signals()):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
