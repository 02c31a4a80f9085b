"""Playing a scenario as a session on its own virtual clock: what `workbench serve rest` does per session.

In `workbench run --mode simulation` the run's own loop plays the steps (so
screenshots and assertions happen between them); here nothing else needs them,
so each session walks its schedule at the server's speed and then stays, with
its history, for late clients.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Container

from workbench.clock import VirtualClock
from workbench.scenario import model as m
from workbench.timeline import Schedule, StepKind

from .events import EventMaker, status_event
from .session import ACTIVE, RestSession


def new_session(session_id: str, scenario: m.Scenario, schedule: Schedule) -> RestSession:
    has_pty = any(
        s.kind is StepKind.TOOL_OUTPUT and s.output.type in ("stdout", "stderr") for s in schedule.steps
    )
    return RestSession(session_id, scenario.name, scenario.effective_initial_prompt or "",
                       scenario.terminal.width, scenario.terminal.height, has_pty=has_pty)  # fmt: skip


def session_id_for(name: str, taken: Container[str]) -> str:
    """A readable id from a scenario name, unique among ``taken`` (`-2`, `-3`... when needed)."""
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "session"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def no_timeline(scenario: m.Scenario) -> str | None:
    """Why ``scenario`` has no timeline to play as a session (Claudeless rules, an SCP folder), or None."""
    if scenario.format == "claudeless":
        return ("Claudeless rules answer a real agent, so there is no timeline to play as a session: "
                "run them with --mode real-agent")  # fmt: skip
    if scenario.extra.get("scp"):
        return "an SCP folder is a script for an ACP agent, so there is no timeline to play as a session"
    return None


async def play(session: RestSession, schedule: Schedule, clock: VirtualClock) -> None:
    """Every step of ``schedule`` at its time; then the session is finished (its streams end after history).

    A timeline that ends without `complete` (or a failure) ends with ``status`` ``completed``, as Agent
    Harbor's playback does: the session was listed as `running` for ever, and a client that waits for it
    to end waited for ever too."""
    maker = EventMaker(session.id)
    for step in schedule.steps:
        await clock.gate(step.index)
        await clock.sleep_until(step.at_ms)
        session.play(maker.step(step))
        if not clock.speed:
            await asyncio.sleep(0)  # let subscribers run between steps even at max speed
    if session.status in ACTIVE:
        await clock.sleep_until(schedule.duration_ms)
        session.publish(status_event("completed", schedule.duration_ms))
    session.close()


__all__ = ["new_session", "no_timeline", "play", "session_id_for"]
