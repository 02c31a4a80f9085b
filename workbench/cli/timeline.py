"""`workbench timeline FILE`: the compiled schedule as a table (a Claudeless file: its rules)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.cli.common import add_define
from workbench.usage import EXIT_INVALID, EXIT_OK


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, metavar="FILE")
    add_define(p)


def run(args: argparse.Namespace) -> int:
    from workbench.scenario.diagnostics import Reporter, ScenarioError
    from workbench.scenario.loader import load_scenario
    from workbench.timeline import compile_schedule
    from workbench.timeline.table import render_table

    reporter = Reporter()
    try:
        scenario = load_scenario(args.file, defines=args.define, reporter=reporter)
        schedule = compile_schedule(scenario)
    except ScenarioError as exc:
        for d in [*reporter.warnings, *exc.diagnostics]:
            print(d, file=sys.stderr)
        return EXIT_INVALID
    for d in reporter.warnings:
        print(d, file=sys.stderr)
    if scenario.format == "claudeless":
        from workbench.timeline.rules_table import rules_table

        sys.stdout.write(rules_table(scenario))
        return EXIT_OK
    sys.stdout.write(render_table(schedule))
    return EXIT_OK
