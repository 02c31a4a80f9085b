"""The model's side of a recorded real-agent session: the agent's requests as `llmResponse` steps.

In real-agent mode the mock LLM server writes every request the agent makes to
the run folder's request log. While a person records a session, the requests
that nothing in the scenario answered are the places where the model has to say
something: each becomes an ``llmResponse`` step with a placeholder reply, headed
by comments saying what the agent asked and which tool results it reported, so
the person writes the reply there. Requests a step of the file already answered
(``(line N)`` in the log), side requests (titles, summaries) and requests the
server refused or could not read are not the scenario's to script and are left
out. No Textual here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.names import LLM_REQUESTS_FILE

PLACEHOLDER = "TODO: what the model answers here"
_ANSWERED = re.compile(r"\(line \d+\)$")
_NOT_SCRIPTED = ("side request", "refused", "error", "failure")
COMMENT_CHARS = 100  # a prompt or tool result is cut to this in the step's comments


@dataclass(frozen=True)
class ToolResultSeen:
    call_id: str
    text: str
    is_error: bool | None = None


@dataclass(frozen=True)
class AgentRequest:
    """One request of the agent, as the request log has it."""

    seq: int
    prompt: str = ""
    tools: tuple[str, ...] = ()
    results: tuple[ToolResultSeen, ...] = ()
    outcome: str = ""
    session: str | None = None

    @classmethod
    def from_log(cls, entry: Mapping[str, Any]) -> AgentRequest:
        results = tuple(
            ToolResultSeen(str(r.get("id", "")), str(r.get("text", "")), r.get("error"))
            for r in entry.get("results") or ()
            if isinstance(r, Mapping)
        )
        session = entry.get("session")
        return cls(seq=int(entry.get("seq", 0)), prompt=str(entry.get("prompt") or ""),
                   tools=tuple(str(t) for t in entry.get("tools") or ()), results=results,
                   outcome=str(entry.get("outcome") or ""), session=None if session is None else str(session))  # fmt: skip

    @property
    def needs_reply(self) -> bool:
        """A conversation request no step of the scenario answered: the model's side to be written."""
        if self.session is None or self.outcome.startswith(_NOT_SCRIPTED):
            return False
        return _ANSWERED.search(self.outcome) is None

    def step(self) -> str:
        """An ``llmResponse`` step (unindented YAML, comments first) with a placeholder reply."""
        tools = ", ".join(self.tools[:8]) + (", …" if len(self.tools) > 8 else "")
        lines = [f"# the agent's request {self.seq}" + (f" (tools offered: {tools})" if tools else "")]
        if self.results:
            lines.append("# after the tool results it reported:")
            for result in self.results:
                status = "error" if result.is_error else "ok"
                lines.append(f"#   {result.call_id} {status}: {_clip(result.text)}")
        elif self.prompt:
            lines.append(f"# after the prompt: {_clip(self.prompt)}")
        lines += ["- llmResponse:", "    - assistant:", f"        - [100, {json.dumps(PLACEHOLDER)}]"]
        return "\n".join(lines)


def _clip(text: str) -> str:
    """One line for a YAML comment (a JSON string: newlines and control characters escaped)."""
    short = text if len(text) <= COMMENT_CHARS else text[: COMMENT_CHARS - 1] + "…"
    return json.dumps(short, ensure_ascii=False)


class RequestLogReader:
    """Reads the lines a run's request log gained since the last call (an unfinished last line waits)."""

    def __init__(self, path: Path, offset: int | None = None) -> None:
        self.path = path
        # by default what was logged before the recording started is not the recording's
        self.offset = self._size() if offset is None else offset

    def _size(self) -> int:
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def new_requests(self) -> list[AgentRequest]:
        if self._size() <= self.offset:
            return []
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return []
        complete = data[: data.rfind(b"\n") + 1]
        self.offset += len(complete)
        out: list[AgentRequest] = []
        for line in complete.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                out.append(AgentRequest.from_log(entry))
        return out


def request_log(run_dir: Path) -> Path:
    """Where the mock LLM server logs a run's requests."""
    return run_dir / LLM_REQUESTS_FILE


def reply_steps(run_dir: Path) -> list[str]:
    """Every request of a finished run that no step answered, as ``llmResponse`` steps in order."""
    return [
        r.step() for r in RequestLogReader(request_log(run_dir), offset=0).new_requests() if r.needs_reply
    ]
