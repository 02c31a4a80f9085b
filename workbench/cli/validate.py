"""`workbench validate [PATH...]`: diagnostics only; exit 0 when every file is valid, 2 otherwise.

``--ci`` applies the rules of ``run --ci`` (unknown keys inside known structures and
findings that cannot pass are errors; ``--lenient`` keeps them warnings), so the two
never disagree; without it, each warning that ``--ci`` would refuse says so."""

from __future__ import annotations

import argparse
import sys

from workbench.cli.common import add_scenario_paths, check_lenient, scenario_files
from workbench.usage import EXIT_INVALID, EXIT_OK, add_define


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_scenario_paths(p)
    add_define(p)
    p.add_argument("-q", "--quiet", action="store_true", help="print errors only, no warnings or summary")
    p.add_argument(
        "--ci", action="store_true", help="the rules of `run --ci`: what it refuses is an error here"
    )
    p.add_argument(
        "--lenient", action="store_true", help="with --ci: unknown keys stay warnings, as in `run`"
    )


def run(args: argparse.Namespace) -> int:
    from workbench.engine.batch import shared_goldens
    from workbench.engine.drivers import mode_diagnostic
    from workbench.scenario.diagnostics import count
    from workbench.scenario.loader import display_name
    from workbench.timeline.prepare import prepare

    check_lenient(args)
    files = scenario_files(args.paths)
    shots: dict[str, list[tuple[str, set[tuple[str, str]]]]] = {}
    strict = args.ci and not args.lenient
    valid = invalid = warnings = refused = 0
    for path in files:
        prepared = prepare(path, defines=args.define, strict=strict)
        # two files of one name share goldens, as `run` warns
        if prepared.scenario is not None and prepared.ok:
            prepared.diagnostics += shared_goldens(prepared.scenario, display_name(path), shots)
        if prepared.scenario is not None and (wrong_mode := mode_diagnostic(prepared.scenario)) is not None:
            prepared.diagnostics.append(wrong_mode)  # `run` refuses it: so does `validate`
        diagnostics, errors = prepared.diagnostics, prepared.errors
        for d in diagnostics:
            if d.severity.value == "error" or not args.quiet:
                note = " (an error with --ci)" if d.ci_error and not args.ci else ""
                print(f"{d}{note}", file=sys.stderr)
        warnings += len(diagnostics) - len(errors)
        refused += sum(1 for d in diagnostics if d.ci_error)
        if errors:
            invalid += 1
        else:
            valid += 1
    if not args.quiet:
        summary = (
            f"{valid} valid, {invalid} invalid, {count(warnings, 'warning')} ({count(len(files), 'file')})"
        )
        if refused and not args.ci:
            summary += f"; `run --ci` and `validate --ci` refuse {refused} of the warnings"
        print(summary)
    return EXIT_INVALID if invalid else EXIT_OK
