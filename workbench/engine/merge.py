"""`workbench report merge`: one report from the reports of a sharded run.

A CI matrix runs `workbench run --shard I/N --report shard-I.json` on N machines;
the merge job downloads every shard's report and makes one JSON report and one
JUnit file from them, as if one machine had run everything (Playwright's
`merge-reports` does the same for its blobs).

Rules, chosen so that a mistake in the matrix cannot hide a scenario:

* a report is read whole and checked against the report shape; a file that is
  not a report is invalid input naming the file and the first wrong field;
* a folder stands for every `*.json` file under it (CI artifacts are often
  downloaded as one folder per shard);
* the same scenario (file and name) in two reports means the shards overlap:
  invalid input naming both reports, never a silent double count;
* scenarios are ordered by file and name, as `workbench run` orders them;
* the merged duration is the longest shard's: the shards ran side by side.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from workbench.atomic import write_atomic
from workbench.engine.report import RunReport, ScenarioResult, ShotStatus, Status
from workbench.scenario.diagnostics import count, nearest
from workbench.scenario.outcomes import FailureKind
from workbench.usage import path_arg

STATUSES: tuple[str, ...] = get_args(Status)
KINDS: tuple[str, ...] = get_args(FailureKind)
SHOT_STATUSES: tuple[str, ...] = get_args(ShotStatus)


class MergeError(ValueError):
    """A report that cannot be merged: not found, not a report, or overlapping another."""


@dataclass(frozen=True)
class ShardReport:
    path: Path
    duration_ms: int
    results: tuple[ScenarioResult, ...]
    entries: tuple[
        dict[str, Any], ...
    ]  # the scenario entries as written, fields this version does not know kept


@dataclass
class Merged:
    """The merged report: results for the summary and JUnit, entries (verbatim) for the JSON."""

    report: RunReport
    entries: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {**self.report.to_json(), "scenarios": self.entries}


def report_files(paths: Iterable[Path]) -> list[Path]:
    """The report files named by ``paths``: files as given, folders as their `*.json` files."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.json") if p.is_file())
            if not found:
                raise MergeError(f"{path}: the folder holds no *.json report")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise MergeError(missing(path))
    return files


def missing(path: Path) -> str:
    """Why ``path``, neither a file nor a folder, is no report: it is not there, or it is a pipe or a device
    (which were said not to be there)."""
    if path.exists():
        return f"{path}: neither a file nor a folder (a pipe or a device): give a report file or a folder of them"
    return f"{path}: no such file or folder"


def read_report(path: Path) -> ShardReport:
    """One shard's report, checked against the report shape; a wrong field is named at its line and column."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except UnicodeDecodeError:
        raise MergeError(f"{path}: not a UTF-8 text file, so not a workbench report") from None
    except json.JSONDecodeError as exc:
        raise MergeError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    except ValueError as exc:  # an integer past Python's digit limit
        raise MergeError(f"{path}: not a workbench report: {exc}") from None
    except OSError as exc:
        raise MergeError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return _parse(path, data)
    except _WrongField as wrong:
        raise MergeError(f"{path}:{_place(text, path, wrong.at)}: {wrong.message}") from None


def parse_report(path: Path, data: Any) -> ShardReport:
    """A report already read (``path`` names it in messages), checked against the report shape."""
    try:
        return _parse(path, data)
    except _WrongField as wrong:
        raise MergeError(f"{path}: {wrong.message}") from None


_MISSING: Any = object()
"""What a field that is not there reads as (JSON's ``null`` is None, a value of the wrong kind)."""

Where = tuple[str | int, ...]
"""A field's place in a report: keys and indices from the top (``("scenarios", 0, "status")``)."""


class _WrongField(Exception):
    """A field of a report that is missing or of the wrong kind, at ``at``."""

    def __init__(self, at: Where, message: str) -> None:
        super().__init__(message)
        self.at = at
        self.message = message


def _place(text: str, path: Path, at: Where) -> str:
    """``line:col`` of the field at ``at`` in a report's ``text`` (of the object that lacks it, when it is
    missing), from the scenario loader's positions; read again only when a report is wrong."""
    from workbench.scenario.diagnostics import ScenarioError
    from workbench.scenario.source import PList, PMap, parse_json

    try:
        node: Any = parse_json(text, str(path))
    except ScenarioError:  # pragma: no cover - json read it, so the loader's reader does too
        return "1:1"
    pos = node.pos if isinstance(node, PMap | PList) else None
    for step in at:
        if isinstance(node, PMap) and isinstance(step, str) and step in node:
            pos, node = node.at_value(step), node[step]
        elif isinstance(node, PList) and isinstance(step, int) and 0 <= step < len(node):
            pos, node = node.at(step), node[step]
        else:
            break
    return f"{pos.line}:{pos.col}" if pos is not None else "1:1"


def _name(at: Where) -> str:
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in at).lstrip(".")


def _parse(path: Path, data: Any) -> ShardReport:
    _expect((), data, dict)
    if "version" not in data:
        raise _WrongField(
            (),
            '`version` is missing: a workbench report has `"version": 1` (as `workbench run --report` writes)',
        )
    if data["version"] != 1 or isinstance(data["version"], bool):
        raise _WrongField(
            ("version",),
            f"`version` is {json.dumps(data['version'])[:40]}: this workbench reads reports of version 1",
        )
    _expect(("summary",), data.get("summary", _MISSING), dict)
    duration = data["summary"].get("duration_ms", _MISSING)
    _expect(("summary", "duration_ms"), duration, int)
    _expect(("scenarios",), data.get("scenarios", _MISSING), list)
    results = tuple(_scenario(i, entry) for i, entry in enumerate(data["scenarios"]))
    return ShardReport(path, int(duration), results, tuple(data["scenarios"]))


def _scenario(index: int, entry: Any) -> ScenarioResult:
    where: Where = ("scenarios", index)
    _expect(where, entry, dict)
    for key, kind in (("name", str), ("file", str), ("mode", str), ("status", str), ("duration_ms", int),
                      ("virtual_ms", int), ("failures", list), ("screenshots", list)):  # fmt: skip
        _expect((*where, key), entry.get(key, _MISSING), kind)
    _one_of((*where, "status"), entry["status"], STATUSES)
    for n, failure in enumerate(entry["failures"]):
        at: Where = (*where, "failures", n)
        _expect(at, failure, dict)
        for key, kind in (("step", int), ("line", int), ("kind", str), ("message", str)):
            _expect((*at, key), failure.get(key, _MISSING), kind)
        _one_of((*at, "kind"), failure["kind"], KINDS)
        for key in ("diff", "file"):
            if key in failure:
                _expect((*at, key), failure[key], str)
        if "col" in failure:
            _expect((*at, "col"), failure["col"], int)
    for n, shot in enumerate(entry["screenshots"]):
        at = (*where, "screenshots", n)
        _expect(at, shot, dict)
        for key in ("label", "golden", "actual", "status"):
            _expect((*at, key), shot.get(key, _MISSING), str)
        _one_of((*at, "status"), shot["status"], SHOT_STATUSES)
    for key in ("reason", "skip_reason", "agent"):
        if key in entry:
            _expect((*where, key), entry[key], str)
    known = {k: entry[k] for k in ("name", "file", "mode", "status", "duration_ms", "virtual_ms", "skip_reason",
                                   "agent") if k in entry}  # fmt: skip
    if entry["status"] == "skipped" and not known.get("skip_reason") and entry.get("reason"):
        known["skip_reason"] = entry["reason"]  # the contract's name for it, from a report that has only that
    known["failures"] = [{k: f[k] for k in ("step", "line", "col", "kind", "message", "diff", "file") if k in f}
                         for f in entry["failures"]]  # fmt: skip
    known["screenshots"] = [
        {k: s[k] for k in ("label", "golden", "actual", "status")} for s in entry["screenshots"]
    ]
    return ScenarioResult.from_json(known)  # for the summary and JUnit; the JSON keeps the entry itself


def _expect(at: Where, value: Any, kind: type) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = {dict: "an object", list: "a list", str: "a string", int: "an integer"}
        what = f"`{_name(at)}`" if at else "the report"
        if value is _MISSING:
            raise _WrongField(at, f"{what} is missing: it must be {names[kind]}")
        raise _WrongField(
            at, f"{what} must be {names[kind]}, got {type(value).__name__} {json.dumps(value)[:40]}"
        )


def _one_of(at: Where, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        close = nearest(value, allowed)
        hint = f" (did you mean {close!r}?)" if close else ""
        raise _WrongField(at, f"`{_name(at)}` is {value!r}{hint}; allowed: {', '.join(allowed)}")


def merge(shards: Sequence[ShardReport]) -> Merged:
    """One report holding every shard's scenarios (see the module docstring for the rules)."""
    seen: dict[tuple[str, str, str], Path] = {}
    pairs: list[tuple[ScenarioResult, dict[str, Any]]] = []
    for shard in shards:
        for result, entry in zip(shard.results, shard.entries, strict=True):
            key = (result.file, result.name, result.agent)
            if key in seen:
                agent = f" with agent {result.agent}" if result.agent else ""
                raise MergeError(
                    f"scenario `{result.name}` ({result.file}){agent} is in both {seen[key]} and {shard.path}: "
                    "the shards overlap (give each run the same N in --shard I/N)"
                )
            seen[key] = shard.path
            pairs.append((result, entry))
    pairs.sort(key=lambda pair: (pair[0].file, pair[0].name, pair[0].agent))
    report = RunReport([r for r, _ in pairs], max((s.duration_ms for s in shards), default=0))
    return Merged(report, [e for _, e in pairs])


def merge_files(paths: Iterable[Path]) -> Merged:
    return merge([read_report(p) for p in report_files(paths)])


def summary_line(report: RunReport, shards: int) -> str:
    s = report.to_json()["summary"]
    return (
        f"merged {count(shards, 'report')}: {count(len(report.results), 'scenario')}, "
        f"{s['passed']} passed, {s['failed']} failed, {count(s['errors'], 'error')}, {s['skipped']} skipped"
    )


# --------------------------------------------------------------------------- the command


def add_arguments(merge_parser: argparse.ArgumentParser) -> None:
    """The arguments of `workbench report merge` (``merge_parser`` is its own parser)."""
    merge_parser.add_argument("reports", nargs="+", type=path_arg, metavar="REPORT",
                              help="JSON reports of `workbench run --report` (a folder: its *.json files), "
                                   "or HTML report folders of `workbench run --html`")  # fmt: skip
    merge_parser.add_argument("--junit", type=path_arg, metavar="FILE", help="write the merged JUnit XML")
    merge_parser.add_argument("--report", type=path_arg, metavar="FILE", help="write the merged JSON report")
    merge_parser.add_argument(
        "--html", type=path_arg, metavar="DIR", help="write the merged HTML report folder"
    )


def write_outputs(merged: Merged, shards: int, args: argparse.Namespace) -> int:
    """Print the failures and the summary, write --report and --junit; the exit code `workbench run` would
    have given for all of them (:meth:`RunReport.exit_code`)."""
    from workbench.engine.report import failure_text, write_junit

    report = merged.report
    for result in report.results:
        if result.status in ("failed", "error") and result.failures:
            print(failure_text(result))  # as the shard's console printed them, screenshot diffs included
    print(summary_line(report, shards))
    if args.report:
        write_atomic(args.report, json.dumps(merged.to_json(), indent=2) + "\n")
    if args.junit:
        write_junit(report, args.junit)
    return report.exit_code()


def run(args: argparse.Namespace) -> int:
    """Exit as `workbench run` would have for every merged scenario (:meth:`RunReport.exit_code`), 2 on a bad
    report."""
    try:
        files = report_files(args.reports)
        merged = merge([read_report(p) for p in files])
    except MergeError as exc:
        print(f"workbench report merge: error: {exc}", file=sys.stderr)
        return 2
    return write_outputs(merged, len(files), args)
