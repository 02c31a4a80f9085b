"""Server-sent events, paced at the scenario's timing.

Frames are buffered and written in batches: the first events of a stream go
out at once (time to first event), then the buffer is written every 64 KB,
before every pause and at the end, so an unpaced reply costs a few socket
writes (throughput is bounded by JSON encoding, not by per-event writes) while
a paced one still delivers each chunk at its time. Delays are scenario milliseconds divided by
the speed (``--speed 4`` is four times faster); speed ``None`` never waits.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from aiohttp import web

FLUSH_BYTES = 64 * 1024


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class Pacer:
    """Turns scenario milliseconds into real waiting, according to the speed."""

    def __init__(self, speed: float | None) -> None:
        self.speed = speed

    def seconds(self, ms: int) -> float:
        if self.speed is None or ms <= 0:
            return 0.0
        return ms / 1000.0 / self.speed

    async def wait(self, ms: int) -> None:
        seconds = self.seconds(ms)
        if seconds > 0:
            await asyncio.sleep(seconds)


async def open_stream(request: web.Request, headers: Mapping[str, str]) -> web.StreamResponse:
    """Start a `text/event-stream` response (chunked, HTTP/1.1 keep-alive)."""
    response = web.StreamResponse(
        status=200,
        headers={
            "Content-Type": "text/event-stream; charset=utf-8",
            "Cache-Control": "no-cache",
            **headers,
        },
    )
    response.enable_chunked_encoding()
    await response.prepare(request)
    return response


class SseWriter:
    """Buffers SSE frames; ``named`` adds the `event:` line (Anthropic and Responses do,
    Chat Completions does not)."""

    def __init__(self, response: web.StreamResponse, pacer: Pacer, *, named: bool = True) -> None:
        self.response = response
        self.pacer = pacer
        self.named = named
        self._buffer: list[str] = []
        self._size = 0
        self._threshold = 1  # the first event goes out at once, then in batches

    def event(self, name: str, data: Any) -> None:
        payload = data if isinstance(data, str) else dumps(data)
        frame = f"event: {name}\ndata: {payload}\n\n" if self.named else f"data: {payload}\n\n"
        self._buffer.append(frame)
        self._size += len(frame)

    async def maybe_flush(self) -> None:
        """Write the buffer if it is big enough (or holds the stream's first events)."""
        if self._size >= self._threshold:
            await self.flush()

    async def pause(self, ms: int) -> None:
        """Wait ``ms`` of scenario time; what was written so far goes out first."""
        if self.pacer.seconds(ms) > 0:
            await self.flush()
            await self.pacer.wait(ms)
        else:
            await self.maybe_flush()

    async def flush(self) -> None:
        if self._buffer:
            data = "".join(self._buffer).encode("utf-8")
            self._buffer.clear()
            self._size = 0
            self._threshold = FLUSH_BYTES
            await self.response.write(data)
            await asyncio.sleep(0)  # let other streams (and a client on this loop) run

    async def close(self) -> None:
        await self.flush()
        await self.response.write_eof()
