"""Benchmark: finding a session's processes, walking this process's tree vs reading every process in /proc.

The walk (``/proc/<pid>/task/*/children``, from the process that runs sessions) is what
``descendants.find`` does where the kernel lists children and this process is a subreaper; the scan
(every ``/proc/<pid>/stat``) is what it did before, and still does elsewhere. Both are timed in the
same run on a session whose program started a setsid double fork, and for a whole session (spawn, a
settle's ``track``, ``terminate``), in CPU time of this process. The scan's cost grows with the
processes on the machine (printed), the walk's with the session's.

Run: python benchmarks/descendants.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable

from workbench.terminal import PtySession, descendants

#: a program whose child left its session and group by a double fork (`setsid`'s own fork)
ESCAPE = ["sh", "-c", "(setsid sleep 600 &); echo ok; exec sleep 600"]
FINDS = 300
SESSIONS = 20


def best(action: Callable[[], object], rounds: int = 5) -> float:
    """The least CPU time of this process (where the lookup runs) that ``action`` took in ``rounds`` runs."""
    times = []
    for _ in range(rounds):
        start = time.process_time()
        action()
        times.append(time.process_time() - start)
    return min(times)


def scanning(action: Callable[[], object]) -> Callable[[], object]:
    def scanned() -> object:
        real = descendants.children_listed
        descendants.children_listed = lambda: False  # type: ignore[method-assign]
        try:
            return action()
        finally:
            descendants.children_listed = real  # type: ignore[method-assign]

    return scanned


def finds(folder: str) -> tuple[float, float]:
    async def measure() -> tuple[float, float]:
        session = await PtySession.spawn(ESCAPE, env={"PATH": "/usr/bin:/bin"}, cwd=folder)
        try:
            await session.wait_for_text("ok", timeout=20)

            def find() -> None:
                for _ in range(FINDS):
                    descendants.find(session.token, session.pid, session._since, session._seen)

            def once() -> list[int]:
                return descendants.find(session.token, session.pid, session._since)

            assert scanning(once)() == once() and len(once()) == 2, "not the same processes"
            return best(scanning(find)) / FINDS, best(find) / FINDS
        finally:
            await session.terminate()

    return asyncio.run(measure())


def sessions(folder: str) -> tuple[float, float]:
    async def cycle() -> None:
        for _ in range(SESSIONS):
            session = await PtySession.spawn(ESCAPE, env={"PATH": "/usr/bin:/bin"}, cwd=folder)
            await session.wait_for_text("ok", timeout=20)
            session.track()
            await session.terminate()

    return best(scanning(lambda: asyncio.run(cycle())), 3) / SESSIONS, best(
        lambda: asyncio.run(cycle()), 3
    ) / SESSIONS


def main() -> int:
    if not descendants.children_listed():
        print("this kernel lists no children (CONFIG_PROC_CHILDREN): find scans /proc either way")
        return 0
    processes = sum(1 for name in os.listdir("/proc") if name.isdigit())
    print(f"{processes} processes on the machine")
    with tempfile.TemporaryDirectory() as folder:
        rows = [("find, one call", *finds(folder)), ("a session: spawn, track, terminate", *sessions(folder))]
    print(f"{'what':36} {'scan ms CPU':>11} {'walk ms CPU':>11} {'ratio':>6}")
    for what, scan, walk in rows:
        print(f"{what:36} {scan * 1000:11.3f} {walk * 1000:11.3f} {scan / walk:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
