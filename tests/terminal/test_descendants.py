"""A program's descendants that left its process group (setsid + double fork) do not outlive its session."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Iterable
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
        while not set(running(marker)) - {child.pid}:  # bash's own command line holds the marker too: wait
            time.sleep(0.02)  # for the process it forks for sleep, which ``find`` must then see
        found = descendants.find(descendants.new_token(), os.getpid())
        assert child.pid in found and set(running(marker)) <= set(found) and os.getpid() not in found
    finally:
        child.kill()
        child.wait()
        descendants.signal_all(running(marker), signal.SIGKILL)


#: The leader forks a child that forks a grandchild, which calls setsid() and runs `env -i sleep ARG`: no
#: token, not in the leader's session or group. The child says "forked", waits for a line, then exits, so
#: the grandchild is orphaned (adopted by the leader, a subreaper) only after the test lets it; the
#: leader then waits for a line and exits, so the grandchild is adopted by this process.
ORPHAN = """\
import os, sys, time
if os.fork() == 0:
    if os.fork() == 0:
        os.setsid()
        os.execv("/usr/bin/env", ["env", "-i", "/bin/sleep", sys.argv[1]])
    print("forked", flush=True)
    sys.stdin.readline()
    os._exit(0)
os.wait()
print("orphaned", flush=True)
sys.stdin.readline()
"""


def parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def gone(pid: int, start: int) -> bool:
    """Neither alive nor a zombie: no process ``pid`` that started at ``start`` (a reused pid is another)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return True
    return int(stat[19]) != start


def test_an_orphan_without_token_or_session_is_adopted_then_killed_and_reaped(tmp_path: Path) -> None:
    sleep = unique_seconds(600)
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN)
    grandchild = start = 0

    async def go() -> None:
        nonlocal grandchild, start
        session = await PtySession.spawn(
            [sys.executable, str(script), sleep], env=term_env(), cwd=str(tmp_path)
        )
        try:
            await session.wait_for_text("forked", timeout=20)
            (grandchild,) = wait_running(f"sleep {sleep}")
            start = descendants.start_time(grandchild)
            await session.wait_stable(20, timeout=20)  # the engine settles: the tree is scanned
            session.write("go\r")
            await session.wait_for_text("orphaned", timeout=20)
            assert parent(grandchild) == session.pid, "the orphan was not adopted by the leader"
            assert os.getsid(grandchild) not in (os.getsid(session.pid), os.getsid(0))
            assert descendants.TOKEN_VAR.encode() not in Path(f"/proc/{grandchild}/environ").read_bytes()
            session.write("exit\r")
            assert await session.wait_exit(20) == 0
            assert parent(grandchild) == os.getpid(), "the orphan was not adopted by this process"
        finally:
            await session.terminate()

    asyncio.run(go())
    assert running(sleep) == []
    assert gone(grandchild, start), "the orphan survived, or stayed a zombie"


def test_an_immediate_double_fork_with_setsid_and_env_i_is_killed(tmp_path: Path) -> None:
    """The daemon idiom: the intermediate exits at once; the leader adopts the orphan, so it is still below it."""
    sleep = unique_seconds(600)
    grandchild = start = 0

    async def go() -> None:
        nonlocal grandchild, start
        script = tmp_path / "daemon.sh"
        script.write_text(f"(env -i setsid /bin/sleep {sleep} &); echo out; sleep 600\n")
        session = await PtySession.spawn(["sh", str(script)], env=term_env(), cwd=str(tmp_path))
        try:
            await session.wait_for_text("out", timeout=20)
            (grandchild,) = wait_running(f"sleep {sleep}")  # maybe still `setsid`, about to call setsid()
            start = descendants.start_time(grandchild)
            deadline = time.monotonic() + 20
            while os.getsid(grandchild) == os.getsid(session.pid) and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert os.getsid(grandchild) != os.getsid(session.pid)
        finally:
            await session.terminate()

    asyncio.run(go())
    assert running(sleep) == []
    assert gone(grandchild, start)


def test_an_orphan_in_the_session_is_found_without_a_scan(tmp_path: Path) -> None:
    """No setsid: the adopted orphan keeps the leader's session id, which is enough (no settle needed)."""
    sleep = unique_seconds(600)

    async def go() -> None:
        script = tmp_path / "orphan.sh"
        script.write_text(f"(env -i /bin/sleep {sleep} &); echo out; sleep 600\n")
        session = await PtySession.spawn(["sh", str(script)], env=term_env(), cwd=str(tmp_path))
        try:
            await session.wait_for_text("out", timeout=20)
            (pid,) = wait_running(f"sleep {sleep}")
            assert pid in descendants.find("no-such-token", session.pid, descendants.start_time(session.pid))
        finally:
            await session.terminate()

    asyncio.run(go())
    assert running(sleep) == []


def test_children_of_this_process_survive_a_session_end(tmp_path: Path) -> None:
    """Other children of the process that runs sessions (before, and during one) are none of its business."""
    import subprocess

    before, during, sleep = unique_seconds(600), unique_seconds(600), unique_seconds(600)
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN)
    older = subprocess.Popen(["sleep", before])
    children = [older]

    async def go() -> None:
        session = await PtySession.spawn(
            [sys.executable, str(script), sleep], env=term_env(), cwd=str(tmp_path)
        )
        try:
            await session.wait_for_text("forked", timeout=20)
            children.append(
                subprocess.Popen(["sleep", during], start_new_session=True)
            )  # like a tool's shell
            await session.wait_stable(20, timeout=20)
            session.write("go\r")
            await session.wait_for_text("orphaned", timeout=20)
        finally:
            await session.terminate()

    try:
        asyncio.run(go())
        assert running(sleep) == []
        assert [child.poll() for child in children] == [None, None]
        assert running(before) == [older.pid] and running(during) == [children[1].pid]
    finally:
        for child in children:
            child.kill()
            child.wait()


def scan_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a kernel that lists no children: every process in /proc is read."""
    monkeypatch.setattr(descendants, "children_listed", lambda: False)


def no_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    def scan() -> list[int]:
        raise AssertionError("every process on the machine was read")

    monkeypatch.setattr(descendants, "_pids", scan)


@pytest.mark.skipif(not descendants.children_listed(), reason="the kernel lists no children")
def test_the_walk_down_the_tree_finds_what_the_scan_of_every_process_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A setsid double fork with the token, one without it below the leader, an adopted orphan that left
    the leader's session, a child of this process of no session: the same pids either way, without a scan."""
    import subprocess

    kept, clean, adopted, mine = (unique_seconds(600) for _ in range(4))
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN)
    other = subprocess.Popen(["sleep", mine], start_new_session=True)

    async def go() -> None:
        escape = await PtySession.spawn([sys.executable, str(write_escape(tmp_path)), kept, "keep"],
                                        env=term_env(), cwd=str(tmp_path))  # fmt: skip
        below = await PtySession.spawn(["sh", "-c", f"env -i /bin/sleep {clean}; sleep 600"],
                                       env=term_env(), cwd=str(tmp_path))  # fmt: skip
        orphan = await PtySession.spawn(
            [sys.executable, str(script), adopted], env=term_env(), cwd=str(tmp_path)
        )
        sessions = (escape, below, orphan)
        try:
            await escape.wait_for_text("escaped", timeout=20)
            await orphan.wait_for_text("forked", timeout=20)
            for needle in (kept, clean, adopted):
                assert wait_running(needle)
            orphan.track()
            orphan.write("go\r")
            await orphan.wait_for_text("orphaned", timeout=20)
            orphan.write("exit\r")
            assert await orphan.wait_exit(20) == 0
            (grandchild,) = running(adopted)
            assert parent(grandchild) == os.getpid()

            def found() -> list[list[int]]:
                return [descendants.find(s.token, s.pid, s._since, set(s._seen)) for s in sessions]

            with monkeypatch.context() as patched:
                no_scan(patched)
                walked = found()
            with monkeypatch.context() as patched:
                scan_only(patched)
                scanned = found()
            assert walked == scanned
            assert set(running(kept)) <= set(walked[0]) and set(running(clean)) <= set(walked[1])
            assert walked[2] == [grandchild] and all(other.pid not in pids for pids in walked)
        finally:
            for session in sessions:
                await session.terminate()

    try:
        asyncio.run(go())
        assert [running(needle) for needle in (kept, clean, adopted)] == [[], [], []]
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


@pytest.mark.skipif(not descendants.children_listed(), reason="the kernel lists no children")
def test_ending_a_session_reads_no_process_outside_this_ones_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_scan(monkeypatch)
    sleep = unique_seconds(600)

    async def go() -> None:
        session = await PtySession.spawn([sys.executable, str(write_escape(tmp_path)), sleep, "clean"],
                                         env=term_env(), cwd=str(tmp_path))  # fmt: skip
        try:
            await session.wait_for_text("escaped", timeout=20)
            assert wait_running(f"sleep {sleep}")
        finally:
            await session.terminate()

    asyncio.run(go())
    assert running(sleep) == []


def test_without_the_kernels_lists_of_children_or_a_subreaper_every_process_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The scan stays where the walk could miss a session's process (see the module's docstring)."""
    import subprocess

    marker = unique_seconds(600)
    child = subprocess.Popen(["sleep", marker])
    try:
        assert wait_running(marker)
        real = descendants._pids
        for situation in ("no lists", "no subreaper"):
            scanned: list[int] = []

            def counted(scanned: list[int] = scanned) -> Iterable[int]:
                scanned.extend(real())
                return scanned

            with monkeypatch.context() as patched:
                patched.setattr(descendants, "_pids", counted)
                if situation == "no lists":
                    scan_only(patched)
                    descendants.subreaper(True)
                else:
                    descendants.subreaper(False)
                found = descendants.find(descendants.new_token(), os.getpid())
                descendants.subreaper(False)
            assert child.pid in found and scanned, situation
    finally:
        child.kill()
        child.wait()
