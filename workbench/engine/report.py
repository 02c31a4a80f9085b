"""Run results and the files CI reads: the JSON report and JUnit XML.

The shapes are the contract of docs/design.md §6: one entry per scenario with
its status, durations (wall and virtual), failures (step, line, kind, message)
and screenshots (label, golden, actual, status). JUnit has one `<testcase>` per
scenario with the first failure's message.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, field
from pathlib import Path
from typing import Any, Literal

from workbench.atomic import write_atomic
from workbench.records import record
from workbench.scenario.outcomes import FailureKind

# `cancelled`: stopped before its end (the app's Stop, Ctrl-C); written to the trace, never counted as passed.
Status = Literal["passed", "failed", "error", "skipped", "cancelled"]
ShotStatus = Literal["match", "mismatch", "missing", "new", "updated"]


@record
class Failure:
    step: int
    line: int
    kind: FailureKind
    message: str
    file: str = ""
    # a readable screenshot diff: the console, JUnit, and the JSON (when there is one), so that
    # `report merge` writes it into the merged JUnit too, where the goldens are not at hand
    diff: str = ""
    col: int = 0  # the column, when the failure is a diagnostic about a place (in the JSON when there is one)

    def to_json(self, scenario_file: str = "") -> dict[str, Any]:
        """The report's entry; its ``file`` is the failure's own (a `--define`, an included file) or else
        ``scenario_file``, so that a reader of the JSON or a merged report places it without the scenario."""
        data: dict[str, Any] = {
            "file": self.file or scenario_file,
            "step": self.step,
            "line": self.line,
            "kind": self.kind,
            "message": self.message,
        }
        if self.col:
            data["col"] = self.col
        if self.diff:
            data["diff"] = self.diff
        return data


@record
class SkippedCheck:
    """A check the scenario asks for that this runner cannot make (e.g. `assertVm`): never a pass.

    Listed in the scenario's report entry under ``skipped_checks`` (present only when there are some)."""

    step: int
    line: int
    check: str
    reason: str


@record
class Mismatch:
    """A text the run found different from the one the scenario has, that is not a failure: the agent's
    prompt without the scenario's input in it (the agent rewrote it, or the scenario drifted).

    Listed under ``mismatches`` (present only when there are some); the HTML report shows both texts
    side by side, diffed, at the step."""

    step: int
    line: int
    what: str  # what differs: `prompt`
    expected: str
    actual: str


@record
class ShotResult:
    label: str
    golden: str
    actual: str
    status: ShotStatus


@record
class ScenarioResult:
    name: str
    file: str
    mode: str = "mock-agent"
    status: Status = "passed"
    duration_ms: int = 0
    virtual_ms: int = 0
    failures: list[Failure] = field(default_factory=list)
    screenshots: list[ShotResult] = field(default_factory=list)
    run_dir: str | None = None
    kept_workspace: str | None = None
    # why it was skipped: console, JUnit, JSON (`reason` as the contract names it, and `skip_reason`, skipped only)
    skip_reason: str | None = None
    skipped_checks: list[SkippedCheck] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # worth saying, not a failure (`--drift warn`)
    first_line: int = 0  # the scenario's first line: where a failure of no step is placed (not in the JSON)
    # what the mock LLM server noted (how each scenario tool was mapped to the agent's); in the JSON when any
    notes: list[str] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)  # in the JSON when any
    agent: str = ""  # the agent of a cross-agent matrix (`run --agent a,b`); "" in the JSON without one

    def fail(self, failure: Failure) -> None:
        if failure.line < 1 and self.first_line:  # a report line `file:0:` helps nobody: name the scenario
            failure.line = self.first_line
            failure.message += " (this concerns the scenario as a whole, not one step)"
        self.failures.append(failure)
        if self.status == "passed":
            self.status = "failed"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "file": self.file,
            "mode": self.mode,
            "status": self.status,
            "reason": (self.skip_reason or "")
            if self.status == "skipped"
            else "",  # the contract's name for it
            "agent": self.agent,
            "duration_ms": self.duration_ms,
            "virtual_ms": self.virtual_ms,
            "failures": [f.to_json(self.file) for f in self.failures],
            "screenshots": [asdict(s) for s in self.screenshots],
        }
        if self.skipped_checks:
            data["skipped_checks"] = [asdict(c) for c in self.skipped_checks]
        if self.status == "skipped" and self.skip_reason:
            data["skip_reason"] = self.skip_reason
        if self.warnings:
            data["warnings"] = list(self.warnings)
        if self.notes:
            data["notes"] = list(self.notes)
        if self.mismatches:
            data["mismatches"] = [asdict(m) for m in self.mismatches]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScenarioResult:
        return cls(
            name=data["name"],
            file=data["file"],
            mode=data["mode"],
            status=data["status"],
            duration_ms=data["duration_ms"],
            virtual_ms=data["virtual_ms"],
            failures=[Failure(**f) for f in data["failures"]],
            screenshots=[ShotResult(**s) for s in data["screenshots"]],
            skipped_checks=[SkippedCheck(**c) for c in data.get("skipped_checks", [])],
            skip_reason=data.get("skip_reason"),
            warnings=list(data.get("warnings", [])),
            notes=list(data.get("notes", [])),
            mismatches=[Mismatch(**m) for m in data.get("mismatches", [])],
            agent=str(data.get("agent", "")),
        )


@record
class RunReport:
    results: list[ScenarioResult] = field(default_factory=list)
    duration_ms: int = 0

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def ok(self) -> bool:
        return all(r.status in ("passed", "skipped") for r in self.results)

    def exit_code(self) -> int:
        """What `workbench run` exits with for these results, and `report merge` for the merged ones, as if
        one machine had run every shard: 2 a scenario that did not load (invalid input), 3 an internal
        error (the failure names its crash file), 1 a scenario failed, else 0."""
        from workbench.names import EXIT_FAILED, EXIT_INTERNAL, EXIT_INVALID, EXIT_OK

        errors = [r for r in self.results if r.status == "error"]
        if any(f.kind == "validation" for r in errors for f in r.failures):
            return EXIT_INVALID
        if errors:
            return EXIT_INTERNAL
        return EXIT_OK if self.ok else EXIT_FAILED

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "summary": {
                "passed": self.count("passed"),
                "failed": self.count("failed"),
                "errors": self.count("error"),
                "skipped": self.count("skipped"),
                "duration_ms": self.duration_ms,
            },
            "scenarios": [r.to_json() for r in self.results],
            "sandbox": _sandbox_level(),
        } | self._matrix()

    def _matrix(self) -> dict[str, Any]:
        from workbench.engine.matrix import matrix_json

        matrix = matrix_json(self.results)
        return {"matrix": matrix} if matrix else {}

    def to_junit(self) -> str:
        import xml.etree.ElementTree as ET  # only a run that writes --junit needs it

        suite = ET.Element(
            "testsuite",
            name="workbench",
            tests=str(len(self.results)),
            failures=str(self.count("failed")),
            errors=str(self.count("error")),
            skipped=str(self.count("skipped")),
            time=f"{self.duration_ms / 1000:.3f}",
        )
        for r in self.results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=junit_class(r.file),
                name=f"{r.name} [{r.agent}]" if r.agent else r.name,
                time=f"{r.duration_ms / 1000:.3f}",
                file=r.file,
            )
            if r.status in ("failed", "error") and r.failures:
                first = r.failures[0]
                case.set("line", str(first.line))  # where a CI page annotates the file
                tag = "failure" if r.status == "failed" else "error"
                node = ET.SubElement(case, tag, message=first.message, type=first.kind)
                node.text = failure_text(r)
            elif r.status == "skipped":
                ET.SubElement(case, "skipped", message=r.skip_reason or "")
        ET.indent(suite)
        return xml_safe(ET.tostring(suite, encoding="unicode", xml_declaration=True)) + "\n"


# what XML 1.0 cannot hold, even escaped: C0 controls but tab and newlines, lone surrogates, U+FFFE/U+FFFF;
# written as the few characters it is, not as the negation of what XML allows, whose ranges up to U+10FFFF
# took `re` 3 ms to compile at every start of `workbench run`
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """``text`` with every character XML cannot hold written as its escape (``\\x1b``), as the messages
    quote program output: one such character in a message (an escape sequence a scenario quoted) made
    the whole JUnit file unreadable to CI, which then showed no test at all."""
    return _NOT_XML.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def junit_class(file: str) -> str:
    """A testcase's ``classname``: the scenario's path without its suffix, dotted (``scenarios.hello-agent``).
    CI viewers split a class name at its last dot into package and class: the path itself made every class
    ``yaml``."""
    stem, dot, _suffix = file.rpartition(".")
    return (stem if dot and "/" not in _suffix else file).replace("/", ".")


def failure_text(r: ScenarioResult) -> str:
    """A failed scenario's failures as the console prints them, and as JUnit's `<failure>` holds them: each
    at its place with its screenshot diff, then where its workspace and trace are, so that a CI page says
    what differs without the tool."""
    lines: list[str] = []
    for f in r.failures:
        where = f"{f.file or r.file}:{f.line}" + (f":{f.col}" if f.col else "")
        lines.append(f"{where}: {f.kind}: {f.message}")
        if f.diff:
            lines.extend("    " + line for line in f.diff.splitlines())
    if r.kept_workspace:
        lines.append(f"  workspace kept at {r.kept_workspace}")
    if r.run_dir:
        lines.append(f"  trace and recording in {r.run_dir}")
    return "\n".join(lines)


def write_json_report(report: RunReport, path: Path) -> None:
    write_atomic(path, json.dumps(report.to_json(), indent=2) + "\n")


def write_junit(report: RunReport, path: Path) -> None:
    write_atomic(path, report.to_junit())


def _sandbox_level() -> str:
    """How this run's shell commands were confined (workbench.workspace.sandbox)."""
    from workbench.workspace.sandbox import level

    return level()
