"""`workbench run [PATH...]`: run scenarios headless; exit 0 if all pass, 1 if any fails, 2 on bad input."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cli.common import (
    add_folders,
    add_mode_options,
    add_scenario_paths,
    check_html_output,
    check_lenient,
    check_masks,
    mode_option_values,
    scenario_files,
)
from workbench.names import DEFAULT_SCENARIOS_DIR
from workbench.usage import EXIT_INVALID, EXIT_OK, UsageError, add_define, check_output, path_arg, tags_arg

if TYPE_CHECKING:
    from workbench.engine.batch import Candidate, SafeOut, Selection
    from workbench.engine.report import RunReport, ScenarioResult


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_scenario_paths(p)
    p.add_argument(
        "--ci", action="store_true",
        help="never write goldens; plain output; a missing golden fails; "
             "an unknown key inside a known structure is an error (exit 2)",
    )  # fmt: skip
    p.add_argument(
        "--lenient", action="store_true", help="with --ci: unknown keys stay warnings, as without --ci"
    )
    p.add_argument("-v", "--verbose", action="store_true",
                   help="say how shell commands are confined here (the sandbox level; the JSON report has it too)")  # fmt: skip
    from workbench.engine.drivers import AGENT_MODE, DEFAULT_MODE, driver_summaries

    modes = driver_summaries()
    p.add_argument("--mode", choices=list(modes), metavar="MODE",
                   help=f"how the scenario is played (default: the scenario's `mode:`, else {DEFAULT_MODE}; "
                        f"{AGENT_MODE} when --agent is given): "
                        + "; ".join(f"{k}: {v}" for k, v in modes.items()))  # fmt: skip
    p.add_argument(
        "--speed", default="max", help="1 = real time, 4 = four times faster, max = no waiting (default)"
    )
    p.add_argument("--command", dest="program", metavar="CMD",
                   help="the program under test for every scenario, instead of its `command` (a shell-quoted "
                        "line; real-agent mode fills the same {base_url}, {openai_base_url}, {api_key}, "
                        "{workspace}, {prompt} placeholders)")  # fmt: skip
    p.add_argument("-k", dest="k", metavar="EXPR", help="select by name or path: words with and/or/not")
    p.add_argument("--tags", type=tags_arg, metavar="T,...", help="select scenarios with any of these tags")
    p.add_argument(
        "-j", "--jobs", type=int, default=1, metavar="N", help="run N scenarios in parallel processes"
    )
    p.add_argument("--shard", metavar="I/N", help="run the I-th of N deterministic shards (for CI matrices)")
    p.add_argument("--junit", type=path_arg, metavar="FILE", help="write JUnit XML")
    p.add_argument("--report", type=path_arg, metavar="FILE", help="write the JSON report")
    p.add_argument("--html", type=path_arg, metavar="DIR",
                   help="write the HTML report and trace viewer to DIR (DIR/index.html; opens from file://)")  # fmt: skip
    p.add_argument("--update-goldens", action="store_true", help="rewrite goldens that do not match")
    add_folders(p)
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="per scenario (default 120)")
    p.add_argument(
        "--mask", action="append", default=[], metavar="REGEX",
        help="blank out volatile screen text (timings, versions) in every screenshot; repeatable",
    )  # fmt: skip
    p.add_argument("--keep", action="store_true", help="keep every workspace (failed ones are always kept)")
    add_mode_options(p)
    add_define(p)


def run(args: argparse.Namespace) -> int:
    import gc

    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    gc.disable()  # until the batch starts, see _started
    try:
        return _run(args)
    finally:  # an in-process caller gets its collector back as it was
        if not frozen:  # (what the caller froze itself stays frozen: unfreeze cannot tell whose it is)
            gc.unfreeze()
        if enabled:
            gc.enable()
        else:
            gc.disable()


def _started() -> None:
    """The start-up (imports, the collection) is done. What it made lives to the end of the command:
    the cyclic collector walked it again and again during the start-up (about 10 ms of CPU), and
    frozen (``gc.freeze``) it is left out of every later collection, here and in the processes forked
    from here (the mock agents, the ``-j`` workers), whose collections would otherwise touch, and so
    copy, every page of it (about 20 ms of CPU on 20 short scenarios). Each run's own garbage is
    collected as before."""
    import gc

    gc.freeze()
    gc.enable()


def _run(args: argparse.Namespace) -> int:
    from workbench.clock import parse_speed
    from workbench.engine.batch import Console, SafeOut, collect, parse_selection, run_batch
    from workbench.engine.options import command_argv
    from workbench.engine.report import RunReport
    from workbench.engine.runner import RunOptions
    from workbench.engine.select import SelectionError

    try:
        speed = parse_speed(args.speed)
        selection = parse_selection(args.k, args.tags, args.shard)
    except (ValueError, SelectionError) as exc:
        raise UsageError(str(exc)) from None
    if args.jobs < 1:
        raise UsageError("-j must be at least 1")
    if not 0 < args.timeout < float("inf"):  # nan too
        raise UsageError(f"--timeout must be a positive number of seconds, got {args.timeout:g}")
    check_masks(args.mask)
    try:
        command = command_argv(args.program) if args.program is not None else ()
    except ValueError as exc:
        raise UsageError(f"--command {args.program!r}: {exc}") from None
    from workbench.engine.matrix import agent_list

    given = mode_option_values(args)
    agents = agent_list(given.get("agent"))  # `--agent a,b,c`: the cross-agent matrix
    chosen = _mode_options(args, given, agents) if args.mode is not None else {}
    if command and agents:
        raise UsageError(
            f"--command and --agent {','.join(agents)} both name the program under test; give one"
        )
    check_output(args.report, "--report")
    check_output(args.junit, "--junit", example="junit.xml")
    check_output(args.out, "--out", folder=True)
    check_html_output(args.html, out=args.out, report=args.report, junit=args.junit)
    check_output(args.goldens, "--goldens", folder=True, writes=not args.ci)
    if args.ci and args.update_goldens:
        raise UsageError("--ci never writes goldens; drop --update-goldens")
    check_lenient(args)
    paths = args.paths or [DEFAULT_SCENARIOS_DIR]
    _not_over_a_scenario(scenario_files(args.paths), report=args.report, junit=args.junit)
    candidates = collect(paths, selection, args.define, strict=args.ci and not args.lenient)
    if args.mode is None:  # the files' own mode when it takes the options given (see implied_mode)
        from workbench.engine.drivers import implied_mode

        args.mode = implied_mode(given, agents, {c.mode for c in candidates if c.mode})
        chosen = _mode_options(args, given, agents)
    if not candidates:
        return _nothing_to_run(args, paths, selection)
    for candidate in candidates:  # the warnings of every file, once; errors are in the failures
        for d in candidate.diagnostics:
            if d.severity.value == "warning":
                print(d, file=sys.stderr)
    from workbench.workspace import sandbox

    sandbox.start_probes()  # the sandbox level's probes run while the rest of the start-up does
    options = RunOptions(
        speed=speed, ci=args.ci, update_goldens=args.update_goldens, goldens_dir=args.goldens, out_dir=args.out,
        defines=tuple(args.define), timeout_s=args.timeout, keep=args.keep,
        masks=tuple(args.mask), mode=args.mode, mode_options=chosen, command=command,
    )  # fmt: skip
    from workbench import tempfolders

    if args.verbose:
        print(f"workbench: sandbox: {sandbox.LEVELS[sandbox.level()]}", file=sys.stderr)

    import tempfile

    from workbench.agent.control import socket_folders

    roots = [
        Path(tempfile.gettempdir()),
        *(Path(p) for p in socket_folders()),
    ]  # control sockets may live there
    swept = tempfolders.sweep(*roots)
    if swept:
        shown = ", ".join(str(p) for p in swept[:5]) + (
            f" and {len(swept) - 5} more" if len(swept) > 5 else ""
        )
        print(f"workbench: removed {len(swept)} temporary folder(s) left by runs that were killed: {shown}",
              file=sys.stderr)  # fmt: skip
    if len(agents) > 1:
        from workbench.engine.batch import matrix_pairs

        candidates = matrix_pairs(candidates, options, agents)
    console = Console(
        stdout := SafeOut(sys.stdout), len(candidates), live=sys.stdout.isatty() and not args.ci
    )
    _started()
    report = RunReport()
    from workbench.engine.batch import stops_deferred

    # A stop once the batch is over (while the summary is printed, temp folders swept) waits for the reports,
    # then ends the command as it would have; the batch itself is stopped at once (sigterm_as_ctrl_c).
    with stops_deferred():
        try:
            run_batch(candidates, options, args.jobs, console, report)
        except KeyboardInterrupt:  # a cancelled CI job: the reports say what finished, and what did not
            # a second signal while they are written: the first counts
            with contextlib.suppress(KeyboardInterrupt):
                _write_reports(args, report, candidates, stdout)
            raise
        finally:
            # what this run's own killed programs left (a mock agent's scratch folder)
            tempfolders.sweep(*roots)
        console.summary(report)
        written = _write_reports(args, report, candidates, stdout)
    return report.exit_code() if written else EXIT_INVALID


def _not_over_a_scenario(files: list[Path], **outputs: Path | None) -> None:
    """UsageError if an output file (``report=``, ``junit=``) is one of the scenario files the run reads:
    `run a.yaml --report a.yaml` replaced the scenario with its own report, after running it."""
    read = {f.resolve() for f in files}
    for name, path in outputs.items():
        if path is not None and path.resolve() in read:
            example = "junit.xml" if name == "junit" else "report.json"
            raise UsageError(f"--{name} {path}: is a scenario file this run reads, which the {name} would replace; "
                             f"give the report a name of its own, such as {example}")  # fmt: skip


def _mode_options(
    args: argparse.Namespace, given: dict[str, str | None], agents: list[str]
) -> dict[str, str]:
    """The options of the run's mode (``args.mode``), each agent of a matrix checked; a usage error names a
    flag the mode does not take or a value it does not allow."""
    from workbench.engine.drivers import ModeError, mode_options

    try:
        chosen = mode_options(args.mode, {**given, "agent": agents[0]} if agents else given)
        for agent in agents[1:]:
            mode_options(args.mode, {**given, "agent": agent})
    except ModeError as exc:
        raise UsageError(str(exc)) from None
    return chosen


def _nothing_to_run(args: argparse.Namespace, paths: list[Path], selection: Selection) -> int:
    """No scenario to run: invalid input (a `-k` or `--tags` that matches nothing, a folder without
    scenarios), unless the selection has scenarios and only this shard got none. A CI matrix of a
    fixed number of shards may well be wider than the scenarios it runs: that shard passes, with
    empty reports for the merge job."""
    from dataclasses import replace

    from workbench.engine.batch import collect
    from workbench.engine.report import RunReport
    from workbench.scenario.diagnostics import count

    if selection.shard is not None:
        selected = len(collect(paths, replace(selection, shard=None), args.define))
        if selected:
            shard = selection.shard
            print(f"shard {shard.index}/{shard.total} holds no scenario: {count(selected, 'scenario')} "
                  f"selected, dealt into {shard.total} shards")  # fmt: skip
            return EXIT_OK if _write_reports(args, RunReport(), []) else EXIT_INVALID
    print("workbench: no scenario matches the selection", file=sys.stderr)
    return EXIT_INVALID


def _write_reports(
    args: argparse.Namespace, report: RunReport, candidates: list[Candidate], stdout: SafeOut | None = None
) -> bool:
    """The files asked for (``--report``, ``--junit``, ``--html``), whole, a stop signal waiting for them
    (:func:`~workbench.engine.batch.stops_deferred`); False if one could not be written (said)."""
    from workbench.engine.batch import stops_deferred

    with stops_deferred():
        return _write_each(args, report, candidates, stdout)


def _write_each(
    args: argparse.Namespace, report: RunReport, candidates: list[Candidate], stdout: SafeOut | None
) -> bool:
    from workbench.engine.report import write_json_report, write_junit

    written = True
    for path, flag, write in (
        (args.report, "--report", write_json_report),
        (args.junit, "--junit", write_junit),
    ):
        try:
            if path:
                write(report, path)
        except OSError as exc:  # checked before the run: the disk filled up, or the folder went away
            print(f"workbench: error: {flag} {path}: cannot write it: {exc.strerror or exc}", file=sys.stderr)
            written = False
    if args.html:
        written = _write_html(report, candidates, args.html, args.out, stdout) and written
    return written


def _write_html(
    report: RunReport, candidates: list[Candidate], out: Path, runs: Path, stdout: SafeOut | None
) -> bool:
    """The HTML report of this run: each scenario's entry with its run folder and tags; False if it could not
    be written (the error is printed).

    A scenario the interruption stopped (a CI job cancelled at its timeout, often because that scenario
    hung) has no result, but its run folder under ``runs`` has the steps it recorded and its recording:
    its page shows them, which is where it hung.
    """
    import time

    from workbench.engine.batch import NOT_RUN_TO_ITS_END, SafeOut
    from workbench.report.collect import ScenarioInput
    from workbench.report.inputs import interrupted_run
    from workbench.report.write import ReportError, write_report

    since = time.time() - report.duration_ms / 1000 - 1  # the batch's start (a second early)

    def run_dir(r: ScenarioResult) -> Path | None:
        if r.run_dir:
            return Path(r.run_dir)
        if r.status == "skipped" and (r.skip_reason or "").startswith(NOT_RUN_TO_ITS_END):
            found = interrupted_run(runs, r.to_json(), since)
            return found.run_dir if found else None
        return None

    tags = {(c.path.resolve(), c.name): c.tags for c in candidates}
    items = [ScenarioInput(r.to_json(), run_dir(r), tags.get((Path(r.file).resolve(), r.name), ()),
                           reason=r.skip_reason or "")
             for r in report.results]  # fmt: skip
    try:
        index = write_report(items, out, duration_ms=report.duration_ms)
    except ReportError as exc:
        print(f"workbench: error: {exc}", file=sys.stderr)
        return False
    (stdout or SafeOut(sys.stdout)).write(f"HTML report: {index}\n")
    return True
