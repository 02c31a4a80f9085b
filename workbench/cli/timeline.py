"""`workbench timeline FILE`: the compiled schedule as a table (a Claudeless file: its rules)."""

from __future__ import annotations

import argparse
import sys

from workbench.usage import EXIT_INVALID, EXIT_OK, add_define, path_arg


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=path_arg, metavar="FILE")
    add_define(p)


def run(args: argparse.Namespace) -> int:
    from workbench.timeline.prepare import prepare
    from workbench.timeline.table import render_table

    prepared = prepare(args.file, defines=args.define)
    for d in prepared.diagnostics:
        print(d, file=sys.stderr)
    scenario, schedule = prepared.scenario, prepared.schedule
    if scenario is None or schedule is None:
        return EXIT_INVALID
    if scenario.format == "claudeless":
        from workbench.timeline.rules_table import rules_table

        sys.stdout.write(rules_table(scenario))
        return EXIT_OK
    sys.stdout.write(render_table(schedule))
    return EXIT_OK
