"""`workbench report merge|html`: one report from the reports of sharded runs; an HTML report from runs.

* `report merge REPORT... [--junit F] [--report F] [--html DIR]`: JSON reports (or
  folders of them) and HTML report folders, merged as if one machine had run
  every shard (:mod:`workbench.engine.merge`, :mod:`workbench.report.merge`);
* `report html RUN_OR_REPORT... -o DIR`: the HTML report of recorded runs (run
  folders, folders of run folders, JSON reports; see :mod:`workbench.report.inputs`).
"""

from __future__ import annotations

import argparse
import sys

from workbench.cli.common import check_html_output
from workbench.usage import EXIT_INVALID, check_output, path_arg


def add_arguments(p: argparse.ArgumentParser) -> None:
    from workbench.engine.merge import add_arguments as add_merge

    sub = p.add_subparsers(dest="report_command", metavar="SUBCOMMAND", required=True, parser_class=type(p))
    add_merge(sub.add_parser("merge", help="merge the JSON or HTML reports of sharded runs into one"))
    html = sub.add_parser(
        "html", help="write the HTML report of recorded runs (opens from file://, no server)"
    )
    html.add_argument("sources", nargs="+", type=path_arg, metavar="RUN_OR_REPORT",
                      help="a run folder, a folder of run folders (--out, e.g. target/tmp/workbench), "
                           "or a JSON report of `workbench run --report`")  # fmt: skip
    html.add_argument("-o", "--output", type=path_arg, required=True, metavar="DIR",
                      help="the report folder to write (DIR/index.html)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    if args.report_command == "html":
        return _html(args)
    return _merge(args)


def _fail(command: str, message: str) -> int:
    print(f"workbench report {command}: error: {message}", file=sys.stderr)
    return EXIT_INVALID


def _html(args: argparse.Namespace) -> int:
    from workbench.report.inputs import InputError, gather, tags_of
    from workbench.report.write import ReportError, write_report

    try:
        items = gather(args.sources)
        tags_of(items)
        index = write_report(items, args.output)
    except (InputError, ReportError) as exc:
        return _fail("html", str(exc))
    print(f"HTML report of {len(items)} scenario{'s' if len(items) != 1 else ''}: {index}")
    return 0


def _merge(args: argparse.Namespace) -> int:
    """JSON and HTML reports together: the HTML ones give their scenario entries to the JSON merge too."""
    from workbench.engine.merge import (
        MergeError,
        merge,
        parse_report,
        read_report,
        report_files,
        write_outputs,
    )
    from workbench.report.inputs import InputError, gather, tags_of
    from workbench.report.merge import is_html_report, merge_built
    from workbench.report.write import ReportError, read_report_dir, write

    check_output(args.report, "--report")
    check_output(args.junit, "--junit", example="junit.xml")
    # before anything is written: not a JSON report and JUnit, then an error
    check_html_output(args.html, report=args.report, junit=args.junit)
    html_dirs = [p for p in args.reports if is_html_report(p)]
    others = [p for p in args.reports if p not in html_dirs]
    try:
        json_files = report_files(others) if others else []
        shards = [read_report(p) for p in json_files]
        built = [read_report_dir(p) for p in html_dirs]
        for path, report in zip(html_dirs, built, strict=True):
            entries = [row["entry"] for row in report.summary["scenarios"]]
            data = {"version": 1, "summary": {"duration_ms": int(report.summary.get("duration_ms", 0))},
                    "scenarios": entries}  # fmt: skip
            shards.append(parse_report(path, data))
        merged = merge(shards)
    except (MergeError, ReportError) as exc:
        return _fail("merge", str(exc))
    code = write_outputs(merged, len(shards), args)
    if args.html:
        try:
            items = gather(json_files)
            tags_of(items)
            index = write(merge_built(built, items, duration_ms=merged.report.duration_ms), args.html)
        except (InputError, ReportError) as exc:
            return _fail("merge", str(exc))
        print(f"HTML report: {index}")
    return code
