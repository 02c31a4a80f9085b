"""`workbench run PATH...`: find, select, run (in parallel) and report scenarios.

Parallel runs (`-j N`) use separate processes: each scenario gets its own
workspace, pty, control socket and run folder, so runs share nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from workbench.engine.report import Failure, RunReport, ScenarioResult
from workbench.engine.select import Shard, matches_k, parse_tags, take_shard
from workbench.scenario.diagnostics import Diagnostic
from workbench.scenario.loader import discover, display_name, try_load


@dataclass
class Selection:
    k: str | None = None
    tags: set[str] = field(default_factory=set)
    shard: Shard | None = None


@dataclass
class Candidate:
    path: Path
    name: str
    tags: tuple[str, ...]
    error: ScenarioResult | None = None
    diagnostics: tuple[Diagnostic, ...] = ()


def collect(paths: Sequence[Path], selection: Selection, defines: Sequence[str]) -> list[Candidate]:
    """Scenario files under ``paths`` that the selection keeps, in a stable order."""
    candidates: list[Candidate] = []
    for path in discover(paths):
        loaded = try_load(path, defines=defines)
        if loaded.scenario is not None:
            candidates.append(Candidate(path, loaded.scenario.name, loaded.scenario.tags))
            continue
        result = ScenarioResult(name=path.stem, file=display_name(path), status="error")
        for d in loaded.diagnostics:
            if d.severity.value == "error":
                result.failures.append(Failure(0, d.pos.line, "validation", d.message, d.pos.file))
        candidates.append(Candidate(path, path.stem, (), result, tuple(loaded.diagnostics)))
    kept = [
        c
        for c in candidates
        if (selection.k is None or matches_k(selection.k, f"{c.name} {display_name(c.path)}"))
        and (not selection.tags or selection.tags & set(c.tags))
    ]
    kept.sort(key=lambda c: (display_name(c.path), c.name))
    return take_shard(kept, selection.shard)


def _run_one(path: str, options: Any) -> dict[str, Any]:
    """Runs in a worker process: one scenario, one event loop."""
    from workbench.engine.runner import run_scenario

    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C cancels this run only
    try:
        result = asyncio.run(run_scenario(Path(path), options))
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    data = result.to_json()
    data["_diffs"] = [f.diff for f in result.failures]
    data["_files"] = [f.file for f in result.failures]
    data["_kept"] = result.kept_workspace
    data["_run_dir"] = result.run_dir
    data["_skip"] = result.skip_reason
    return data


def _ignore_sigint() -> None:
    """An idle worker ignores Ctrl-C; the parent passes it on to busy ones (see `_parallel`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _from_worker(data: dict[str, Any]) -> ScenarioResult:
    diffs, files = data.pop("_diffs"), data.pop("_files")
    kept, run_dir, skip = data.pop("_kept"), data.pop("_run_dir"), data.pop("_skip")
    result = ScenarioResult.from_json(data)
    for failure, diff, file in zip(result.failures, diffs, files, strict=False):
        failure.diff, failure.file = diff, file
    result.kept_workspace, result.run_dir, result.skip_reason = kept, run_dir, skip
    return result


class Console:
    """Progress and summary: a live line on a terminal, plain lines in CI."""

    def __init__(self, out: TextIO, total: int, live: bool) -> None:
        self.out = out
        self.total = total
        self.live = live
        self.done = 0

    def started(self, name: str) -> None:
        if self.live:
            self.out.write(f"\r\x1b[K[{self.done + 1}/{self.total}] running {name} …")
            self.out.flush()

    def finished(self, result: ScenarioResult) -> None:
        self.done += 1
        mark = {"passed": "PASSED", "failed": "FAILED", "error": "ERROR", "skipped": "SKIPPED"}[result.status]
        prefix = "\r\x1b[K" if self.live else ""
        virtual = f", {result.virtual_ms / 1000:.2f} s virtual" if result.virtual_ms else ""
        if result.skip_reason:
            virtual += f"; {result.skip_reason}"
        self.out.write(f"{prefix}{mark:8}{result.name}  ({result.duration_ms / 1000:.2f} s{virtual})\n")
        for shot in result.screenshots:  # a golden written is news: say where it went
            if shot.status in ("new", "updated"):
                self.out.write(f"  {shot.status} golden: {shot.golden}\n")
        if result.run_dir:
            self.out.write(f"  run folder: {result.run_dir}\n")
        self.out.flush()

    def summary(self, report: RunReport) -> None:
        failing = [r for r in report.results if r.status in ("failed", "error")]
        if failing:
            self.out.write("\n== failures ==\n")
        for r in failing:
            for f in r.failures:
                self.out.write(f"{f.file or r.file}:{f.line}: {f.kind}: {f.message}\n")
                if f.diff:
                    self.out.write(_indent(f.diff) + "\n")
            if r.kept_workspace:
                self.out.write(f"  workspace kept at {r.kept_workspace}\n")
            if r.run_dir:
                self.out.write(f"  trace and recording in {r.run_dir}\n")
        s = report.to_json()["summary"]
        self.out.write(
            f"\n{s['passed']} passed, {s['failed']} failed, {s['errors']} errors, {s['skipped']} skipped "
            f"in {report.duration_ms / 1000:.2f} s\n"
        )


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def run_batch(candidates: Sequence[Candidate], options: Any, jobs: int, console: Console) -> RunReport:
    start = time.monotonic()
    report = RunReport()
    runnable = [c for c in candidates if c.error is None]
    for c in candidates:
        if c.error is not None:
            report.results.append(c.error)
            console.finished(c.error)
    if jobs <= 1 or len(runnable) <= 1:
        report.results += _sequential(runnable, options, console)
    else:
        report.results += _parallel(runnable, options, jobs, console)
    order = {id(c): i for i, c in enumerate(candidates)}
    by_file = {display_name(c.path): order[id(c)] for c in candidates}
    report.results.sort(key=lambda r: by_file.get(r.file, 0))
    report.duration_ms = int((time.monotonic() - start) * 1000)
    return report


def _sequential(candidates: Iterable[Candidate], options: Any, console: Console) -> list[ScenarioResult]:
    from workbench.engine.runner import run_scenario

    async def all_of() -> list[ScenarioResult]:
        results = []
        for c in candidates:
            console.started(c.name)
            result = await run_scenario(c.path, options)
            console.finished(result)
            results.append(result)
        return results

    return asyncio.run(all_of())


def _parallel(
    candidates: Sequence[Candidate], options: Any, jobs: int, console: Console
) -> list[ScenarioResult]:
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    results: list[ScenarioResult] = []
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_ignore_sigint) as pool:
        futures: dict[Future[dict[str, Any]], Candidate] = {
            pool.submit(_run_one, str(c.path), options): c for c in candidates
        }
        try:
            for future in as_completed(futures):
                result = _from_worker(future.result())
                console.finished(result)
                results.append(result)
        except BaseException:
            # Ctrl-C reaches only this process: pass it on so each worker ends its
            # program and removes its workspace before the pool shuts down.
            for process in list(getattr(pool, "_processes", {}).values()):
                with contextlib.suppress(OSError):
                    os.kill(process.pid, signal.SIGINT)
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return results


def parse_selection(k: str | None, tags: str | None, shard: str | None) -> Selection:
    return Selection(k=k, tags=parse_tags(tags), shard=Shard.parse(shard) if shard else None)
