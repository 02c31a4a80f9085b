"""A real simulation server on 127.0.0.1 for a test: scenarios written to the test's folder, played at a speed."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import jsonschema
from httpx_sse import aconnect_sse

from tests.processes import signals_at_their_defaults
from workbench.clock import VirtualClock
from workbench.rest.player import new_session, play, session_id_for
from workbench.rest.server import RestServer
from workbench.timeline import Schedule
from workbench.timeline.prepare import prepare

SCHEMA = json.loads((Path(__file__).parent / "event_schema.json").read_text(encoding="utf-8"))

EVERYTHING = """\
name: everything
initialPrompt: Fix the failing test
timeline:
  - llmResponse:
      - think:
          - [100, "Looking at the code"]
      - assistant:
          - [100, "I will run the tests"]
  - agentToolUse:
      toolName: runCmd
      args: {cmd: "make test"}
      progress:
        - [100, "compiling"]
      toolExecution:
        events:
          - {type: stdout, timeMs: 50, content: "ok 1\\nok 2"}
          - {type: stderr, timeMs: 60, content: "warning: slow"}
          - {type: completion, timeMs: 100, exitCode: 1}
      result: "1 failed"
      status: error
  - agentEdits:
      path: src/a.py
      linesAdded: 2
      linesRemoved: 1
      oldText: "a\\n"
      newText: "b\\nc\\n"
      description: fix the bug
  - log: checkpoint
  - type: sse
    event: {type: log, level: debug, message: raw event, tool_execution_id: null}
  - status: stopping
  - merge: true
  - complete: true
"""


def schedule_of(tmp_path: Path, text: str, name: str = "s.yaml") -> Schedule:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    prepared = prepare(path)
    assert prepared.schedule is not None, prepared.diagnostics
    return prepared.schedule


def validate(event: Mapping[str, Any]) -> None:
    jsonschema.validate(dict(event), SCHEMA)


@asynccontextmanager
async def served(
    schedules: list[Schedule], *, speed: float | None = None, keepalive_s: float = 15.0, start: bool = True
) -> AsyncIterator[tuple[RestServer, str, list[asyncio.Task[None]]]]:
    """A server with one session per schedule, each played at ``speed`` (not at all unless ``start``)."""
    server = RestServer(keepalive_s=keepalive_s)
    sessions = []
    for schedule in schedules:
        session = new_session(
            session_id_for(schedule.scenario.name, server.sessions), schedule.scenario, schedule
        )
        sessions.append((server.add(session), schedule))
    url = await server.start()
    tasks = [asyncio.create_task(play(s, sch, VirtualClock(speed))) for s, sch in sessions] if start else []
    try:
        yield server, url, tasks
    finally:
        for task in tasks:
            task.cancel()
        await server.stop()


async def follow(url: str, session: str, params: str = "", headers: Mapping[str, str] | None = None,
                 limit: int | None = None) -> list[tuple[str, str, dict[str, Any]]]:  # fmt: skip
    """(id, event name, data) of every SSE frame until the stream ends (or ``limit`` frames)."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    async with (
        httpx.AsyncClient(timeout=30) as client,
        aconnect_sse(
            client, "GET", f"{url}/sessions/{session}/events{params}", headers=dict(headers or {})
        ) as source,
    ):
        assert source.response.headers["content-type"].startswith("text/event-stream")
        async for sse in source.aiter_sse():
            out.append((sse.id, sse.event, json.loads(sse.data)))
            if limit is not None and len(out) >= limit:
                break
    return out


@contextmanager
def serve_rest(scenario: Path, speed: str, stop: int = signal.SIGTERM) -> Iterator[str]:
    """``workbench serve rest SCENARIO --speed SPEED`` as a process: its API's base URL; on leaving,
    ``stop`` (SIGTERM; SIGHUP when its terminal closes), which it must answer with a clean stop (exit 0)."""
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "serve", "rest", str(scenario), "--speed", speed],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=signals_at_their_defaults)  # fmt: skip
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.send_signal(stop)
        assert proc.wait(timeout=30) == 0
