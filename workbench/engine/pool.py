"""`workbench run -j N`: N forked workers, each playing one task at a time, results as lines of JSON.

Every worker is forked from the warm parent after the collection, so it imports nothing and finds
every compiled scenario already in memory; only a task's index goes down its pipe, and its result
comes back as one line of JSON. The parent hands a worker its next task as soon as its last result
arrives (in the order given: the costliest first), so no worker idles while tasks wait. This is
what :class:`concurrent.futures.ProcessPoolExecutor` did here, without its manager thread, queues,
feeder threads and pickling (about 50 ms of CPU time for 20 short scenarios, a tenth of the batch).

The parent runs no task itself: if it is killed (SIGKILL cannot be handled), the kernel tells each
worker (``PR_SET_PDEATHSIG``, see :func:`start_worker`), which ends its run and cleans up after it.

A worker can end while it runs a task without the parent's say: the out-of-memory killer, someone's
``kill`` of its pid. A signal that cancels a run (SIGINT, SIGTERM: it exits with 128 + the signal, see
:func:`interrupted_by`) interrupts the whole batch, as it would have without ``-j``. Any other end
(SIGKILL, a crash) loses that task only: ``on_lost`` reports it, what the worker's programs left
running is killed (the parent is a child subreaper while workers run, so a dead worker's orphans come
to it), and a new worker takes the tasks that wait.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import sys
import traceback
from collections.abc import Callable
from dataclasses import field
from typing import Any, NoReturn

from workbench.records import record
from workbench.terminal import descendants
from workbench.usage import Terminated, stop_signals

Task = Callable[[int], dict[str, Any]]
"""Runs in a worker: the task with this index, its result as a dict of JSON values."""


class WorkerDied(RuntimeError):
    """A worker ended, or raised, before it sent the result of its task."""


@record
class _Worker:
    pid: int
    tasks: int  # the parent's end of the pipe of task indices (-1: closed, no task will follow)
    results: int  # the parent's end of the pipe of results
    task: int | None = None
    pending: bytearray = field(default_factory=bytearray)
    reaped: bool = False  # waited for: its pid may be another process's now, never to be signalled


def run_forked(
    count: int,
    jobs: int,
    task: Task,
    on_result: Callable[[int, dict[str, Any]], None],
    start_worker: Callable[[], None],
    on_lost: Callable[[int, str], None],
) -> None:
    """Run tasks ``0 .. count - 1`` in ``jobs`` forked workers; ``on_result(index, result)`` runs in
    this process as each result comes back, ``on_lost(index, how)`` when a worker ended without one
    (``how``: `was killed by SIGKILL`...). ``start_worker`` runs first in each worker (its signals).

    If anything interrupts this process (Ctrl-C, :class:`~workbench.usage.Terminated`), each busy
    worker gets SIGINT, which cancels its run (a worker's run ends its programs and removes its
    workspace), and every worker is waited for before the exception goes on."""
    queue = list(range(count))
    queue.reverse()  # popped from the end: task 0 first
    workers: list[_Worker] = []
    adopting = descendants.subreaper(True)
    try:
        with selectors.DefaultSelector() as selector:

            def start() -> None:
                worker = _fork_worker(workers, task, start_worker)
                workers.append(worker)
                selector.register(worker.results, selectors.EVENT_READ, worker)
                _hand_out(worker, queue)

            for _ in range(min(jobs, count)):
                start()
            while any(w.task is not None for w in workers):
                for key, _events in selector.select():
                    worker = key.data
                    if worker.task is None:  # its pipe ended: it has no task left
                        selector.unregister(worker.results)
                        continue
                    results = _read_results(worker)
                    if results is None:  # it ended without the result of its task
                        selector.unregister(worker.results)
                        lost, worker.task = worker.task, None
                        how = _ended(worker)
                        if adopting:
                            descendants.kill_adopted(keep={w.pid for w in workers if not w.reaped})
                        on_lost(lost, how)
                        if queue:
                            start()
                        continue
                    for result in results:
                        index, worker.task = worker.task, None
                        assert index is not None
                        on_result(index, result)
                        _hand_out(worker, queue)
    except BaseException:
        for worker in workers:
            if worker.task is not None and not worker.reaped:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.pid, signal.SIGINT)
        raise
    finally:
        for worker in workers:
            _close(worker)
            if not worker.reaped:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(worker.pid, 0)
        if adopting:
            descendants.subreaper(False)


def _ended(worker: _Worker) -> str:
    """Reap a worker that closed its pipe with a task in hand and say how it ended; a run it cancelled
    on a signal (SIGINT, SIGTERM) interrupts the batch: KeyboardInterrupt, or Terminated for SIGTERM."""
    _close(worker)
    try:
        _, status = os.waitpid(worker.pid, 0)
    except ChildProcessError:
        status = 0
    worker.reaped = True
    code = os.waitstatus_to_exitcode(status)
    if code - 128 in stop_signals():
        raise Terminated(code - 128)
    if code == 128 + signal.SIGINT:
        raise KeyboardInterrupt()
    if code < 0:
        return f"was killed by {signal.Signals(-code).name}"
    return f"exited with {code}"


def interrupted_by(sig: int) -> NoReturn:
    """End a worker whose run a signal cancelled, so that the parent knows it (see :func:`_ended`)."""
    os._exit(128 + sig)


def _hand_out(worker: _Worker, queue: list[int]) -> None:
    if queue:
        worker.task = queue.pop()
        os.write(worker.tasks, b"%d\n" % worker.task)
    elif worker.tasks >= 0:
        os.close(worker.tasks)  # no more: the worker ends when it reads the end of the pipe
        worker.tasks = -1


def _read_results(worker: _Worker) -> list[dict[str, Any]] | None:
    """The results that came in whole (maybe none yet); None if the worker's pipe ended."""
    chunk = os.read(worker.results, 1 << 16)
    if not chunk:
        return None
    worker.pending += chunk
    lines = worker.pending.split(b"\n")
    worker.pending = bytearray(lines.pop())
    results = [json.loads(line) for line in lines]
    for result in results:
        if "_worker_error" in result:
            raise WorkerDied(f"a worker (pid {worker.pid}) failed:\n{result['_worker_error']}")
    return results


def _close(worker: _Worker) -> None:
    for fd in (worker.tasks, worker.results):
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
    worker.tasks = worker.results = -1


def _fork_worker(siblings: list[_Worker], task: Task, start_worker: Callable[[], None]) -> _Worker:
    tasks_read, tasks_write = os.pipe()
    results_read, results_write = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # nothing buffered here may be written twice by the worker
    pid = os.fork()
    if pid == 0:  # the worker: never returns
        _worker_main(
            tasks_read, results_write, [tasks_write, results_read, *_fds(siblings)], task, start_worker
        )
    os.close(tasks_read)
    os.close(results_write)
    return _Worker(pid, tasks_write, results_read)


def _fds(workers: list[_Worker]) -> list[int]:
    return [fd for w in workers for fd in (w.tasks, w.results) if fd >= 0]


def _worker_main(
    tasks: int, results: int, parents: list[int], task: Task, start_worker: Callable[[], None]
) -> NoReturn:
    """Play tasks until the task pipe ends; the parent's ends of every pipe are closed here, so
    that a worker's pipe ends when the parent closes it or dies."""
    code = 1
    try:
        start_worker()
        for fd in parents:
            os.close(fd)
        with os.fdopen(tasks, "rb") as incoming:
            for line in incoming:
                try:
                    encoded = json.dumps(task(int(line)))
                except Exception:
                    encoded = json.dumps({"_worker_error": traceback.format_exc()})
                _write_all(results, encoded.encode() + b"\n")
        code = 0
    finally:
        os._exit(code)  # never the parent's cleanup (atexit, finally blocks up its stack)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
