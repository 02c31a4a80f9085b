"""Preparing a scenario: load, compile its schedule, collect every diagnostic. Written once.

The CLI (`run`, `validate`, `serve`), the app's editor, the batch and the runner
all need the same answer to "what does this file say, and is it playable": a
scenario and its schedule, or the diagnostics (``file:line:col``) that stop it,
plus warnings either way. :func:`prepare` never raises for bad input.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import field
from pathlib import Path

from workbench.records import record
from workbench.scenario.diagnostics import Diagnostic, Pos, Reporter, ScenarioError, Severity
from workbench.scenario.loader import discover, everything_found, load_scenario
from workbench.scenario.model import Scenario

from .compiler import Schedule, compile_schedule, early_inputs


@record
class Prepared:
    """A scenario ready to play, or why it is not."""

    path: Path
    scenario: Scenario | None = None
    schedule: Schedule | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    text: str | None = None  # the unsaved text it was prepared from (None: the file at ``path``)

    @property
    def ok(self) -> bool:
        return self.schedule is not None

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity != Severity.ERROR]


def prepare(
    path: Path, *, defines: Sequence[str] = (), text: str | None = None, strict: bool = False
) -> Prepared:
    """Load ``path`` (or unsaved ``text`` as if it were ``path``) and compile its schedule.

    ``strict`` (``run --ci``): unknown keys inside known structures are errors.
    """
    reporter = Reporter(strict=strict)
    try:
        scenario = load_scenario(path, defines=defines, reporter=reporter, text=text)
    except ScenarioError as exc:
        return Prepared(path, diagnostics=in_file_order(everything_found(reporter, exc)), text=text)
    except OSError as exc:
        return Prepared(
            path, diagnostics=[Diagnostic(Pos(str(path), 1, 1), f"cannot read: {exc.strerror or exc}")]
        )
    prepared = Prepared(path, scenario, diagnostics=in_file_order(reporter.diagnostics), text=text)
    try:
        prepared.schedule = compile_schedule(scenario)
        prepared.diagnostics += early_inputs(prepared.schedule)
    except ScenarioError as exc:
        prepared.diagnostics += exc.diagnostics
    return prepared


def in_file_order(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """``diagnostics`` by place in the file (a check that runs after the loader finds what is above)."""
    return sorted(diagnostics, key=lambda d: (d.pos.line, d.pos.col))


def prepare_all(paths: Iterable[Path], *, defines: Sequence[str] = ()) -> list[Prepared]:
    """Every scenario file under ``paths`` (folders expanded), prepared; a missing path is a diagnostic."""
    out: list[Prepared] = []
    for path in paths:
        if not path.exists():
            from workbench.usage import not_there

            out.append(Prepared(path, diagnostics=[Diagnostic(Pos(str(path), 1, 1), not_there(path))]))
            continue
        out += [prepare(p, defines=defines) for p in discover([path])]
    return out


def prepare_to_serve(paths: Sequence[Path], *, defines: Sequence[str], prog: str) -> list[Prepared] | None:
    """Every scenario under ``paths`` ready to serve, or None once the reasons are on stderr.

    The server commands (`serve llm`, `serve rest`) print every diagnostic, warnings
    included, and refuse to start when any scenario has an error or none was found.
    """
    prepared = prepare_all(paths, defines=defines)
    if not prepared:
        print(f"{prog}: error: no scenario files under " + ", ".join(map(str, paths)), file=sys.stderr)
        return None
    for p in prepared:
        for d in p.diagnostics:
            print(d, file=sys.stderr)
    if any(p.errors for p in prepared):
        return None
    return [p for p in prepared if p.schedule is not None]
