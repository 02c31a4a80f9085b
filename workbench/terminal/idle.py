"""Whether the program on a pty has gone idle: neither its screen nor its processes moved for a while.

A terminal program can ask for keys (its terminal out of canonical mode) and draw its prompt long before
it handles them. An Ink app sets raw mode to ask the terminal what it supports, draws, and goes on loading
for seconds on a busy machine, reading and dropping what is typed meanwhile: qwen-code 0.24 lost a
scenario's first input so, after its screen had been quiet for half a second between two draws. A person
sees the keys not appear and types again; a replay must not type before the program is done.

The kernel tells: ``/proc/<pid>/task/<tid>/schedstat`` holds the time each thread ran and the time it
waited for a CPU, so a program starved by a busy machine counts as busy, not as quiet. A program that
waits for its user runs for a few milliseconds a second at most (a cursor's blink, a timer), which
:data:`IDLE_SHARE` allows. Where the kernel keeps no such figures, only the screen decides.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import deque
from collections.abc import Callable, Iterable

BUSY_LIMIT_S = 30.0  # a program that asks for input but keeps busy longer than this is typed to all the same
IDLE_SHARE = 0.05  # of the wall time: what a waiting program may run (a blink, a timer) and still be idle
_POLL_S = 0.05
_PROC = "/proc"


def available() -> bool:
    """Whether this kernel keeps each thread's run and wait times."""
    return os.path.exists(f"{_PROC}/self/schedstat")


def thread_times(pids: Iterable[int]) -> dict[int, int]:
    """Each thread of ``pids`` and the nanoseconds it has run or waited to run (gone ones are left out)."""
    times: dict[int, int] = {}
    for pid in pids:
        try:
            tasks = os.listdir(f"{_PROC}/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError, ValueError):
                with open(f"{_PROC}/{pid}/task/{task}/schedstat", "rb") as f:
                    ran, waited, _slices = f.read().split()
                times[int(task)] = int(ran) + int(waited)
    return times


class Busyness:
    """What the processes ``pids()`` names used (ran or waited to run) between one look and the next."""

    def __init__(self, pids: Callable[[], Iterable[int]]) -> None:
        self._pids = pids
        self._last = thread_times(pids())

    def since_last_look(self) -> int:
        """Nanoseconds used since the last look; a thread first seen now counts with all it has used."""
        now = thread_times(self._pids())
        used = sum(max(0, ns - self._last.get(tid, 0)) for tid, ns in now.items())
        self._last = now
        return used


async def wait_idle(
    pids: Callable[[], Iterable[int]], last_activity: Callable[[], float], ms: int, limit: float
) -> bool:
    """Until, for ``ms`` milliseconds, the screen has been quiet (``last_activity``: the ``time.monotonic()``
    of its last output or input) and the processes ``pids()`` names used at most :data:`IDLE_SHARE` of the
    time; True then. False after ``limit`` seconds without such a stretch (a program that keeps busy: the
    caller goes on all the same)."""
    if not available():
        return True
    window = ms / 1000
    busyness = Busyness(pids)
    looks: deque[tuple[float, int]] = deque()  # (when, nanoseconds used since the look before)
    start = time.monotonic()
    while True:
        await asyncio.sleep(_POLL_S)
        now = time.monotonic()
        looks.append((now, busyness.since_last_look()))
        while looks[0][0] < now - window:
            looks.popleft()
        quiet = now - max(start, last_activity()) >= window
        used_s = sum(ns for _, ns in looks) / 1e9
        if quiet and used_s <= IDLE_SHARE * window:
            return True
        if now - start >= limit:
            return False
