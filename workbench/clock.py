"""The virtual clock every run is paced by: speed, pause, step, run-to.

Scenario time is virtual milliseconds. The engine asks the clock to
``sleep_until`` each step's time and passes a ``gate`` before each step. At
``speed`` 1 a virtual millisecond is a real one, at 4 it is a quarter, and at
``max`` (``None``) the clock never waits. ``pause``, ``step`` and ``run_to``
hold the engine at a gate; the app's scrubber and debugger-like controls use
them, and listeners hear about every change. Changing the speed takes effect
during a sleep that is already under way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

Listener = Callable[["ClockState"], None]


def parse_speed(text: str) -> float | None:
    """``max`` -> None (no waiting); a positive number -> that factor."""
    if text.strip().lower() == "max":
        return None
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise ValueError(
            f"invalid speed {text!r}: use a positive number (1 = real time, 4 = 4x faster) or `max`"
        )
    return value


@dataclass(frozen=True)
class ClockState:
    now_ms: int
    speed: float | None
    paused: bool
    step: int  # the index of the gate the engine is at or has passed last


class VirtualClock:
    def __init__(self, speed: float | None = None) -> None:
        self._speed = speed
        self._now_ms = 0
        self._paused = False
        self._step = -1
        self._pass_one = False
        self._stop_at: int | None = None
        self._changed = asyncio.Event()
        self._listeners: list[Listener] = []

    # ------------------------------------------------------------------ state

    @property
    def speed(self) -> float | None:
        return self._speed

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def now_ms(self) -> int:
        return self._now_ms

    @property
    def state(self) -> ClockState:
        return ClockState(self._now_ms, self._speed, self._paused, self._step)

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def _notify(self) -> None:
        self._changed.set()
        state = self.state
        for listener in list(self._listeners):
            listener(state)

    # ------------------------------------------------------------------ controls

    def pause(self) -> None:
        self._paused = True
        self._notify()

    def resume(self) -> None:
        self._paused = False
        self._stop_at = None
        self._notify()

    def step(self) -> None:
        """Let exactly one step through, then hold at the next gate."""
        self._pass_one = True
        self._paused = True
        self._notify()

    def run_to(self, index: int) -> None:
        """Run until the gate of step ``index`` and hold there."""
        self._stop_at = index
        self._paused = False
        self._notify()

    def set_speed(self, speed: float | None) -> None:
        self._speed = speed
        self._notify()

    # ------------------------------------------------------------------ used by the engine

    async def gate(self, index: int) -> None:
        """Awaited before step ``index``: returns when the step may run."""
        if self._stop_at is not None and index >= self._stop_at:
            self._stop_at = None
            self._paused = True
        self._step = index
        self._notify()
        while self._paused:
            if self._pass_one:
                self._pass_one = False
                return
            self._changed.clear()
            await self._changed.wait()

    async def sleep_until(self, ms: int) -> None:
        """Wait (in real time, scaled by the speed) until virtual time ``ms``; never goes backwards."""
        loop = asyncio.get_running_loop()
        while ms > self._now_ms:
            if self._speed is None:
                self._now_ms = ms
                break
            speed = self._speed
            started, start_ms = loop.time(), self._now_ms
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), (ms - start_ms) / 1000 / speed)
            except TimeoutError:
                self._now_ms = ms
                break
            # a control changed (speed, pause): account for the time that passed, then go on
            self._now_ms = min(ms, start_ms + int((loop.time() - started) * 1000 * speed))
            while self._paused and not self._pass_one:
                self._changed.clear()
                await self._changed.wait()
        self._notify()
