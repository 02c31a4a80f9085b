"""What `workbench report html` is given, turned into scenarios with their run folders.

* a run folder (it holds ``trace.jsonl``): one scenario, its result from the trace;
* a folder of run folders (``--out``, default ``target/tmp/workbench``): every run
  under it, the newest run of each scenario (run folders are named by time);
* a JSON report (``--report``): its scenarios; each gets the newest run folder of
  the same scenario found under the folders given, else under the run folders
  beside its screenshots or under the default ``--out``, else none (its page then
  shows the entry alone).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.engine.merge import MergeError, missing, read_report
from workbench.engine.trace import TRACE_FILE
from workbench.names import DEFAULT_OUT_DIR
from workbench.report.collect import ScenarioInput, read_trace
from workbench.report.write import is_report_dir
from workbench.scenario.names import folder_name


class InputError(ValueError):
    """An argument that is neither a run folder, a folder of runs, nor a JSON report."""


def _key(entry: dict[str, Any]) -> tuple[str, str, str]:
    return (str(entry.get("file", "")), str(entry.get("name", "")), str(entry.get("agent") or ""))


@dataclass(frozen=True)
class Run:
    """A run folder with the result and the tags its trace recorded."""

    run_dir: Path
    result: dict[str, Any]
    tags: tuple[str, ...]


def _runs_under(folder: Path) -> dict[tuple[str, str, str], Run]:
    """The newest run folder of each scenario under ``folder``."""
    found: dict[tuple[str, str, str], Run] = {}
    traces = [folder / TRACE_FILE] if (folder / TRACE_FILE).is_file() else sorted(folder.rglob(TRACE_FILE))
    for trace_path in traces:
        run_dir = trace_path.parent
        trace = read_trace(run_dir)
        if trace is None or not (trace.result or trace.header.get("scenario")):
            continue
        result = {
            k: v
            for k, v in (trace.result or unfinished(trace.header, len(trace.steps))).items()
            if k != "type"
        }
        tags = trace.header.get("tags")
        key = _key(result)
        if key not in found or found[key].run_dir.name < run_dir.name:
            found[key] = Run(run_dir, result, tuple(str(t) for t in tags) if isinstance(tags, list) else ())
    return found


def interrupted_run(out: Path, entry: dict[str, Any], since: float) -> Run | None:
    """The run folder the scenario of ``entry`` was writing when its batch was interrupted: its newest under
    ``out/<name>/``, if it was written after ``since`` (the batch's start; an older run is not this one)."""
    folder = out / folder_name(str(entry.get("name", "")))
    found = _runs_under(folder).get(_key(entry)) if folder.is_dir() else None
    return found if found and (found.run_dir / TRACE_FILE).stat().st_mtime >= since else None


def unfinished(header: dict[str, Any], steps: int) -> dict[str, Any]:
    """The result of a run that wrote no result (it was killed, or the machine went down): an error."""
    message = (f"the run ended after {steps} of its {header.get('steps', '?')} steps without writing its result "
               "(killed, or it crashed): what it recorded is shown")  # fmt: skip
    return {"name": str(header.get("scenario", "")), "file": str(header.get("file", "")), "mode": "",
            "status": "error", "duration_ms": 0, "virtual_ms": 0, "screenshots": [],
            "failures": [{"step": max(steps - 1, 0), "line": 0, "kind": "process", "message": message}]}  # fmt: skip


def gather(paths: Sequence[Path]) -> list[ScenarioInput]:
    """The scenarios named by ``paths``, in the order `workbench run` reports them (file, name, agent)."""
    reports: list[dict[str, Any]] = []
    runs: dict[tuple[str, str, str], Run] = {}
    for path in paths:
        if path.is_dir():
            under = _runs_under(path)
            if not under:
                if is_report_dir(path):  # what a CI artifact holds: the HTML report already made
                    raise InputError(f"{path}: is an HTML report, not runs; to copy it or join it with others, "
                                     f"use `workbench report merge {path} --html DIR`")  # fmt: skip
                raise InputError(f"{path}: no run folder (with {TRACE_FILE}) in this folder")
            for key, run in under.items():
                if key not in runs or runs[key].run_dir.name < run.run_dir.name:
                    runs[key] = run
        elif path.is_file():
            try:
                reports.extend(read_report(path).entries)
            except MergeError as exc:
                raise InputError(str(exc)) from None
        else:
            raise InputError(missing(path))
    items: dict[tuple[str, str, str], ScenarioInput] = {}
    for entry in reports:
        key = _key(entry)
        if key in items:
            raise InputError(f"scenario `{key[1]}` ({key[0]}) is in two of the reports given")
        found = runs.get(key) or _beside_screenshots(entry)
        items[key] = (
            ScenarioInput(dict(entry), found.run_dir, found.tags) if found else ScenarioInput(dict(entry))
        )
    if not reports:  # run folders alone: their own results
        for key, run in runs.items():
            items[key] = ScenarioInput(run.result, run.run_dir, run.tags)
    return [items[key] for key in sorted(items)]


def _beside_screenshots(entry: dict[str, Any]) -> Run | None:
    """A run folder of the entry's scenario next to its actual screenshots (``<out>/<name>/<profile>/``),
    else under the default ``--out`` (``target/tmp/workbench/<name>/``)."""
    folders = [DEFAULT_OUT_DIR / folder_name(str(entry.get("name", "")))]
    for shot in entry.get("screenshots") or []:
        actual = Path(str(shot.get("actual", "")))
        if actual.parent.name == "screenshots":
            folders.insert(0, actual.parent.parent)
    for folder in folders:
        found = _runs_under(folder).get(_key(entry)) if folder.is_dir() else None
        if found:
            return found
    return None


def tags_of(items: Iterable[ScenarioInput]) -> None:
    """Fill in the tags of scenarios whose trace did not say (older traces, no trace) from their files.

    The report entry has no tags; a file that does not load has none.
    """
    from workbench.scenario.loader import try_load

    cache: dict[str, tuple[str, ...]] = {}
    for item in items:
        if item.tags or (item.run_dir is not None and item.run_dir.is_dir()):
            continue  # the trace said (a trace of a scenario without tags has none to say)
        file = str(item.entry.get("file", ""))
        if file not in cache:
            loaded = try_load(Path(file)) if file and Path(file).is_file() else None
            cache[file] = tuple(loaded.scenario.tags) if loaded and loaded.scenario else ()
        item.tags = cache[file]
