"""Reliability with real processes: a 200 MB flood, programs that ignore SIGTERM, 500 sessions in a row."""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

import pytest

from workbench.terminal import PtySession

from .helpers import PYTHON, alive, run, term_env

PY = PYTHON
MB = 1024 * 1024


def rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def children() -> list[int]:
    me = str(os.getpid())
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me:
                found.append(int(entry))
    return found


@pytest.mark.slow
def test_a_200_mb_flood_keeps_memory_bounded_and_the_session_responsive() -> None:
    flood = (
        "import sys\n"
        # ~1 MiB of 100-byte lines, each with a colour: the style path is flooded too
        "block = b''.join(b'\\x1b[38;5;%dm%08d\\x1b[0m ' % (i % 256, i) + b'x' * (78 - len(str(i % 256))) + b'\\n'\n"
        "                 for i in range(10486))\n"
        "out = sys.stdout.buffer\n"
        "for _ in range(200):\n"
        "    out.write(block)\n"
        "out.write(b'END OF FLOOD\\n')\n"
        "out.flush()\n"
    )

    async def go() -> None:
        baseline = rss()
        peak = baseline
        stalls: list[float] = []

        async def watch() -> None:
            nonlocal peak
            while True:
                before = time.monotonic()
                await asyncio.sleep(0.05)
                stalls.append(time.monotonic() - before - 0.05)
                peak = max(peak, rss())

        watcher = asyncio.create_task(watch())
        try:
            async with await PtySession.spawn(
                [PY, "-c", flood], env=term_env(), cwd="/", width=100, height=30
            ) as session:
                await session.wait_for_text("END OF FLOOD", 240)
                assert await session.wait_exit(60) == 0
                assert session.bytes_read >= 200 * 10**6
                assert session.screen.text().splitlines()[-1] == "END OF FLOOD"
                assert len(session.screen.history_rows()) == 1000
        finally:
            watcher.cancel()
        assert peak - baseline < 50 * MB, f"RSS grew by {(peak - baseline) / MB:.1f} MB"
        assert max(stalls) < 2.0, f"the event loop stalled for {max(stalls):.2f} s"

    run(go)


def test_a_program_that_ignores_sigterm_is_killed_with_its_child() -> None:
    stubborn = (
        "import signal, subprocess, sys, time\n"
        "for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
        "    signal.signal(s, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import signal, time\\n'\n"
        "    'for s in (signal.SIGTERM, signal.SIGHUP): signal.signal(s, signal.SIG_IGN)\\n'\n"
        "    'print(\"child ready\", flush=True)\\ntime.sleep(120)'])\n"
        "print('pids', child.pid, flush=True)\n"
        "time.sleep(120)\n"
    )

    async def go() -> None:
        session = await PtySession.spawn([PY, "-c", stubborn], env=term_env(), cwd="/", width=60, height=6)
        await session.wait_for_text("child ready", 30)
        child = int(session.screen.text().split("pids", 1)[1].split()[0])
        assert alive(session.pid) and alive(child)
        started = time.monotonic()
        await session.terminate(grace=0.3)
        assert time.monotonic() - started < 10
        assert session.exit_code == 128 + 9
        deadline = time.monotonic() + 5
        while alive(child) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert not alive(session.pid) and not alive(child)

    run(go)


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.slow
def test_500_sessions_in_a_row_leave_no_process_fd_or_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path / "tmp"  # a temp root of this test's own: nothing else writes there
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))

    async def go() -> None:
        await asyncio.sleep(0)
        fds, temps, before = _open_fds(), set(os.listdir(tmp)), set(children())  # earlier tests' are not ours
        for i in range(500):
            argv = ["true"] if i % 2 else ["printf", f"session {i}"]
            session = await PtySession.spawn(argv, env=term_env(), cwd="/", width=40, height=4)
            assert await session.wait_exit(30) == 0
            if i % 2 == 0:
                assert session.screen.text_rows()[0].rstrip() == f"session {i}"
            await session.terminate()
        assert set(children()) - before == set()
        assert _open_fds() == fds
        assert set(os.listdir(tmp)) - temps == set()

    run(go)
