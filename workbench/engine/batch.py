"""`workbench run PATH...`: find, select, run (in parallel) and report scenarios.

Parallel runs (`-j N`) use separate processes: each scenario gets its own
workspace, pty, control socket and run folder, so runs share nothing.

Ctrl-C and SIGTERM (what CI runners send on cancel) end a batch the same way:
each running scenario is cancelled, so its programs are ended and its
workspace removed; what finished before is summarised (failed workspaces are
kept and printed), then :class:`KeyboardInterrupt` (or its subclass
:class:`~workbench.usage.Terminated`, exit 143) goes up to the command. A pool
worker's run is cancelled once by SIGINT or SIGTERM however many arrive (a
group-wide SIGTERM plus the parent's SIGINT must not cut its cleanup short),
and a worker gets SIGTERM if the parent dies (``PR_SET_PDEATHSIG``), so none is
left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Coroutine, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import field, replace
from pathlib import Path
from typing import Any, TextIO

from workbench.engine.loaded import keep as kept_loaded
from workbench.engine.report import Failure, RunReport, ScenarioResult, failure_text
from workbench.engine.select import Shard, matches_k, parse_tags, take_shard
from workbench.records import record
from workbench.scenario import model as m
from workbench.scenario.diagnostics import Diagnostic, count, printable
from workbench.scenario.loader import discover, display_name, readable
from workbench.timeline.prepare import prepare
from workbench.usage import Terminated, stop_signals


@record
class Selection:
    k: str | None = None
    tags: set[str] = field(default_factory=set)
    shard: Shard | None = None


@record
class Candidate:
    path: Path
    name: str
    tags: tuple[str, ...]
    error: ScenarioResult | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    cost: tuple[int, int] = (0, 0)
    """(real commands, steps): how long the run may take at ``--speed max``, see :func:`expected_cost`."""
    agent: str = ""
    """The agent of a matrix pair (:mod:`workbench.engine.matrix`): the run plays it, its result names it."""
    options: Any = None
    """Run options of this pair (the batch's otherwise)."""
    mode: str | None = None
    """The file's own ``mode:``."""


def expected_cost(scenario: m.Scenario) -> tuple[int, int]:
    """What a scenario's wall time depends on when scripted time is free (``--speed max``): the real
    commands the engine runs (``userCommand``, whose length no script states: it may sleep for
    seconds), then the number of steps. A parallel batch starts the costliest first, so a long run
    is not left for the end while the other workers sit idle."""
    return (sum(isinstance(e, m.UserCommand) for e in scenario.timeline), len(scenario.timeline))


def collect(
    paths: Sequence[Path], selection: Selection, defines: Sequence[str], *, strict: bool = False
) -> list[Candidate]:
    """Scenario files under ``paths`` that the selection keeps, in a stable order, with their warnings.

    ``strict`` (``run --ci``): unknown keys inside known structures are errors.
    """
    candidates: list[Candidate] = []
    shots: dict[str, list[tuple[str, set[tuple[str, str]]]]] = {}  # name -> (file, its goldens) so far
    for path in discover(paths):
        loaded = prepare(path, defines=defines, strict=strict)
        if loaded.ok and loaded.scenario is not None:
            kept_loaded(path, defines, loaded)  # the run takes it from there: the file is read once
            scenario = loaded.scenario
            warnings = tuple(loaded.diagnostics) + shared_goldens(scenario, display_name(path), shots)
            candidates.append(
                Candidate(
                    path,
                    scenario.name,
                    scenario.tags,
                    diagnostics=warnings,
                    cost=expected_cost(scenario),
                    mode=scenario.mode,
                )
            )
            continue
        result = ScenarioResult(name=readable(path.stem), file=display_name(path), status="error")
        for d in loaded.errors:
            result.failures.append(Failure(0, d.pos.line, "validation", d.message, d.pos.file, col=d.pos.col))
        name = loaded.scenario.name if loaded.scenario is not None else readable(path.stem)
        candidates.append(Candidate(path, name, (), result, tuple(loaded.diagnostics)))
    kept = [
        c
        for c in candidates
        if (selection.k is None or matches_k(selection.k, f"{c.name} {display_name(c.path)}"))
        and (not selection.tags or selection.tags & set(c.tags))
    ]
    kept.sort(key=lambda c: (display_name(c.path), c.name))
    return take_shard(kept, selection.shard)


def shared_goldens(
    scenario: m.Scenario, file: str, seen: dict[str, list[tuple[str, set[tuple[str, str]]]]]
) -> tuple[Diagnostic, ...]:
    """A warning when an earlier file has this scenario's name and a screenshot label of its terminal: the
    two share `<goldens>/<name>/<profile>/<label>.golden` and each compares with what the other wrote (a
    copied scenario whose `name` was not changed)."""
    from workbench.scenario.diagnostics import Pos, Severity

    mine = {(scenario.terminal.id, e.label) for e in scenario.timeline if isinstance(e, m.Screenshot)}
    earlier = seen.setdefault(scenario.name, [])
    clash = next((other for other, theirs in earlier if mine & theirs), None)
    earlier.append((file, mine))
    if clash is None:
        return ()
    at = Pos(file, scenario.pos.line if scenario.pos else 1, scenario.pos.col if scenario.pos else 1)
    message = (f"scenario `{scenario.name}` has the name of {clash} and a screenshot label of it: the two share "
               "their goldens, each compared with what the other wrote; give each scenario its own `name`")  # fmt: skip
    return (Diagnostic(at, message, Severity.WARNING),)


def _run_one(path: str, options: Any) -> dict[str, Any]:
    """Runs in a worker process: one scenario, one event loop.

    SIGINT (passed on by the parent) and SIGTERM (sent to the whole process
    group) cancel the run once, however many arrive: a second signal must not
    cut its cleanup short, as asyncio's own Ctrl-C handling would.
    """
    from workbench.engine.pool import interrupted_by
    from workbench.engine.runner import run_scenario

    cancelled_by: list[int] = []

    async def cancellable() -> ScenarioResult:
        task = asyncio.current_task()
        assert task is not None

        def cancel_once(sig: int) -> None:
            if not task.cancelling():
                cancelled_by.append(sig)
                task.cancel()

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, *stop_signals()):
            loop.add_signal_handler(sig, cancel_once, sig)
        return await run_scenario(Path(path), options)

    try:
        result = asyncio.run(cancellable())
    except asyncio.CancelledError:
        cancelled = True
    else:
        cancelled = False
    finally:
        _idle_signals()  # idle again: the parent decides
        if os.getppid() != _parent:  # the parent died (PR_SET_PDEATHSIG cancelled the run): nobody waits
            os._exit(1)
    if cancelled:  # the parent learns which signal it was: the batch is interrupted as by that signal
        interrupted_by(cancelled_by[0] if cancelled_by else signal.SIGINT)
    return _to_parent(result)


_parent = 0  # the worker's parent: when it is gone, nobody collects results


def _init_worker() -> None:
    """An idle worker ignores Ctrl-C and SIGTERM (the parent passes Ctrl-C on to busy ones, see
    `_parallel`, and ends idle ones), unless the parent has died: the kernel's SIGTERM for that
    (``PR_SET_PDEATHSIG``) cancels a busy worker's run, then ends the worker."""
    global _parent
    _parent = os.getppid()
    _idle_signals()
    parent_death_signal(signal.SIGTERM)
    if os.getppid() != _parent:  # the parent died before the line above
        os._exit(1)


def _idle_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in stop_signals():  # SIGHUP too: a closed terminal sends it to the whole group
        signal.signal(sig, _exit_if_orphaned)


def _exit_if_orphaned(signum: int, frame: Any) -> None:
    if os.getppid() != _parent:
        os._exit(1)  # idle: nothing of a run to clean up


def parent_death_signal(sig: int) -> bool:
    """Linux: have the kernel send ``sig`` to this process when its parent dies; False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    pr_set_pdeathsig = 1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(pr_set_pdeathsig, sig, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """While a batch runs in this (main) thread, SIGTERM and SIGHUP (:func:`~workbench.usage.stop_signals`)
    raise :class:`Terminated` as SIGINT raises KeyboardInterrupt, so the same cleanup runs; SIGINT raises it
    here even inside :func:`stops_deferred` (which `workbench run` holds from before the batch to the end of
    its reports, so that a stop once the batch is over waits for them), unless the command ignores it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _raise_terminated) for sig in stop_signals()}
    if signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def stops_deferred() -> Iterator[None]:
    """While the reports are written, Ctrl-C, SIGTERM and SIGHUP wait for the writes to end, then stop the
    command as they would have (KeyboardInterrupt, :class:`Terminated`): a CI runner's SIGTERM then
    left a report half done (an atomic write's temp file, the HTML report's stage folder) or none.
    A signal the command ignores (``nohup``, a background job's Ctrl-C) stays ignored. Inside it,
    :func:`sigterm_as_ctrl_c` makes them stop a batch at once again; the first that came counts."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    watched = [sig for sig in (signal.SIGINT, *stop_signals()) if signal.getsignal(sig) != signal.SIG_IGN]
    previous = {sig: signal.signal(sig, lambda signum, frame: caught.append(signum)) for sig in watched}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if caught and caught[0] == signal.SIGINT:
        raise KeyboardInterrupt()
    if caught:
        raise Terminated(caught[0])


# What a worker's result carries beyond its JSON report (console-only facts), each failure's and the run's.
_FAILURE_EXTRAS = ("diff", "file", "col")
_RESULT_EXTRAS = ("kept_workspace", "run_dir", "skip_reason", "first_line")


def _to_parent(result: ScenarioResult) -> dict[str, Any]:
    """A worker's result as one line of JSON: the report's fields and the console's (see ``_from_worker``)."""
    data = result.to_json()
    data["_failures"] = [{name: getattr(f, name) for name in _FAILURE_EXTRAS} for f in result.failures]
    data["_result"] = {name: getattr(result, name) for name in _RESULT_EXTRAS}
    return data


def _from_worker(data: dict[str, Any]) -> ScenarioResult:
    """The result ``_to_parent`` sent, whole: equal to the worker's."""
    extras, result_extras = data.pop("_failures"), data.pop("_result")
    result = ScenarioResult.from_json(data)
    for failure, extra in zip(result.failures, extras, strict=True):
        for name, value in extra.items():
            setattr(failure, name, value)
    for name, value in result_extras.items():
        setattr(result, name, value)
    return result


class SafeOut:
    """Standard output that a closed pipe (`workbench run | head -1`) or a full disk cannot stop: the first
    write that fails ends the output (said once on stderr, unless the reader just left: a closed pipe), and
    the run goes on to its reports and its own exit code. The write error used to end the command with
    exit 0 and no report (a closed pipe) or as a bug (exit 3, a full disk), whatever the scenarios did."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self.lost: OSError | None = None

    def write(self, text: str) -> None:
        self._do(self._out.write, text)

    def flush(self) -> None:
        self._do(self._out.flush)

    def _do(self, action: Any, *args: str) -> None:
        if self.lost is not None:
            return
        try:
            action(*args)
        except OSError as exc:
            self.lost = exc
            if not isinstance(exc, BrokenPipeError):
                print(f"workbench: standard output failed ({exc.strerror or exc}): nothing more is printed there; "
                      "the run goes on to its reports and exit code", file=sys.stderr)  # fmt: skip


class Console:
    """Progress and summary: a live line on a terminal, plain lines in CI."""

    def __init__(self, out: TextIO | SafeOut, total: int, live: bool) -> None:
        self.out = out if isinstance(out, SafeOut) else SafeOut(out)
        self.total = total
        self.live = live
        self.done = 0

    def _write(self, text: str) -> None:
        """Write ``text``, its control characters as escapes: names and messages come from scenario files."""
        self.out.write(printable(text))

    def started(self, name: str) -> None:
        if self.live:
            self.out.write("\r\x1b[K")
            self._write(f"[{self.done + 1}/{self.total}] running {name} …")
            self.out.flush()

    def finished(self, result: ScenarioResult) -> None:
        self.done += 1
        mark = {"passed": "PASSED", "failed": "FAILED", "error": "ERROR", "skipped": "SKIPPED"}[result.status]
        prefix = "\r\x1b[K" if self.live else ""
        virtual = f", {result.virtual_ms / 1000:.2f} s virtual" if result.virtual_ms else ""
        if result.skip_reason:
            virtual += f"; {result.skip_reason}"
        name = f"{result.name} [{result.agent}]" if result.agent else result.name
        self.out.write(prefix)
        self._write(f"{mark:8}{name}  ({result.duration_ms / 1000:.2f} s{virtual})\n")
        for shot in result.screenshots:  # a golden written is news: say where it went
            if shot.status in ("new", "updated"):
                self._write(f"  {shot.status} golden: {shot.golden}\n")
        for check in result.skipped_checks:  # not a pass: say that it was not checked
            self._write(f"  skipped check, line {check.line}: {check.reason}\n")
        for warning in result.warnings:
            self._write(f"  warning: {warning}\n")
        if result.run_dir and result.status != "skipped":
            self._write(f"  run folder: {result.run_dir}\n")
        self.out.flush()

    def summary(self, report: RunReport) -> None:
        failing = [r for r in report.results if r.status in ("failed", "error")]
        if failing:
            self.out.write("\n== failures ==\n")
        for r in failing:
            self._write(failure_text(r) + "\n")
        from workbench.engine.matrix import matrix_table

        table = matrix_table(report.results)
        if table:
            self.out.write("\n" + table)
        s = report.to_json()["summary"]
        self.out.write(
            f"\n{s['passed']} passed, {s['failed']} failed, {count(s['errors'], 'error')}, {s['skipped']} skipped "
            f"in {report.duration_ms / 1000:.2f} s\n"
        )


def matrix_pairs(candidates: Sequence[Candidate], options: Any, agents: Sequence[str]) -> list[Candidate]:
    """Each candidate once per agent (a scenario that does not load stays one error); an agent that is not
    installed makes skipped pairs that say how to install it."""
    from workbench.engine.matrix import missing, skipped, with_agent

    absent = {agent: missing(agent) for agent in agents}
    out: list[Candidate] = []
    for c in candidates:
        if c.error is not None:
            out.append(c)
            continue
        for agent in agents:
            reason = absent[agent]
            error = None
            if reason is not None:
                error = skipped(c.name, display_name(c.path), options.mode, agent, reason)
            out.append(replace(c, agent=agent, options=with_agent(options, agent), error=error))
    return out


def run_batch(
    candidates: Sequence[Candidate],
    options: Any,
    jobs: int,
    console: Console,
    report: RunReport | None = None,
) -> RunReport:
    """Run every candidate into ``report`` (a new one by default). On Ctrl-C or SIGTERM the candidates that
    did not finish are added as skipped (:func:`not_run`), what finished is summarised, and the interruption
    goes on up: a caller that passed ``report`` still writes it, so a cancelled CI job keeps its results."""
    start = time.monotonic()
    report = report if report is not None else RunReport()
    runnable = [c for c in candidates if c.error is None]
    for c in candidates:
        if c.error is not None:
            report.results.append(c.error)
            console.finished(c.error)
    order = {id(c): i for i, c in enumerate(candidates)}
    by_file = {(display_name(c.path), c.agent): order[id(c)] for c in candidates}
    try:
        with sigterm_as_ctrl_c():
            if jobs <= 1 or len(runnable) <= 1:
                _sequential(runnable, options, console, report.results)
            else:
                _parallel(runnable, options, jobs, console, report.results)
    except KeyboardInterrupt as stop:
        report.results += not_run(
            report,
            runnable,
            options,
            signal.Signals(stop.signum).name if isinstance(stop, Terminated) else "Ctrl-C",
        )
        report.results.sort(key=lambda r: by_file.get((r.file, r.agent), 0))
        report.duration_ms = int((time.monotonic() - start) * 1000)
        console.summary(report)  # the kept workspaces of runs that failed before the interruption
        raise
    report.results.sort(key=lambda r: by_file.get((r.file, r.agent), 0))
    report.duration_ms = int((time.monotonic() - start) * 1000)
    return report


NOT_RUN_TO_ITS_END = "not run to its end"  # the reason of a scenario an interruption left without a verdict


def lost_result(candidate: Candidate, options: Any, how: str) -> ScenarioResult:
    """The result of a scenario whose worker ended before it had one (`-j N`): an error that says how, so
    that a worker the out-of-memory killer or a stray ``kill`` ended costs its own scenario only."""
    file = display_name(candidate.path)
    message = (f"not run to its end: the worker process that ran it {how} (not by the workbench: the "
               "out-of-memory killer, or a signal from outside?); what its programs left running was ended")  # fmt: skip
    result = ScenarioResult(name=candidate.name, file=file, mode=(candidate.options or options).mode,
                            status="error", agent=candidate.agent)  # fmt: skip
    result.failures.append(Failure(0, 1, "process", message, file))
    return result


def not_run(
    report: RunReport, candidates: Iterable[Candidate], options: Any, signal_name: str
) -> list[ScenarioResult]:
    """A skipped result for each candidate the interruption (``signal_name``) left without one: running or
    not started yet, it has no verdict, and the report says so rather than leaving it out."""
    from workbench.engine.matrix import skipped

    finished = {(r.file, r.agent) for r in report.results}
    reason = f"{NOT_RUN_TO_ITS_END}: the batch was interrupted ({signal_name})"
    return [skipped(c.name, display_name(c.path), (c.options or options).mode, c.agent, reason)
            for c in candidates if (display_name(c.path), c.agent) not in finished]  # fmt: skip


def _sequential(
    candidates: Iterable[Candidate], options: Any, console: Console, results: list[ScenarioResult]
) -> None:
    from workbench.engine.runner import run_scenario

    terminated = 0  # the signal that did, if one did

    async def all_of() -> None:
        task = asyncio.current_task()
        assert task is not None

        def on_sigterm(sig: int) -> None:
            nonlocal terminated
            terminated = terminated or sig
            if not task.cancelling():  # once: a second SIGTERM must not cut the cleanup short
                task.cancel()  # as asyncio does for Ctrl-C: the run's cleanup ends its programs

        loop = asyncio.get_running_loop()
        for sig in stop_signals():
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, on_sigterm, sig)
        for c in candidates:
            console.started(c.name)
            result = await _threads_ended_after(run_scenario(c.path, c.options or options))
            result.agent = c.agent
            console.finished(result)
            results.append(result)

    try:
        asyncio.run(all_of())
    except asyncio.CancelledError:
        if terminated:
            raise Terminated(terminated) from None
        raise


def start_order(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The costliest first (:func:`expected_cost`), ties in their given order; the report is sorted
    by file afterwards, so the order runs start in shows only in how soon the batch ends."""
    return sorted(candidates, key=lambda c: (-c.cost[0], -c.cost[1]))


async def _threads_ended_after(run: Coroutine[Any, Any, ScenarioResult]) -> ScenarioResult:
    """Run one scenario with its own default executor (``asyncio.to_thread``), whose threads end
    with it: one loop plays the whole batch, and a thread left over from one scenario would stop
    every later one from forking its mock agent from this warm process (a new Python instead)."""
    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(thread_name_prefix="workbench-run")
    loop.set_default_executor(executor)
    finished = False
    try:
        result = await run
        finished = True
        return result
    finally:
        executor.shutdown(wait=finished)  # cancelled: don't hold the cleanup up for a command still running


def _parallel(
    candidates: Sequence[Candidate], options: Any, jobs: int, console: Console, results: list[ScenarioResult]
) -> None:
    from workbench.engine import fork, pool, runner  # noqa: F401  (import once here what each worker runs)
    from workbench.workspace import sandbox

    fork.warm()
    sandbox.level()  # probed once here (a bwrap and a fork), not by each worker and again for the report
    ordered = start_order(candidates)

    def play(index: int) -> dict[str, Any]:
        return _run_one(str(ordered[index].path), ordered[index].options or options)

    def finished(index: int, data: dict[str, Any]) -> None:
        result = _from_worker(data)
        result.agent = ordered[index].agent
        console.finished(result)
        results.append(result)

    def lost(index: int, how: str) -> None:
        finished(index, _to_parent(lost_result(ordered[index], options, how)))

    pool.run_forked(len(ordered), jobs, play, finished, _init_worker, lost)


def parse_selection(k: str | None, tags: str | None, shard: str | None) -> Selection:
    """The selection of `-k`, `--tags` and `--shard`; SelectionError for a malformed one, before anything is
    read (a -k expression is parsed whole whatever it is matched against)."""
    if k is not None:
        matches_k(k, "")
    return Selection(k=k, tags=parse_tags(tags), shard=None if shard is None else Shard.parse(shard))
