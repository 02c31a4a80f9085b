"""The virtual clock every run is paced by: speed, pause, step, run-to.

Scenario time is virtual milliseconds. The engine passes a ``gate`` before each
step and then asks the clock to ``sleep_until`` the step's time. At ``speed`` 1 a
virtual millisecond is a real one, at 4 it is a quarter, and at ``max``
(``None``) the clock never waits (it does not even yield to the loop), which is
why a scenario with minutes of scripted time runs in well under a second.
Screens are compared only once the terminal has settled, so the speed never
changes what a run sees.

The controls are those of a debugger, for the app's scrubber:

* ``pause()`` holds the engine: at the next gate, or inside a sleep that is
  under way (virtual time stops advancing);
* ``resume()`` lets it run freely again;
* ``step()`` lets exactly one step run and holds at the gate after it. Paused at
  a gate, that is the next step; in the middle of a step (or while running), it
  is the step under way: it finishes and the engine holds at the next gate.
  Steps asked for faster than they run add up (F8 pressed three times is three
  steps), until ``resume()`` or ``run_to()``;
* ``run_to(i)`` runs until the gate of step ``i`` and holds there (at once if
  the engine is already at or past it);
* ``set_speed()`` takes effect during a sleep that is already under way: the
  remaining virtual time is re-timed at the new speed.

Every change is reported to listeners as a :class:`ClockState`. Everything is
plain asyncio on the engine's loop; nothing here blocks or uses threads.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

from workbench.records import frozen

Listener = Callable[["ClockState"], None]


# The speeds a run can be given. Below the slowest, one scripted second takes minutes and a scenario only
# waits for its timeout (at 1e-300 for ever); above the fastest, a scripted millisecond is under a
# microsecond, which `max` (no waiting) already is, and the clock's arithmetic leaves floats (1e308 * 1000).
SLOWEST_SPEED = 0.01
FASTEST_SPEED = 1000.0


def parse_speed(text: str) -> float | None:
    """``max`` -> None (no waiting); a number from 0.01 to 1000 -> that factor; anything else is a ValueError."""
    if text.strip().lower() == "max":
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not SLOWEST_SPEED <= value <= FASTEST_SPEED:  # nan too
        raise ValueError(
            f"invalid speed {text!r}: use a number from {SLOWEST_SPEED:g} to {FASTEST_SPEED:g} "
            "(1 = real time, 4 = 4x faster, 0.5 = half speed) or `max` (no waiting)"
        )
    return value


@frozen
class ClockState:
    """What an observer sees: virtual time, speed (None = max), paused, and the last gate reached."""

    now_ms: int
    speed: float | None
    paused: bool
    step: int  # the index of the gate the engine is at or has passed last; -1 before the first


class VirtualClock:
    """Virtual time plus the pause/step/run-to gates; see the module docstring for the semantics."""

    def __init__(self, speed: float | None = None) -> None:
        self._speed = speed
        self._now_ms = 0
        self._paused = False
        self._step = -1
        self._in_step = False  # between passing a gate and reaching the next one
        self._steps_owed = 0  # step(): how many more gates may each let one step through while paused
        self._finish = False  # the step under way may finish although paused (one step() is it)
        self._stop_at: int | None = None
        self._changed: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listeners: list[Listener] = []
        self._sleeping: tuple[float, int, int, float] | None = None  # a wait: (loop time, from, to, speed)

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

    def reading_ms(self) -> int:
        """Virtual time as a watch reads it now: ``now_ms`` moves only when a wait ends, this also counts the part
        of a wait under way that has passed (what a status line shows during a long ``advanceMs``)."""
        if self._sleeping is None or self._loop is None:
            return self._now_ms
        started, start_ms, end_ms, speed = self._sleeping
        return min(end_ms, start_ms + int((self._loop.time() - started) * 1000 * speed))

    @property
    def step_index(self) -> int:
        return self._step

    @property
    def state(self) -> ClockState:
        return ClockState(self._now_ms, self._speed, self._paused, self._step)

    def add_listener(self, listener: Listener) -> None:
        """``listener(state)`` is called after every change (controls, gates, time)."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed.set()
        state = self.state
        for listener in list(self._listeners):
            listener(state)

    def _event(self) -> asyncio.Event:
        """The wake-up event of the running loop (a clock may outlive one ``asyncio.run``)."""
        loop = asyncio.get_running_loop()
        if self._changed is None or self._loop is not loop:
            self._changed, self._loop = asyncio.Event(), loop
        return self._changed

    async def _wait_change(self, timeout: float | None = None) -> bool:
        """Wait for any control change; False when ``timeout`` seconds passed first."""
        event = self._event()
        event.clear()
        if timeout is None:
            await event.wait()
            return True
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            return False
        return True

    # ------------------------------------------------------------------ controls

    def pause(self) -> None:
        self._paused = True
        self._notify()

    def resume(self) -> None:
        self._paused = False
        self._stop_at = None
        self._steps_owed = 0
        self._finish = False
        self._notify()

    def step(self) -> None:
        """Let exactly one step run, then hold at the gate after it."""
        self._stop_at = None
        if self._in_step and not self._finish:
            self._finish = True  # the step under way is the one
        else:
            self._steps_owed += 1  # at a gate (or before the first), or after the one under way: the next
        self._paused = True
        self._notify()

    def run_to(self, index: int) -> None:
        """Run until the gate of step ``index`` and hold there."""
        self._stop_at = index
        self._paused = False
        self._steps_owed = 0
        self._finish = False
        self._notify()

    def set_speed(self, speed: float | None) -> None:
        if speed is not None and not (speed > 0 and math.isfinite(speed)):
            raise ValueError(f"invalid speed {speed!r}: a positive number or None (max)")
        self._speed = speed
        self._notify()

    # ------------------------------------------------------------------ used by the engine

    def _reached_stop(self, index: int) -> bool:
        if self._stop_at is not None and index >= self._stop_at:
            self._stop_at = None
            self._paused = True
            return True
        return False

    async def gate(self, index: int) -> None:
        """Awaited before step ``index``: returns when the step may run."""
        self._in_step = False
        self._finish = False
        self._step = index
        self._reached_stop(index)
        self._notify()
        while self._paused:
            if self._steps_owed:
                self._steps_owed -= 1
                self._finish = True  # this step runs to its end although the clock is paused
                break
            await self._wait_change()
            if self._reached_stop(index):
                self._notify()
        self._in_step = True

    async def sleep_until(self, ms: int) -> None:
        """Wait until virtual time ``ms`` (real time scaled by the speed); time never goes backwards.

        At speed max this returns without suspending. A pause holds the sleep where it is; a
        speed change re-times what is left of it. Cancelling the task cancels the sleep.
        """
        if ms <= self._now_ms:
            return
        while ms > self._now_ms:
            if self._paused and not self._finish:
                await self._wait_change()
                continue
            speed = self._speed
            if speed is None:
                self._now_ms = ms
                break
            loop = asyncio.get_running_loop()
            started, start_ms = loop.time(), self._now_ms
            self._sleeping = (started, start_ms, ms, speed)
            try:
                timed_out = not await self._wait_change((ms - start_ms) / 1000 / speed)
            finally:
                self._sleeping = None
            if timed_out:
                self._now_ms = ms
                break
            # a control changed (speed, pause, step): count the virtual time that passed, then go on
            self._now_ms = min(ms, start_ms + int((loop.time() - started) * 1000 * speed))
        self._notify()
