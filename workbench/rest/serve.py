"""`workbench serve rest SCENARIO...`: the simulation REST/SSE server on its own.

Each scenario becomes a session (its id is the scenario's name) that plays its
timeline at ``--speed`` (default 1, the scenario's own pacing: clients see
events arrive as they would from a live agent); ``POST /api/v1/sessions``
with ``{"scenario": NAME}`` (or ``{}`` when one scenario is loaded) starts
another playback. Prints the API's base URL on stdout, then serves until
Ctrl-C or SIGTERM. Exit codes: 0 after a clean stop; 2 invalid input (a
scenario, with ``file:line:col`` diagnostics; a flag; a port that cannot be
bound).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Mapping
from typing import Any

from workbench.clock import VirtualClock
from workbench.stopping import server_inputs, until_stopped
from workbench.timeline import Schedule
from workbench.usage import EXIT_INVALID, EXIT_OK, add_define, add_listen_arguments

PROG = "workbench serve rest"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `workbench serve rest` (the CLI builds its parser from these)."""
    add_listen_arguments(p)
    p.add_argument(
        "--speed", default="1", help="1 = scenario timing (default), 4 = four times faster, max = no waiting"
    )
    add_define(p)


def run(args: argparse.Namespace) -> int:
    inputs = server_inputs(args, PROG, 'POST /sessions {"scenario": NAME}')
    if inputs is None:
        return EXIT_INVALID
    speed, prepared = inputs
    schedules = [p.schedule for p in prepared if p.schedule is not None]
    from .player import no_timeline

    for schedule in schedules:
        if (why := no_timeline(schedule.scenario)) is not None:
            print(f"{PROG}: error: {schedule.scenario.file}: {why}", file=sys.stderr)
            return EXIT_INVALID
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(_serve(schedules, args.host, args.port, speed))
    return EXIT_OK


async def _serve(schedules: list[Schedule], host: str, port: int, speed: float | None) -> int:
    from .player import new_session, play, session_id_for
    from .server import RestServer

    tasks: set[asyncio.Task[None]] = set()
    by_name = {s.scenario.name: s for s in schedules}

    def start(schedule: Schedule) -> Any:
        session = new_session(
            session_id_for(schedule.scenario.name, server.sessions), schedule.scenario, schedule
        )
        server.add(session)
        task = asyncio.create_task(play(session, schedule, VirtualClock(speed)))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        return session

    def create(body: Mapping[str, Any]) -> Any:
        name = body.get("scenario")
        if name is None:
            if len(by_name) != 1:
                raise ValueError(
                    "several scenarios are loaded: name one with `scenario`: " + ", ".join(by_name)
                )
            (name,) = by_name
        if name not in by_name:
            raise LookupError(f"no scenario {name!r}; scenarios: {', '.join(sorted(by_name))}")
        session = start(by_name[name])
        return session

    server = RestServer(host=host, port=port, creator=create)
    try:
        url = await server.start()
    except OSError as exc:
        print(f"{PROG}: error: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INVALID
    for schedule in schedules:
        start(schedule)
    print(url, flush=True)
    try:
        await until_stopped()
    finally:
        for task in tasks:
            task.cancel()
        await server.stop()
    return EXIT_OK
