"""Reliability: floods cost time not memory, stubborn process trees die, and sessions leak nothing."""

from __future__ import annotations

import ctypes
import os
import re
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.terminal import PtySession

from .helpers import PYTHON, TIMEOUT, rows, run, session, term_env

FLOOD_BYTES = 200_000_000
PR_SET_CHILD_SUBREAPER = 36


def vm_rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


def child_pids() -> set[int]:
    """Processes whose parent is this process (from /proc/*/stat)."""
    me = os.getpid()
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[1]) == me:
            found.add(int(stat.parent.name))
    return found


def fd_count() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.slow
def test_flood_costs_time_not_memory() -> None:
    script = f"yes 0123456789abcdef 2>/dev/null | head -c {FLOOD_BYTES}; echo; echo FLOOD-DONE; read line; echo got-$line"

    async def body() -> tuple[int, float]:
        before = vm_rss_kib()
        started = time.monotonic()
        async with session(["sh", "-c", script], scrollback=1000) as s:
            await s.wait_for_text("FLOOD-DONE", 300)
            elapsed = time.monotonic() - started
            growth = vm_rss_kib() - before
            assert s.bytes_read > FLOOD_BYTES  # the pty adds a CR per line
            shown = rows(s)
            end = shown.index("FLOOD-DONE")
            # The output's tail: 200_000_000 = 17 * 11764705 + 15, so the last line is cut after "e".
            assert shown[end - 1] == "0123456789abcde"
            assert shown[end - 2] == "0123456789abcdef"
            assert len(s.screen.history) <= 1000
            # Still answers: input goes in, output comes out, the exit is seen.
            s.write("ping<Enter>")
            await s.wait_for_text("got-ping", TIMEOUT)
            assert await s.wait_exit(TIMEOUT) == 0
        return growth, elapsed

    growth_kib, elapsed = run(body)
    print(f"\nflood: {FLOOD_BYTES / 1e6:.0f} MB in {elapsed:.1f} s, RSS growth {growth_kib / 1024:.1f} MiB")
    assert growth_kib < 50 * 1024


@pytest.fixture
def subreaper() -> Iterator[None]:
    """Orphans of this test become our children (so we can reap them and see them gone)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        pytest.skip("prctl(PR_SET_CHILD_SUBREAPER) is not available")
    try:
        yield
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def reap_and_check_gone(pid: int, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid  # not our child (already reaped)
        if done == pid:
            break
        assert time.monotonic() < deadline, f"process {pid} is still alive"
        time.sleep(0.01)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


STUBBORN_PY = textwrap.dedent(
    """
    import os, signal, time
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    child = os.fork()
    if child == 0:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        time.sleep(300)
        os._exit(0)
    print("PIDS", os.getpid(), child, flush=True)
    while True:
        time.sleep(1)
    """
)


@pytest.mark.parametrize(
    "argv",
    [
        ["bash", "-c", 'trap "" TERM HUP; sleep 300 & echo PIDS $$ $!; trap "" TERM HUP; wait'],
        [PYTHON, "-c", STUBBORN_PY],
    ],
    ids=["bash", "python-fork"],
)
@pytest.mark.usefixtures("subreaper")
def test_terminate_kills_a_stubborn_program_and_its_child(argv: list[str]) -> None:
    async def body() -> tuple[int, int]:
        async with session(argv) as s:
            found = await s.wait_for_text(re.compile(r"PIDS \d+ \d+"), TIMEOUT)
            parent, child = (int(p) for p in found.split()[1:])
            assert parent == s.pid
            await s.wait_stable(200, TIMEOUT)  # the traps are set before PIDS is printed
            os.kill(parent, 0)  # both alive before
            os.kill(child, 0)
            await s.terminate(grace=0.3)
            assert not s.alive
            assert s.exit_code == 128 + 9
        return parent, child

    parent, child = run(body)
    reap_and_check_gone(parent)
    reap_and_check_gone(child)


def _our_temp_entries() -> set[str]:
    pattern = re.compile(r"workbench|golden|\.cast$|\.tmp$|pty", re.I)
    return {name for name in os.listdir(tempfile.gettempdir()) if pattern.search(name)}


@pytest.mark.slow
def test_many_sessions_leak_nothing() -> None:
    count = 500

    async def body() -> float:
        started = time.monotonic()
        for _ in range(count):
            s = await PtySession.spawn(["true"], env=term_env(), cwd="/")
            assert await s.wait_exit(TIMEOUT) == 0
            await s.terminate()
        return time.monotonic() - started

    children, fds, temps = child_pids(), fd_count(), _our_temp_entries()
    elapsed = run(body)
    print(f"\n{count} sessions in {elapsed:.1f} s")
    assert child_pids() <= children
    assert abs(fd_count() - fds) <= 2
    assert _our_temp_entries() <= temps


def test_closed_session_releases_its_fd() -> None:
    async def body() -> None:
        s = await PtySession.spawn(["sleep", "30"], env=term_env(), cwd="/")
        fd = s.fd
        os.fstat(fd)
        await s.terminate()
        with pytest.raises(OSError):
            os.fstat(fd)

    run(body)
