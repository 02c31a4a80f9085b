"""`python -m workbench.rest.viewer BASE_URL SESSION_ID`: a terminal client that renders a session's events.

The default program under test of simulation mode when a scenario names no
``command``: it follows ``GET BASE_URL/sessions/SESSION_ID/events`` (SSE) and
prints one line per event, so the screen shows what a client of the service
would. What the user types is not echoed (the session streams it as its own
``user input (tui): ...`` event; an echo glued the keys to the next line).
Standard library only, so it starts fast. When the stream ends it says so and
waits for Ctrl-D (or exits at once with ``--exit``).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import sys
import termios
import urllib.parse
from collections.abc import Iterator
from typing import Any

MARKS = {"completed": "✔", "failed": "✘"}


def events(base_url: str, session_id: str) -> Iterator[dict[str, Any]]:
    """The session's events as they arrive (SSE `data:` lines as JSON), until the stream ends."""
    url = urllib.parse.urlsplit(f"{base_url.rstrip('/')}/sessions/{urllib.parse.quote(session_id)}/events")
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port or 80, timeout=None)
    conn.request("GET", url.path, headers={"Accept": "text/event-stream"})
    response = conn.getresponse()
    if response.status != 200:
        body = response.read().decode("utf-8", "replace")
        raise SystemExit(f"session {session_id}: HTTP {response.status}: {body}")
    data: list[str] = []
    for raw in response:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
        elif not line and data:
            yield json.loads("\n".join(data))
            data = []
    conn.close()


def render(event: dict[str, Any]) -> str:
    """One line for one event."""
    kind = event.get("type")
    if kind == "status":
        return f"● status: {event.get('status')}"
    if kind == "thought":
        return f"… {event.get('thought')}"
    if kind == "log":
        prefix = "  │ " if event.get("tool_execution_id") else ""
        level = event.get("level", "info")
        return f"{prefix}{'' if level == 'info' else level.upper() + ': '}{event.get('message')}"
    if kind == "tool_use":
        args = json.dumps(event.get("tool_args"), ensure_ascii=False)
        return f"▶ {event.get('tool_name')} {args}"
    if kind == "tool_result":
        mark = MARKS.get(str(event.get("status")), "?")
        return f"{mark} {event.get('tool_name')}: {event.get('tool_output')}"
    if kind == "file_edit":
        return f"✎ {event.get('file_path')} +{event.get('lines_added')} -{event.get('lines_removed')}"
    if kind == "diff":
        return f"± {event.get('path')}{' (truncated)' if event.get('truncated') else ''}"
    if kind == "error":
        return f"✘ error: {event.get('message')}"
    return f"· {kind}"


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        print("usage: python -m workbench.rest.viewer BASE_URL SESSION_ID [--exit]", file=sys.stderr)
        return 2
    base_url, session_id = args
    with _no_echo():
        try:
            return _follow(base_url, session_id, wait="--exit" not in argv)
        except KeyboardInterrupt:  # Ctrl-C ends a client, as it ends any terminal program: no traceback
            print("(interrupted)", flush=True)
            return 130


def _follow(base_url: str, session_id: str, *, wait: bool) -> int:
    print(f"session {session_id}", flush=True)
    try:
        for event in events(base_url, session_id):
            print(render(event), flush=True)
    except (OSError, http.client.HTTPException) as exc:
        print(f"connection lost: {exc}", flush=True)
        return 1
    print("(end of stream)", flush=True)
    if wait:
        sys.stdin.read()  # stay on screen until Ctrl-D, like a client window
    return 0


@contextlib.contextmanager
def _no_echo() -> Iterator[None]:
    """Keys typed into the viewer's terminal are not echoed (Ctrl-D still ends the line discipline's read);
    the terminal's mode is given back on the way out (a viewer run in your own shell leaves it as it was)."""
    if not sys.stdin.isatty():
        yield
        return
    saved = termios.tcgetattr(sys.stdin)
    quiet = termios.tcgetattr(sys.stdin)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(sys.stdin, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(sys.stdin, termios.TCSANOW, saved)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
