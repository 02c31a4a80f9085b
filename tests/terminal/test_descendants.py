"""A program's descendants that left its process group (setsid + double fork) do not outlive its session."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.processes import running, unique_seconds
from workbench.terminal import PtySession, descendants

from .helpers import term_env

pytestmark = pytest.mark.skipif(not descendants.available(), reason="needs /proc (Linux)")

#: Forks a child that calls setsid() and forks again: the grandchild is in another session and group,
#: orphaned (adopted by init), and execs `sleep ARG`; optionally it clears its environment first.
ESCAPE = """\
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        env = {} if sys.argv[2] == "clean" else dict(os.environ)
        os.execve("/bin/sleep", ["sleep", sys.argv[1]], env)
    os._exit(0)
os.wait()
print("escaped", flush=True)
time.sleep(600)
"""


def write_escape(tmp_path: Path) -> Path:
    script = tmp_path / "escape.py"
    script.write_text(ESCAPE)
    return script


def wait_running(needle: str) -> list[int]:
    deadline = time.monotonic() + 20
    while not (pids := running(needle)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return pids


def test_a_setsid_double_fork_does_not_survive_terminate(tmp_path: Path) -> None:
    sleep = unique_seconds(600)

    async def go() -> None:
        session = await PtySession.spawn([sys.executable, str(write_escape(tmp_path)), sleep, "keep"],
                                         env=term_env(), cwd=str(tmp_path))  # fmt: skip
        try:
            await session.wait_for_text("escaped", timeout=20)
            (pid,) = wait_running(f"sleep {sleep}")
            assert os.getsid(pid) != os.getsid(session.pid)  # it really left the session
            assert os.getpgid(pid) != os.getpgid(session.pid)
        finally:
            await session.terminate()

    asyncio.run(go())
    assert running(sleep) == []


def test_descendants_are_found_below_the_leader_without_the_token(tmp_path: Path) -> None:
    sleep = unique_seconds(600)

    async def go() -> None:
        session = await PtySession.spawn(["sh", "-c", f"env -i /bin/sleep {sleep}; sleep 600"],
                                         env=term_env(), cwd=str(tmp_path))  # fmt: skip
        try:
            pids = wait_running(sleep)
            assert pids and set(pids) <= set(descendants.find("no-such-token", session.pid))
        finally:
            await session.terminate()

    asyncio.run(go())
    assert running(sleep) == []


def test_find_sees_only_its_own_session(tmp_path: Path) -> None:
    mine, other = unique_seconds(600), unique_seconds(600)

    async def go() -> None:
        a = await PtySession.spawn(["sleep", mine], env=term_env(), cwd=str(tmp_path))
        b = await PtySession.spawn(["sleep", other], env=term_env(), cwd=str(tmp_path))
        try:
            assert descendants.find(a.token, a.pid) == running(mine)
            assert not set(descendants.find(a.token, a.pid)) & set(running(other))
        finally:
            await a.terminate()
            assert running(other), "ending one session ended another"
            await b.terminate()

    asyncio.run(go())


def test_find_below_this_process_itself() -> None:
    """With this process as the leader, its children and theirs are found (it never is)."""
    import subprocess

    marker = unique_seconds(600)
    child = subprocess.Popen(["bash", "-c", f"sleep {marker}; true"])
    try:
        while not running(marker):
            time.sleep(0.02)
        found = descendants.find(descendants.new_token(), os.getpid())
        assert child.pid in found and set(running(marker)) <= set(found) and os.getpid() not in found
    finally:
        child.kill()
        child.wait()
        descendants.signal_all(running(marker), signal.SIGKILL)
