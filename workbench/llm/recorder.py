"""What agents sent, written next to the run so a failure can be read afterwards.

Every request adds one line to ``llm-requests.jsonl`` (path, style, session,
tools offered, the prompt, this turn's tool results, what was answered), also
the ones nothing serves (unknown paths, bodies that are not JSON, parser errors
aside). A request whose tool definitions differ from its agent's profile is saved whole under
``agent-requests/<profile>/``: that is how a tool profile is updated when an
agent's tools change. Credentials are never written.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from workbench.names import LLM_REQUESTS_FILE

from .conversation import ChatRequest
from .reply import Reply

REDACTED_HEADERS = ("authorization", "x-api-key", "api-key", "cookie", "proxy-authorization")
LOG_FILE = LLM_REQUESTS_FILE
RESULT_CHARS = 500  # a tool result in the log is cut to this

RequestLog = dict[str, Any]
"""One line of the request log: seq, method, path, query, style, outcome, and for
parsed requests session, scenario, stream, tools and prompt."""


def summary(reply: Reply) -> str:
    """One line saying what a reply was."""
    if reply.inject is not None:
        return f"failure {reply.inject.type}"
    if reply.error is not None:
        return f"error {reply.error.status} {reply.error.type}"
    calls = ", ".join(c.name for c in reply.tool_calls)
    return f"{reply.stop_reason}: {len(reply.text)} chars" + (f", tools {calls}" if calls else "")


def redacted_headers(request: web.Request) -> dict[str, str]:
    return {k: ("<redacted>" if k.lower() in REDACTED_HEADERS else v) for k, v in request.headers.items()}


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)[:40] or "session"


class RequestRecorder:
    """Writes under ``out_dir`` (nothing without one) and shows each entry to ``listener``."""

    def __init__(self, out_dir: Path | None, listener: Callable[[RequestLog], None] | None = None) -> None:
        self.out_dir = out_dir
        self.listener = listener

    def _write(self, entry: RequestLog) -> None:
        if self.listener is not None:
            self.listener(entry)
        if self.out_dir is None:
            return
        with contextlib.suppress(OSError):
            self.out_dir.mkdir(parents=True, exist_ok=True)
            with (self.out_dir / LOG_FILE).open("a", encoding="utf-8") as f:
                # ASCII escapes: a lone surrogate or stray byte in a request cannot break the log
                f.write(json.dumps(entry) + "\n")

    def log_request(self, request: web.Request, seq: int, style: str | None, outcome: str) -> None:
        """A request that was not parsed into a conversation (unknown path, bad body, model list)."""
        self._write({"seq": seq, "method": request.method, "path": request.path,
                     "query": request.query_string, "style": style, "outcome": outcome})  # fmt: skip

    def log_raw(self, seq: int, method: str, path: str, style: str | None, outcome: str) -> None:
        """A request the HTTP parser rejected: only its first bytes said what it was."""
        self._write(
            {"seq": seq, "method": method, "path": path, "query": "", "style": style, "outcome": outcome}
        )

    def log(
        self,
        request: web.Request,
        seq: int,
        chat: ChatRequest,
        session: str | None,
        scenario: str | None,
        outcome: str,
        notes: list[str] | None = None,
    ) -> None:
        if self.out_dir is None and self.listener is None:
            return
        entry = {"seq": seq, "method": request.method, "path": request.path, "query": request.query_string,
                 "style": chat.style, "session": session, "scenario": scenario, "stream": chat.stream,
                 "tools": list(chat.tool_names), "prompt": chat.last_prompt()[:200], "outcome": outcome}  # fmt: skip
        if chat.ends_with_tool_results():  # what the agent's tools gave: the reply to write follows it
            entry["results"] = [{"id": r.call_id, "text": r.text[:RESULT_CHARS], "error": r.is_error}
                                for r in chat.trailing_tool_results()]  # fmt: skip
        if notes:  # how this reply's tools were chosen, and what could not be done as written
            entry["notes"] = list(notes)
        self._write(entry)

    def save(
        self, request: web.Request, chat: ChatRequest, profile: str, session: str, number: int
    ) -> Path | None:
        """Save a whole request (redacted headers, body); its path, or None."""
        if self.out_dir is None:
            return None
        path = self.out_dir / "agent-requests" / profile / f"{_slug(session)}-{number:03d}.json"
        record = {"method": request.method, "path": request.path, "query": request.query_string,
                  "headers": redacted_headers(request), "body": dict(chat.raw)}  # fmt: skip
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        except OSError:
            return None
        return path
