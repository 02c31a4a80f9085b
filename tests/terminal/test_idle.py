"""workbench/terminal/idle.py: a program is idle when its screen is quiet and its processes do not run,
and a busy one is never taken for idle, however quiet its screen."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from workbench.terminal import idle

pytestmark = pytest.mark.skipif(not idle.available(), reason="the kernel keeps no run times of threads")

SPIN = "while True: pass"
WAIT = "import sys; sys.stdin.read()"


def run_idle_wait(code: str, limit: float) -> bool:
    """``wait_idle`` over a Python running ``code`` with a screen that never moved."""
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE)
    try:
        return asyncio.run(idle.wait_idle(lambda: [child.pid], lambda: 0.0, 100, limit))
    finally:
        child.kill()
        child.wait()


def test_a_program_that_keeps_running_is_never_idle() -> None:
    assert run_idle_wait(SPIN, limit=1.0) is False


def test_a_program_that_waits_for_input_is_idle() -> None:
    assert run_idle_wait(WAIT, limit=30.0) is True


def test_a_screen_that_keeps_moving_is_never_idle() -> None:
    """Quiet processes, but output a moment ago at every look."""
    child = subprocess.Popen([sys.executable, "-c", WAIT], stdin=subprocess.PIPE)
    try:
        assert asyncio.run(idle.wait_idle(lambda: [child.pid], time.monotonic, 100, 1.0)) is False
    finally:
        child.kill()
        child.wait()


def test_a_process_first_seen_counts_with_all_it_has_used() -> None:
    """A process that appears between two looks has run: busy, not idle."""
    pids: list[int] = []
    busyness = idle.Busyness(lambda: pids)
    child = subprocess.Popen([sys.executable, "-c", SPIN])
    try:
        time.sleep(0.1)
        pids.append(child.pid)
        assert busyness.since_last_look() > 0
    finally:
        child.kill()
        child.wait()
