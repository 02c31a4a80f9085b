"""An example client of an agent service: a one-screen dashboard of a session, redrawn on every event.

It is the kind of program simulation mode tests (see ../simulation/): it
follows the session's events over SSE and shows the status, the tool calls and
the files changed. Run it against `workbench serve rest SCENARIO`:

    python3 session_dashboard.py http://127.0.0.1:PORT/api/v1 SESSION_ID

Standard library only. The screen is redrawn from the top on each event, so a
screenshot shows the dashboard as a person would see it.
"""

from __future__ import annotations

import http.client
import json
import sys
import urllib.parse
from collections.abc import Iterator
from typing import Any

ICONS = {"started": "…", "completed": "✔", "failed": "✘"}


def follow(base_url: str, session_id: str) -> Iterator[dict[str, Any]]:
    url = urllib.parse.urlsplit(f"{base_url}/sessions/{session_id}/events")
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port or 80)
    conn.request("GET", url.path, headers={"Accept": "text/event-stream"})
    response = conn.getresponse()
    data = ""
    for raw in response:
        line = raw.decode().rstrip("\r\n")
        if line.startswith("data:"):
            data += line[5:].strip()
        elif not line and data:
            yield json.loads(data)
            data = ""


class Dashboard:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.status = "connecting"
        self.tools: dict[str, list[str]] = {}  # execution id -> [name, state, last line]
        self.files: dict[str, tuple[int, int]] = {}
        self.message = ""

    def apply(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "status":
            self.status = event["status"]
        elif kind == "tool_use":
            self.tools[event["tool_execution_id"]] = [event["tool_name"], "started", ""]
        elif kind == "tool_result":
            self.tools[event["tool_execution_id"]][1:] = [event["status"], event["tool_output"]]
        elif kind == "log" and event.get("tool_execution_id") in self.tools:
            self.tools[event["tool_execution_id"]][2] = event["message"]
        elif kind == "log":
            self.message = event["message"]
        elif kind == "file_edit":
            added, removed = self.files.get(event["file_path"], (0, 0))
            self.files[event["file_path"]] = (added + event["lines_added"], removed + event["lines_removed"])
        elif kind == "error":
            self.message = "error: " + event["message"]

    def draw(self) -> None:
        out = [f"Session {self.session_id}   [{self.status.upper()}]", "", "Tools"]
        for name, state, last in self.tools.values():
            out.append(f"  {ICONS.get(state, '?')} {name:<12} {last}")
        out += ["", f"Files changed: {len(self.files)}"]
        for path, (added, removed) in sorted(self.files.items()):
            out.append(f"  {path}  +{added} -{removed}")
        out += ["", f"Agent: {self.message}"]
        sys.stdout.write("\x1b[H\x1b[2J" + "\r\n".join(out))  # from the top of a cleared screen
        sys.stdout.flush()


def main() -> int:
    base_url, session_id = sys.argv[1], sys.argv[2]
    board = Dashboard(session_id)
    board.draw()
    for event in follow(base_url, session_id):
        board.apply(event)
        board.draw()
    sys.stdin.read()  # keep the last screen until the terminal closes
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
