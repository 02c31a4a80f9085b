"""What `workbench report html` is given, turned into scenarios with their run folders.

* a run folder (it holds ``trace.jsonl``): one scenario, its result from the trace;
* a folder of run folders (``--out``, default ``target/tmp/workbench``): every run
  under it, the newest run of each scenario (run folders are named by time);
* a JSON report (``--report``): its scenarios; each gets the newest run folder of
  the same scenario found under the folders given, else under the run folders
  beside its screenshots, else none (its page then shows the entry alone).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from workbench.engine.merge import MergeError, read_report
from workbench.engine.trace import TRACE_FILE, Trace
from workbench.report.collect import ScenarioInput


class InputError(ValueError):
    """An argument that is neither a run folder, a folder of runs, nor a JSON report."""


def _key(entry: dict[str, Any]) -> tuple[str, str, str]:
    return (str(entry.get("file", "")), str(entry.get("name", "")), str(entry.get("agent") or ""))


def _runs_under(folder: Path) -> dict[tuple[str, str, str], tuple[Path, dict[str, Any]]]:
    """The newest run folder (and its result) of each scenario under ``folder``."""
    found: dict[tuple[str, str, str], tuple[Path, dict[str, Any]]] = {}
    traces = [folder / TRACE_FILE] if (folder / TRACE_FILE).is_file() else sorted(folder.rglob(TRACE_FILE))
    for trace_path in traces:
        run_dir = trace_path.parent
        try:
            trace = Trace.read(run_dir)
        except (OSError, ValueError):
            continue
        if trace.result is None:
            continue
        result = {k: v for k, v in trace.result.items() if k != "type"}
        key = _key(result)
        if key not in found or found[key][0].name < run_dir.name:
            found[key] = (run_dir, result)
    return found


def gather(paths: Sequence[Path]) -> list[ScenarioInput]:
    """The scenarios named by ``paths``, in the order `workbench run` reports them (file, name, agent)."""
    reports: list[dict[str, Any]] = []
    runs: dict[tuple[str, str, str], tuple[Path, dict[str, Any]]] = {}
    for path in paths:
        if path.is_dir():
            under = _runs_under(path)
            if not under:
                raise InputError(f"{path}: no run folder (with {TRACE_FILE}) in this folder")
            for key, value in under.items():
                if key not in runs or runs[key][0].name < value[0].name:
                    runs[key] = value
        elif path.is_file():
            try:
                reports.extend(read_report(path).entries)
            except MergeError as exc:
                raise InputError(str(exc)) from None
        else:
            raise InputError(f"{path}: no such file or folder")
    items: dict[tuple[str, str, str], ScenarioInput] = {}
    for entry in reports:
        key = _key(entry)
        if key in items:
            raise InputError(f"scenario `{key[1]}` ({key[0]}) is in two of the reports given")
        found = runs.get(key) or _beside_screenshots(entry)
        items[key] = ScenarioInput(dict(entry), found[0] if found else None)
    if not reports:  # run folders alone: their own results
        for key, (run_dir, result) in runs.items():
            items[key] = ScenarioInput(result, run_dir)
    return [items[key] for key in sorted(items)]


def _beside_screenshots(entry: dict[str, Any]) -> tuple[Path, dict[str, Any]] | None:
    """A run folder of the entry's scenario next to its actual screenshots (``<out>/<name>/<profile>/``)."""
    for shot in entry.get("screenshots") or []:
        actual = Path(str(shot.get("actual", "")))
        if actual.parent.name == "screenshots" and actual.parent.parent.is_dir():
            found = _runs_under(actual.parent.parent).get(_key(entry))
            if found:
                return found
    return None


def tags_of(items: Iterable[ScenarioInput]) -> None:
    """Fill in each scenario's tags from its file (the report entry has none); files that do not load have none."""
    from workbench.scenario.loader import try_load

    cache: dict[str, tuple[str, ...]] = {}
    for item in items:
        file = str(item.entry.get("file", ""))
        if file not in cache:
            loaded = try_load(Path(file)) if file and Path(file).is_file() else None
            cache[file] = tuple(loaded.scenario.tags) if loaded and loaded.scenario else ()
        item.tags = cache[file]
