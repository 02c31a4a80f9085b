"""Benchmark: what the safety measures cost, each against its unguarded baseline in the same run.

* writes: ``writeFile`` through the workspace's descriptor (``openat2`` RESOLVE_BENEATH, see
  ``workbench.workspace.beneath``) against a plain ``Path.write_text`` of the same files;
* commands: ``runCmd true`` under Landlock against the same with Landlock off;
* the mock agent's commands (bubblewrap level only): ``runCmd true`` from a forked child confined as the
  mock agent is (``namespace.confine_self``: its commands get Landlock on top of that namespace) against
  the same from this process (a ``bwrap`` per command), in CPU seconds of the process and its commands;
* session end: ``PtySession.terminate`` with the scan for descendants that left the process
  group against the group kill alone.

Run: python benchmarks/safety.py
"""

from __future__ import annotations

import asyncio
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from workbench.agent.tools import ShellRegistry, execute_tool
from workbench.terminal import PtySession, descendants
from workbench.workspace import Workspace, landlock, namespace, sandbox

WRITES = 2000
COMMANDS = 100
SESSIONS = 30


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def writes(root: Path) -> tuple[float, float]:
    ws = Workspace.attach(root)
    shells = ShellRegistry()

    def guarded() -> None:
        for i in range(WRITES):
            execute_tool("writeFile", {"path": f"g/{i % 50}.txt", "content": "x" * 100}, ws, shells=shells)

    def plain() -> None:
        (root / "p").mkdir(exist_ok=True)
        for i in range(WRITES):
            path = ws.resolve(f"p/{i % 50}.txt")  # the same check, then an ordinary write
            path.write_text("x" * 100)

    result = timed(plain), timed(guarded)
    shells.close()
    return result


def commands(root: Path) -> tuple[float, float]:
    ws = Workspace.attach(root)
    shells = ShellRegistry()

    def run() -> None:
        for _ in range(COMMANDS):
            execute_tool("runCmd", {"cmd": "true"}, ws, shells=shells)

    os.environ[sandbox.DISABLE_VAR] = "1"  # Landlock alone, as on a machine without bubblewrap
    sandbox._bwrap.cache_clear()
    confined = timed(run)
    real = landlock.abi_version
    landlock.abi_version = lambda: 0  # type: ignore[assignment]
    try:
        unconfined = timed(run)
    finally:
        landlock.abi_version = real  # type: ignore[assignment]
        del os.environ[sandbox.DISABLE_VAR]
        sandbox._bwrap.cache_clear()
    shells.close()
    return unconfined, confined


def cpu_seconds() -> float:
    """CPU time of this process and its finished children: what other load on the machine does not inflate."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def agents_commands(root: Path) -> tuple[float, float]:
    """CPU seconds (with the commands'), as the wall times of 100 commands swing 2-3x with other load."""

    def run() -> float:
        ws, shells = Workspace.attach(root), ShellRegistry()
        execute_tool("runCmd", {"cmd": "true"}, ws, shells=shells)  # warm
        before = cpu_seconds()
        for _ in range(COMMANDS):
            execute_tool("runCmd", {"cmd": "true"}, ws, shells=shells)
        shells.close()
        return cpu_seconds() - before

    under_bwrap = run()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # confined as the forked mock agent is, then the same commands
        try:
            namespace.confine_self([root, Path(tempfile.gettempdir()), Path("/dev")])
            os.write(write, repr(run()).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read) as said:
        return under_bwrap, float(said.read())


def sessions(root: Path) -> tuple[float, float]:
    async def cycle() -> None:
        for _ in range(SESSIONS):
            session = await PtySession.spawn(["sleep", "600"], env={"PATH": "/usr/bin:/bin"}, cwd=str(root))
            await session.terminate()

    with_scan = timed(lambda: asyncio.run(cycle()))
    real_find, real_kill = descendants.find, descendants.kill_all
    descendants.find = lambda *args: []  # type: ignore[assignment]
    descendants.kill_all = lambda *args: []  # type: ignore[assignment]
    try:
        without = timed(lambda: asyncio.run(cycle()))
    finally:
        descendants.find, descendants.kill_all = real_find, real_kill  # type: ignore[assignment]
    return without, with_scan


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        rows = [
            (f"{WRITES} writeFile", *writes(root)),
            (
                f"{COMMANDS} runCmd true" + ("" if landlock.available() else " (no Landlock here)"),
                *commands(root),
            ),
            (f"{SESSIONS} pty sessions ended", *sessions(root)),
        ]
        if sandbox.level() == "bubblewrap":
            rows.insert(2, (f"{COMMANDS} runCmd true in the agent (CPU)", *agents_commands(root)))
    print(f"{'what':40} {'baseline s':>11} {'guarded s':>10} {'ratio':>6}")
    for what, base, guarded in rows:
        print(f"{what:40} {base:11.3f} {guarded:10.3f} {guarded / base:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
