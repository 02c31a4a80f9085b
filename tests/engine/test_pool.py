"""The `-j N` pool: every task runs once in a forked worker, and a worker's failure is reported, not lost."""

from __future__ import annotations

import os
from typing import Any

import pytest

from workbench.engine.pool import WorkerDied, run_forked


def collect(count: int, jobs: int, task: Any) -> dict[int, dict[str, Any]]:
    results: dict[int, dict[str, Any]] = {}

    def on_result(index: int, result: dict[str, Any]) -> None:
        assert index not in results
        results[index] = result

    run_forked(count, jobs, task, on_result, lambda: None)
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


def test_a_worker_that_dies_mid_task_is_reported() -> None:
    def task(index: int) -> dict[str, Any]:
        if index == 1:
            os._exit(9)
        return {}

    with pytest.raises(WorkerDied, match="ended while it ran"):
        collect(3, 1, task)


def test_a_result_that_is_not_json_is_reported_with_its_traceback() -> None:
    with pytest.raises(WorkerDied, match="not JSON serializable"):
        collect(2, 1, lambda index: {"path": os})
