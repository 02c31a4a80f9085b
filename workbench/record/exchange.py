"""One request of the agent and the upstream's answer, as the recording proxy saw them.

Times are seconds since the recording started (``time.monotonic`` based), so a
scenario can keep the session's real timing: when each request was sent, when
each piece of the answer arrived. Headers are kept redacted; bodies are kept
whole in memory and only written after :mod:`.redact` has seen them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Exchange:
    seq: int
    method: str
    path: str
    query: str
    style: str | None  # the API style the path belongs to (None: a path no style serves, such as `HEAD /`)
    kind: str | None  # turn | count | models | model (the route's kind), None for other paths
    params: dict[str, str]  # what the path said (Gemini's model and method)
    headers: dict[str, str]  # redacted, names in lower case
    body: bytes
    started: float
    status: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)  # redacted, names in lower case
    chunks: list[tuple[float, bytes]] = field(default_factory=list)  # (arrival time, bytes) per upstream read
    ended: float | None = None
    error: str | None = None  # `reset`, `cut` (a broken stream), `unreachable: ...` (a down upstream)

    @property
    def is_turn(self) -> bool:
        return self.kind == "turn"

    @property
    def response_body(self) -> bytes:
        return b"".join(data for _, data in self.chunks)

    @property
    def first_byte(self) -> float | None:
        return self.chunks[0][0] if self.chunks else None

    def json_body(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None
