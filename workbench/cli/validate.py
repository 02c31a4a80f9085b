"""`workbench validate [PATH...]`: diagnostics only; exit 0 when every file is valid, 2 otherwise."""

from __future__ import annotations

import argparse
import sys

from workbench.cli.common import add_define, add_scenario_paths, scenario_files
from workbench.usage import EXIT_INVALID, EXIT_OK


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_scenario_paths(p)
    add_define(p)
    p.add_argument("-q", "--quiet", action="store_true", help="print errors only, no warnings or summary")


def run(args: argparse.Namespace) -> int:
    from workbench.scenario.diagnostics import count
    from workbench.timeline.prepare import prepare

    files = scenario_files(args.paths)
    valid = invalid = warnings = 0
    for path in files:
        prepared = prepare(path, defines=args.define)
        diagnostics, errors = prepared.diagnostics, prepared.errors
        for d in diagnostics:
            if d.severity.value == "error" or not args.quiet:
                print(d, file=sys.stderr)
        warnings += len(diagnostics) - len(errors)
        if errors:
            invalid += 1
        else:
            valid += 1
    if not args.quiet:
        print(f"{valid} valid, {invalid} invalid, {count(warnings, 'warning')} ({count(len(files), 'file')})")
    return EXIT_INVALID if invalid else EXIT_OK
