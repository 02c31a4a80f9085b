"""The virtual clock: speed parsing, sleeping at a speed, and the pause/step/run-to gates.

Every test runs its own event loop with ``asyncio.run``. Real time only ever bounds a test
from above (a generous timeout); whether a gate holds is decided by state, not by a stopwatch.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from workbench.clock import ClockState, VirtualClock, parse_speed

GENEROUS_S = 10.0


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(coro, GENEROUS_S * 3))


async def until(condition: Callable[[], bool], what: str) -> None:
    """Yield to other tasks until ``condition`` holds; fail (not hang) after a generous while."""
    deadline = time.monotonic() + GENEROUS_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.001)


async def settle() -> None:
    """Give every ready task plenty of chances to run (a held gate stays held however long this is)."""
    for _ in range(50):
        await asyncio.sleep(0)
    await asyncio.sleep(0.02)


async def engine(clock: VirtualClock, steps: int, passed: list[int]) -> None:
    """What the engine does: a gate before each step."""
    for index in range(steps):
        await clock.gate(index)
        passed.append(index)


# --------------------------------------------------------------------------- parse_speed


@pytest.mark.parametrize(
    ("text", "expected"),
    [("max", None), ("MAX", None), (" max ", None), ("1", 1.0), ("0.25", 0.25), ("4", 4.0), ("1e3", 1000.0)],
)
def test_parse_speed_accepts_max_and_positive_numbers(text: str, expected: float | None) -> None:
    assert parse_speed(text) == expected


@pytest.mark.parametrize(
    "text", ["0", "-1", "fast", "inf", "nan", "", "-inf", "0.0", "1e-300", "5e-324", "0.009", "1001", "1e308"]
)
def test_parse_speed_rejects_and_names_what_is_allowed(text: str) -> None:
    """1e-300 once waited for the run's timeout, and 1e308 left floats in the clock's arithmetic."""
    with pytest.raises(ValueError) as info:
        parse_speed(text)
    message = str(info.value)
    assert repr(text) in message
    assert "a number from 0.01 to 1000" in message
    assert "`max`" in message


@pytest.mark.parametrize(("text", "expected"), [("0.01", 0.01), ("1000", 1000.0)])
def test_parse_speed_takes_both_ends_of_its_range(text: str, expected: float) -> None:
    assert parse_speed(text) == expected


# --------------------------------------------------------------------------- sleeping


def test_speed_max_never_sleeps_and_advances_time() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        await asyncio.wait_for(clock.sleep_until(10**9), GENEROUS_S)
        assert clock.now_ms == 10**9
        await asyncio.wait_for(clock.sleep_until(5), GENEROUS_S)  # never goes backwards
        assert clock.now_ms == 10**9

    run(scenario())


def test_speed_1000_sleeps_a_thousandth_of_virtual_time() -> None:
    async def scenario() -> None:
        clock = VirtualClock(1000)
        started = time.monotonic()
        await clock.sleep_until(500)  # 500 virtual ms: half a real millisecond
        elapsed = time.monotonic() - started
        assert 0 <= elapsed < GENEROUS_S
        assert clock.now_ms == 500
        assert clock.state == ClockState(500, 1000, False, -1)

    run(scenario())


def test_set_speed_to_max_ends_a_long_sleep() -> None:
    async def scenario() -> None:
        clock = VirtualClock(0.001)  # 10 virtual seconds would take 10,000 real seconds
        sleeper = asyncio.create_task(clock.sleep_until(10_000))
        await settle()
        assert not sleeper.done()
        clock.set_speed(None)
        await asyncio.wait_for(sleeper, GENEROUS_S)
        assert clock.now_ms == 10_000
        assert clock.speed is None

    run(scenario())


def test_pause_holds_a_sleep_until_resume() -> None:
    async def scenario() -> None:
        clock = VirtualClock(0.001)
        sleeper = asyncio.create_task(clock.sleep_until(10_000))
        await settle()
        clock.pause()
        clock.set_speed(None)  # would end the sleep, but the clock is paused
        await settle()
        assert not sleeper.done()
        assert clock.now_ms < 10_000
        clock.resume()
        await asyncio.wait_for(sleeper, GENEROUS_S)
        assert clock.now_ms == 10_000

    run(scenario())


def test_the_reading_moves_during_a_long_sleep_and_stands_still_when_paused() -> None:
    """The app's "running at N ms" stood at the start of a long advanceMs until it ended: a run looked dead.

    ``now_ms`` still moves only when a wait ends (the engine's steps are timed by it); the reading counts the part
    of the wait under way, never past its end, and stops with a pause."""

    async def scenario() -> None:
        clock = VirtualClock(1.0)
        sleeper = asyncio.create_task(clock.sleep_until(60_000))
        await until(lambda: clock.reading_ms() > 0, "the reading to move")
        assert clock.now_ms == 0 and 0 < clock.reading_ms() < 60_000
        clock.pause()
        await settle()
        held = clock.reading_ms()
        assert held == clock.now_ms > 0, "a pause keeps what has passed"
        await settle()
        assert clock.reading_ms() == held
        sleeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sleeper

    run(scenario())


# --------------------------------------------------------------------------- gates


def test_gate_passes_at_once_when_running() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        passed: list[int] = []
        await asyncio.wait_for(engine(clock, 3, passed), GENEROUS_S)
        assert passed == [0, 1, 2]
        assert clock.state.step == 2

    run(scenario())


def test_gate_holds_while_paused_until_resume() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        clock.pause()
        passed: list[int] = []
        task = asyncio.create_task(engine(clock, 1, passed))
        await settle()
        assert passed == []
        assert not task.done()
        assert clock.state.step == 0  # the engine is at gate 0
        clock.resume()
        await asyncio.wait_for(task, GENEROUS_S)
        assert passed == [0]

    run(scenario())


def test_step_lets_exactly_one_gate_through() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        clock.pause()
        passed: list[int] = []
        task = asyncio.create_task(engine(clock, 5, passed))
        await until(lambda: clock.state.step == 0, "the engine to reach gate 0")
        assert passed == []

        clock.step()
        await until(lambda: passed == [0], "step 0 to run")
        await settle()
        assert passed == [0]  # held at the next gate
        assert clock.state.step == 1
        assert clock.paused

        clock.step()
        await until(lambda: passed == [0, 1], "step 1 to run")
        await settle()
        assert passed == [0, 1]
        assert clock.state.step == 2

        clock.resume()
        await asyncio.wait_for(task, GENEROUS_S)
        assert passed == [0, 1, 2, 3, 4]

    run(scenario())


def test_steps_asked_for_faster_than_they_run_add_up() -> None:
    """F8 pressed three times while paused is three steps, not one: each step() lets one more gate through."""

    async def scenario() -> None:
        clock = VirtualClock(None)
        clock.pause()
        passed: list[int] = []
        task = asyncio.create_task(engine(clock, 6, passed))
        await until(lambda: clock.state.step == 0, "the engine to reach gate 0")
        clock.step()
        clock.step()
        clock.step()
        await until(lambda: passed == [0, 1, 2], "three steps to run")
        await settle()
        assert passed == [0, 1, 2] and clock.state.step == 3 and clock.paused  # held at the gate after them
        clock.step()
        clock.step()
        clock.resume()  # resume forgets the steps still owed: it runs freely anyway
        await asyncio.wait_for(task, GENEROUS_S)
        assert passed == [0, 1, 2, 3, 4, 5]

    run(scenario())


def test_a_second_step_during_a_step_under_way_is_the_next_one() -> None:
    async def scenario() -> None:
        clock = VirtualClock(0.001)  # step 1 sleeps a long time (real seconds: 10,000)
        passed: list[int] = []
        task = asyncio.create_task(timed_engine(clock, [0, 10_000, 10_001, 10_002], passed))
        await until(lambda: clock.state.step == 1 and passed == [0], "the engine to sleep in step 1")
        clock.step()  # step 1, under way, is the one
        clock.step()  # and then step 2
        clock.set_speed(None)
        await until(lambda: passed == [0, 1, 2], "steps 1 and 2 to run")
        await settle()
        assert passed == [0, 1, 2]  # held at gate 3
        assert clock.state == ClockState(10_001, None, True, 3)
        clock.resume()
        await asyncio.wait_for(task, GENEROUS_S)
        assert passed == [0, 1, 2, 3]

    run(scenario())


def test_run_to_runs_earlier_gates_and_holds_at_the_target() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        clock.run_to(3)
        passed: list[int] = []
        task = asyncio.create_task(engine(clock, 6, passed))
        await until(lambda: clock.paused and clock.state.step == 3, "the engine to hold at gate 3")
        await settle()
        assert passed == [0, 1, 2]
        assert not task.done()

        clock.resume()
        await asyncio.wait_for(task, GENEROUS_S)
        assert passed == [0, 1, 2, 3, 4, 5]

    run(scenario())


def test_run_to_from_a_pause() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        clock.pause()
        passed: list[int] = []
        task = asyncio.create_task(engine(clock, 6, passed))
        await until(lambda: clock.state.step == 0, "the engine to reach gate 0")
        clock.run_to(4)
        await until(lambda: passed == [0, 1, 2, 3], "steps 0..3")
        await settle()
        assert passed == [0, 1, 2, 3]
        assert clock.paused
        clock.resume()
        await asyncio.wait_for(task, GENEROUS_S)

    run(scenario())


# --------------------------------------------------------------------------- listeners


def test_listeners_hear_every_change_as_clock_state() -> None:
    async def scenario() -> None:
        clock = VirtualClock(1.0)
        heard: list[ClockState] = []
        clock.add_listener(heard.append)

        clock.pause()
        assert heard[-1] == ClockState(0, 1.0, True, -1)
        clock.set_speed(4.0)
        assert heard[-1] == ClockState(0, 4.0, True, -1)
        clock.resume()
        assert heard[-1] == ClockState(0, 4.0, False, -1)
        await clock.gate(7)
        assert heard[-1] == ClockState(0, 4.0, False, 7)
        clock.set_speed(None)
        await clock.sleep_until(1234)
        assert heard[-1] == ClockState(1234, None, False, 7)
        assert all(isinstance(state, ClockState) for state in heard)

        count = len(heard)
        clock.remove_listener(heard.append)
        clock.pause()
        assert len(heard) == count

    run(scenario())


# --------------------------------------------------------------------------- the engine's full loop


async def timed_engine(clock: VirtualClock, times: list[int], passed: list[int]) -> None:
    """A gate before each step, then a sleep to its virtual time, as the runner does."""
    for index, at_ms in enumerate(times):
        await clock.gate(index)
        await clock.sleep_until(at_ms)
        passed.append(index)


def test_speed_max_never_suspends() -> None:
    """At max, sleep_until finishes on its first resume: it never waits, not even for one loop turn."""

    async def scenario() -> None:
        clock = VirtualClock(None)
        for target in (1, 30_000, 10**9):
            coro = clock.sleep_until(target)
            with pytest.raises(StopIteration):
                coro.send(None)
            assert clock.now_ms == target
        coro = clock.gate(0)  # a running clock's gate does not suspend either
        with pytest.raises(StopIteration):
            coro.send(None)

    run(scenario())


def test_a_whole_run_at_max_speed_takes_no_time() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        passed: list[int] = []
        started = time.monotonic()
        await timed_engine(clock, [i * 1000 for i in range(300)], passed)  # 5 virtual minutes
        assert passed == list(range(300))
        assert clock.now_ms == 299_000
        assert time.monotonic() - started < GENEROUS_S

    run(scenario())


def test_set_speed_re_times_the_rest_of_a_sleep() -> None:
    async def scenario() -> None:
        clock = VirtualClock(0.0001)  # 1 virtual second would take about 3 real hours
        sleeper = asyncio.create_task(clock.sleep_until(1000))
        await settle()
        assert not sleeper.done()
        clock.set_speed(100_000.0)  # what is left now takes about 10 µs
        await asyncio.wait_for(sleeper, GENEROUS_S)
        assert clock.now_ms == 1000

    run(scenario())


def test_set_speed_rejects_nonsense() -> None:
    clock = VirtualClock(1.0)
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="positive number"):
            clock.set_speed(bad)
    assert clock.speed == 1.0


def test_a_sleep_can_be_cancelled() -> None:
    async def scenario() -> None:
        clock = VirtualClock(0.001)
        sleeper = asyncio.create_task(clock.sleep_until(60_000))
        await settle()
        sleeper.cancel()
        with pytest.raises(asyncio.CancelledError):
            await sleeper
        assert clock.now_ms < 60_000
        clock.set_speed(None)  # the clock still works afterwards
        await clock.sleep_until(60_000)
        assert clock.now_ms == 60_000

    run(scenario())


def test_a_held_gate_can_be_cancelled() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        clock.pause()
        waiter = asyncio.create_task(clock.gate(0))
        await settle()
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter

    run(scenario())


def test_step_before_the_first_gate_runs_step_zero() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        clock.pause()
        clock.step()
        passed: list[int] = []
        task = asyncio.create_task(timed_engine(clock, [0, 10, 20], passed))
        await until(lambda: passed == [0], "step 0")
        await settle()
        assert passed == [0]
        assert clock.state == ClockState(0, None, True, 1)
        clock.resume()
        await asyncio.wait_for(task, GENEROUS_S)
        assert passed == [0, 1, 2]

    run(scenario())


def test_step_while_running_finishes_the_step_under_way_and_holds() -> None:
    async def scenario() -> None:
        clock = VirtualClock(0.001)  # step 1 sleeps a long time (real seconds: 10,000)
        passed: list[int] = []
        task = asyncio.create_task(timed_engine(clock, [0, 10_000, 10_001], passed))
        await until(lambda: clock.state.step == 1 and passed == [0], "the engine to sleep in step 1")
        await settle()
        clock.step()
        clock.set_speed(None)
        await until(lambda: passed == [0, 1], "step 1 to finish")
        await settle()
        assert passed == [0, 1]  # held at gate 2
        assert clock.state == ClockState(10_000, None, True, 2)
        clock.resume()
        await asyncio.wait_for(task, GENEROUS_S)
        assert passed == [0, 1, 2]

    run(scenario())


def test_step_during_a_paused_sleep_lets_that_step_finish() -> None:
    async def scenario() -> None:
        clock = VirtualClock(0.001)
        passed: list[int] = []
        task = asyncio.create_task(timed_engine(clock, [5_000, 6_000], passed))
        await until(lambda: clock.state.step == 0, "the engine to sleep in step 0")
        clock.pause()
        clock.set_speed(None)
        await settle()
        assert passed == []  # the pause holds the sleep although the speed is max now
        clock.step()
        await until(lambda: passed == [0], "step 0 to finish")
        await settle()
        assert passed == [0]
        assert clock.state == ClockState(5_000, None, True, 1)
        clock.step()
        await asyncio.wait_for(task, GENEROUS_S)
        assert passed == [0, 1]
        assert clock.now_ms == 6_000

    run(scenario())


def test_run_to_the_gate_the_engine_holds_at_keeps_holding() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        clock.run_to(2)
        passed: list[int] = []
        task = asyncio.create_task(engine(clock, 4, passed))
        await until(lambda: clock.paused and clock.state.step == 2, "the engine to hold at gate 2")
        clock.run_to(2)
        await settle()
        assert passed == [0, 1]
        assert clock.paused
        clock.run_to(1)  # already past it: hold at once
        await settle()
        assert passed == [0, 1]
        clock.run_to(3)
        await until(lambda: passed == [0, 1, 2], "step 2")
        await settle()
        assert clock.paused and clock.state.step == 3
        clock.resume()
        await asyncio.wait_for(task, GENEROUS_S)
        assert passed == [0, 1, 2, 3]

    run(scenario())


def test_a_clock_outlives_its_event_loop() -> None:
    clock = VirtualClock(1000.0)

    async def once(target: int) -> None:
        clock.pause()
        waiter = asyncio.create_task(clock.gate(0))
        await settle()
        clock.resume()
        await waiter
        await clock.sleep_until(target)

    asyncio.run(once(10))
    asyncio.run(once(20))
    assert clock.now_ms == 20


def test_listeners_hear_gates_of_a_run() -> None:
    async def scenario() -> None:
        clock = VirtualClock(None)
        steps: list[int] = []
        clock.add_listener(lambda state: steps.append(state.step))
        await timed_engine(clock, [0, 5, 5], [])
        assert sorted(set(steps)) == [0, 1, 2]
        assert clock.step_index == 2

    run(scenario())
