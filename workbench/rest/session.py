"""One simulated session: its events so far, its subscribers, what it changed.

Every event is stored (for late subscribers and listings) and handed to each
live subscriber's queue in the same synchronous call, so a subscriber that
joins takes the history and its queue in one step of the event loop: it gets
everything once, in order, whatever the timing.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .events import FullDiff, Played, PtyFrame, initial_events, status_of
from .received import unread_bytes

READ_POLL_S = 0.005

RECENT = 3
"""How many of the last events a session object shows (``recent_events``)."""

ACTIVE = ("queued", "provisioning", "running", "pausing", "paused", "resuming", "stopping")


@dataclass(eq=False)
class Subscriber:
    queue: asyncio.Queue[tuple[int, dict[str, Any]] | None] = field(default_factory=asyncio.Queue)
    sent: int = 0
    """Sequence number of the last event written to the client."""
    transport: asyncio.BaseTransport | None = None
    peer: tuple[str, int] | None = None
    """The client's address, to see whether it has read what was written (see workbench.rest.received)."""

    def caught_up(self) -> bool:
        """Everything written has left our buffer and the client has read it."""
        if isinstance(self.transport, asyncio.WriteTransport) and self.transport.get_write_buffer_size():
            return False
        return self.peer is None or unread_bytes(self.peer) == 0


@dataclass(eq=False)
class RestSession:
    id: str
    scenario: str
    prompt: str
    width: int
    height: int
    has_pty: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)
    diffs: list[FullDiff] = field(default_factory=list)
    pty: list[PtyFrame] = field(default_factory=list)
    subscribers: set[Subscriber] = field(default_factory=set)
    pty_subscribers: set[Subscriber] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    lines_added: int = 0
    lines_removed: int = 0
    finished: bool = False
    polled: bool = False
    """A client has listed the events as JSON: it polls, and may never follow the stream."""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        for event in initial_events():
            self.publish(event)

    # ------------------------------------------------------------------ publishing

    def play(self, played: Played) -> None:
        """Publish what one step produced."""
        self.diffs += played.diffs
        for event in played.events:
            self.publish(event)
        for frame in played.pty:
            self.publish_pty(frame)

    def publish(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        if event.get("type") == "file_edit":
            self.files.add(str(event.get("file_path")))
            self.lines_added += int(event.get("lines_added") or 0)
            self.lines_removed += int(event.get("lines_removed") or 0)
        seq = len(self.events)
        for sub in self.subscribers:
            sub.queue.put_nowait((seq, event))
        self._wake()

    def publish_pty(self, frame: PtyFrame) -> None:
        self.pty.append(frame)
        record = pty_record(frame)
        for sub in self.pty_subscribers:
            sub.queue.put_nowait((len(self.pty), record))
        self._wake()

    def close(self) -> None:
        """No more events: live streams end after what they have been sent."""
        self.finished = True
        for sub in (*self.subscribers, *self.pty_subscribers):
            sub.queue.put_nowait(None)
        self._wake()

    # ------------------------------------------------------------------ subscribing

    def subscribe(self, after: int = 0) -> tuple[list[tuple[int, dict[str, Any]]], Subscriber]:
        """The history after sequence number ``after`` and a queue for what comes next (no gap, no repeat)."""
        sub = Subscriber()
        history = [(i + 1, e) for i, e in enumerate(self.events) if i + 1 > after]
        if self.finished:
            sub.queue.put_nowait(None)
        else:
            self.subscribers.add(sub)
        return history, sub

    def subscribe_pty(self) -> tuple[list[tuple[int, dict[str, Any]]], Subscriber]:
        sub = Subscriber()
        resize = {"type": "terminal_resize", "cols": self.width, "rows": self.height, "timestamp": 0}
        history = [(0, resize), *((i + 1, pty_record(f)) for i, f in enumerate(self.pty))]
        if self.finished:
            sub.queue.put_nowait(None)
        else:
            self.pty_subscribers.add(sub)
        return history, sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self.subscribers.discard(sub)
        self.pty_subscribers.discard(sub)
        self._wake()

    def delivered(self, sub: Subscriber, seq: int) -> None:
        sub.sent = seq
        self._wake()

    async def wait_delivered(self, timeout: float) -> bool:
        """Until every live subscriber has been sent every event so far, and has read it; False on timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if not await self._until(lambda: all(s.sent >= len(self.events) for s in self.subscribers), deadline):
            return False
        while not all(sub.caught_up() for sub in list(self.subscribers)):
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(READ_POLL_S)
        return True

    def listed(self) -> None:
        """A client read the events as a JSON listing: it polls rather than follows."""
        self.polled = True
        self._wake()

    async def wait_subscribed(self, timeout: float) -> bool:
        """Until somebody follows the session's events, or polls them; False on timeout."""
        loop = asyncio.get_running_loop()
        return await self._until(lambda: bool(self.subscribers) or self.polled, loop.time() + timeout)

    async def _until(self, done: Callable[[], bool], deadline: float) -> bool:
        """Until ``done()`` holds, checked whenever the session changes; False once the loop's ``deadline`` passes."""
        loop = asyncio.get_running_loop()
        while not done():
            left = deadline - loop.time()
            if left <= 0:
                return False
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                return False
        return True

    def _wake(self) -> None:
        self._changed.set()

    # ------------------------------------------------------------------ views

    @property
    def status(self) -> str:
        return status_of(self.events)

    def to_json(self, base: str = "/api/v1") -> dict[str, Any]:
        status = self.status
        return {
            "id": self.id,
            "status": status,
            "scenario": self.scenario,
            "prompt": self.prompt,
            "createdAt": self.events[0]["ts"],
            "recent_events": self.events[-RECENT:] if status in ACTIVE else [],
            "changes": {"files_changed": len(self.files), "lines_added": self.lines_added,
                        "lines_removed": self.lines_removed},
            "links": {"self": f"{base}/sessions/{self.id}", "events": f"{base}/sessions/{self.id}/events",
                      **({"pty": f"{base}/sessions/{self.id}/pty"} if self.has_pty else {})},
        }  # fmt: skip


def pty_record(frame: PtyFrame) -> dict[str, Any]:
    return {"type": "terminal", "encoding": "base64", "data": base64.b64encode(frame.data).decode("ascii"),
            "timestamp": frame.at_ms}  # fmt: skip
