"""The `-j N` pool: every task runs once in a forked worker, and a worker's failure is reported, not lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.terminal.helpers import alive
from workbench.engine.batch import _from_worker, _to_parent
from workbench.engine.pool import WorkerDied, interrupted_by, run_forked
from workbench.engine.report import Failure, ScenarioResult, ShotResult, ShotStatus, SkippedCheck, Status
from workbench.scenario.outcomes import FailureKind
from workbench.usage import Terminated


def collect(count: int, jobs: int, task: Any) -> dict[int, dict[str, Any]]:
    results: dict[int, dict[str, Any]] = {}

    def on_result(index: int, result: dict[str, Any]) -> None:
        assert index not in results
        results[index] = result

    def on_lost(index: int, how: str) -> None:
        assert index not in results
        results[index] = {"lost": how}

    run_forked(count, jobs, task, on_result, lambda: None, on_lost)
    return results


def test_each_task_runs_once_in_a_worker_and_its_result_comes_back_whole() -> None:
    parent = os.getpid()
    big = "x" * 200_000  # more than a pipe holds: the result arrives in pieces

    def task(index: int) -> dict[str, Any]:
        return {"index": index, "pid": os.getpid(), "ppid": os.getppid(), "big": big if index == 3 else ""}

    results = collect(9, 2, task)
    assert sorted(results) == list(range(9))
    assert all(r["index"] == i for i, r in results.items())
    assert results[3]["big"] == big
    pids = {r["pid"] for r in results.values()}
    assert parent not in pids and len(pids) <= 2
    assert {r["ppid"] for r in results.values()} == {parent}


def test_more_workers_than_tasks_starts_only_as_many_as_there_are_tasks() -> None:
    results = collect(1, 4, lambda index: {"pid": os.getpid()})
    assert list(results) == [0]


def test_a_task_that_raises_is_reported_with_its_traceback() -> None:
    def task(index: int) -> dict[str, Any]:
        if index == 2:
            raise ValueError("the third task is broken")
        return {}

    with pytest.raises(WorkerDied, match="ValueError: the third task is broken"):
        collect(4, 2, task)


def test_a_worker_that_dies_mid_task_loses_that_task_only_and_a_new_worker_takes_the_rest() -> None:
    """It was an internal error ("this is a bug") that cancelled every other scenario: an out-of-memory
    kill or a stray `kill` of a worker is no bug of ours, and costs its own scenario only."""

    def task(index: int) -> dict[str, Any]:
        if index == 1:
            os._exit(9)
        if index == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return {"pid": os.getpid()}

    results = collect(5, 1, task)
    assert results[1] == {"lost": "exited with 9"} and results[2] == {"lost": "was killed by SIGKILL"}
    assert results[0]["pid"] != results[3]["pid"] == results[4]["pid"]  # a new worker after each that died


def test_what_a_killed_worker_started_is_ended_also_what_left_its_group() -> None:
    """A killed worker's program under test ignores SIGHUP (the pty's end) and outlived it, with its own
    children: the parent adopts them (a subreaper) and ends them."""
    pids: list[int] = []
    read, write = os.pipe()

    def task(index: int) -> dict[str, Any]:
        if index == 0:
            child = subprocess.Popen(
                ["sh", "-c", "trap '' HUP TERM; sleep 300 & (setsid sleep 301 &); echo $!; wait"],
                stdout=write, start_new_session=True,
            )  # fmt: skip
            os.write(write, b"%d\n" % child.pid)
            time.sleep(0.5)  # its children started (a slow machine: they are found however late)
            os.kill(os.getpid(), signal.SIGKILL)
        return {}

    results = collect(2, 1, task)
    os.close(write)
    with os.fdopen(read) as started:
        pids = [int(line) for line in started.read().split()]
    assert results[0] == {"lost": "was killed by SIGKILL"} and results[1] == {}
    assert len(pids) == 2 and all(not alive(pid) for pid in pids)
    below = [p for p in os.listdir("/proc") if p.isdigit() and _parent(int(p)) == os.getpid()]
    assert below == []  # nothing adopted is left, not even a zombie


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return 0


@pytest.mark.parametrize(
    ("sig", "raised"), [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)]
)
def test_a_worker_whose_run_a_signal_cancelled_interrupts_the_batch_as_that_signal(
    sig: int, raised: type[BaseException]
) -> None:
    def task(index: int) -> dict[str, Any]:
        interrupted_by(sig)

    with pytest.raises(raised) as caught:
        collect(3, 1, task)
    assert type(caught.value) is raised


def test_a_result_that_is_not_json_is_reported_with_its_traceback() -> None:
    with pytest.raises(WorkerDied, match="not JSON serializable"):
        collect(2, 1, lambda index: {"path": os})


_text = st.text(max_size=12)
_failures = st.builds(
    Failure,
    step=st.integers(-1, 99),
    line=st.integers(0, 999),
    kind=st.sampled_from(get_args(FailureKind)),
    message=_text,
    file=_text,
    diff=_text,
    col=st.integers(0, 200),
)
_results = st.builds(
    ScenarioResult,
    name=_text,
    file=_text,
    mode=_text,
    status=st.sampled_from(get_args(Status)),
    duration_ms=st.integers(0, 10**6),
    virtual_ms=st.integers(0, 10**6),
    failures=st.lists(_failures, max_size=3),
    screenshots=st.lists(
        st.builds(
            ShotResult, label=_text, golden=_text, actual=_text, status=st.sampled_from(get_args(ShotStatus))
        ),
        max_size=2,
    ),
    run_dir=st.none() | _text,
    kept_workspace=st.none() | _text,
    skip_reason=st.none() | _text,
    skipped_checks=st.lists(
        st.builds(SkippedCheck, st.integers(0, 9), st.integers(0, 99), _text, _text), max_size=2
    ),
    warnings=st.lists(_text, max_size=2),
    first_line=st.integers(0, 99),
    notes=st.lists(_text, max_size=2),
    agent=_text,
)


@given(_results)
def test_a_workers_result_reaches_the_parent_whole(result: ScenarioResult) -> None:
    """What a `-j` worker sends is one line of JSON; the parent's result equals the worker's, console facts
    (a failure's column, diff and file, the kept workspace, the skip reason) included."""
    line = json.dumps(_to_parent(result))
    assert "\n" not in line
    assert _from_worker(json.loads(line)) == result
