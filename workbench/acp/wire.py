"""Every JSON-RPC message of an ACP conversation, one JSON object a line (``acp.jsonl``).

A stream observer of the SDK connection (``observers=[recorder]``). Each line is
``{"seq", "t_ms", "dir": "client->agent" | "agent->client", "message"}``; ``t_ms``
is wall time since the recorder started, or since the run did when it is given (``start``:
the trace's ``wall_ms`` clock, so each message sits beside the step it belongs to). Requests of the two sides are numbered
independently (both start at 0), so a request and its response are paired by
(direction, id): a response travels the opposite way of its request.

The recorder also keeps the last messages in memory, so a timeout can print
what was said just before everything stopped.
"""

from __future__ import annotations

import json
import time
from collections import deque
from pathlib import Path
from typing import IO, Any

from acp.connection import StreamDirection, StreamEvent

from workbench.names import ACP_MESSAGES_FILE

WIRE_FILE = ACP_MESSAGES_FILE


class WireRecorder:
    """Observer seen from one side: ``side`` is who owns the connection (``client`` or ``agent``)."""

    def __init__(
        self, path: Path | None = None, *, side: str = "client", keep: int = 20, start: float | None = None
    ) -> None:
        self.side = side
        self.other = "agent" if side == "client" else "client"
        self.count = 0
        self.last: deque[dict[str, Any]] = deque(maxlen=keep)
        self._start = time.monotonic() if start is None else start  # a run's start: its trace's clock
        self._file: IO[str] | None = path.open("w", encoding="utf-8") if path is not None else None

    def __call__(self, event: StreamEvent) -> None:
        outgoing = event.direction == StreamDirection.OUTGOING
        record = {"seq": self.count, "t_ms": int((time.monotonic() - self._start) * 1000),
                  "dir": f"{self.side}->{self.other}" if outgoing else f"{self.other}->{self.side}",
                  "message": event.message}  # fmt: skip
        self.count += 1
        self.last.append(record)
        if self._file is not None:
            self._file.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            self._file.flush()

    def tail(self, n: int = 10) -> str:
        """The last ``n`` messages, one a line, shortened: for a timeout's message."""
        lines = []
        for record in list(self.last)[-n:]:
            text = json.dumps(record["message"], ensure_ascii=False, default=str)
            lines.append(f"  {record['dir']}: {text[:300]}")
        return "\n".join(lines) if lines else "  (no message was exchanged)"

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
