"""The `workbench` command line.

Exit codes, for every command: 0 success; 1 a scenario failed; 2 invalid input
(a scenario, a config, a flag) with diagnostics on stderr; 3 internal error (a
bug: the traceback goes to a file whose path is printed).

Start-up must stay fast (`workbench --help` well under 200 ms), so this module
imports only the standard library at the top; each command imports what it needs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_INVALID, EXIT_INTERNAL = 0, 1, 2, 3


class UsageError(Exception):
    """A bad flag or argument: reported like a diagnostic, exit 2."""


class UsageParser(argparse.ArgumentParser):
    """argparse that exits 2 (invalid input) on a bad flag, as every command of the workbench does."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID)


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(
        prog="workbench",
        description="Deterministic end-to-end tests for coding agents: scenarios, a real terminal, golden screens.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=UsageParser)

    validate = sub.add_parser("validate", help="check scenario files and print diagnostics")
    validate.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="scenario files or folders")
    _add_define(validate)
    validate.add_argument(
        "-q", "--quiet", action="store_true", help="print errors only, no warnings or summary"
    )

    sub.add_parser("schema", help="print the JSON Schema of the YAML scenario format")

    run = sub.add_parser("run", help="run scenarios headless; exit 0 if all pass, 1 if any fails")
    run.add_argument("paths", nargs="*", type=Path, metavar="PATH", default=[Path("scenarios")])
    run.add_argument(
        "--ci", action="store_true", help="never write goldens; plain output; a missing golden fails"
    )
    run.add_argument(
        "--mode",
        default="mock-agent",
        choices=["mock-agent", "real-agent"],
        help="how the scenario is played",
    )
    run.add_argument("--agent", metavar="NAME",
                     help="real-agent mode: the agent preset (claude-code, codex, pi); "
                          "else the scenario's `command` with {base_url} placeholders")  # fmt: skip
    run.add_argument("--agent-ui", choices=["tui", "print"], default="tui",
                     help="real-agent mode: the agent's TUI (default) or its print mode")  # fmt: skip
    run.add_argument(
        "--speed", default="max", help="1 = real time, 4 = four times faster, max = no waiting (default)"
    )
    run.add_argument("-k", dest="k", metavar="EXPR", help="select by name or path: words with and/or/not")
    run.add_argument("--tags", metavar="T,...", help="select scenarios with any of these tags")
    run.add_argument(
        "-j", "--jobs", type=int, default=1, metavar="N", help="run N scenarios in parallel processes"
    )
    run.add_argument(
        "--shard", metavar="I/N", help="run the I-th of N deterministic shards (for CI matrices)"
    )
    run.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    run.add_argument("--report", type=Path, metavar="FILE", help="write the JSON report")
    run.add_argument("--update-goldens", action="store_true", help="rewrite goldens that do not match")
    run.add_argument(
        "--goldens", type=Path, default=Path("screenshots"), metavar="DIR", help="default ./screenshots"
    )
    run.add_argument(
        "--out", type=Path, default=Path("target/tmp/workbench"), metavar="DIR", help="run folders"
    )
    run.add_argument("--timeout", type=float, default=120.0, metavar="S", help="per scenario (default 120)")
    run.add_argument(
        "--mask", action="append", default=[], metavar="REGEX",
        help="blank out volatile screen text (timings, versions) in every screenshot; repeatable",
    )  # fmt: skip
    run.add_argument("--keep", action="store_true", help="keep every workspace (failed ones are always kept)")
    run.add_argument(
        "--checkpoint-cmd", metavar="CMD", help="a shell command the mock agent runs after each tool"
    )
    _add_define(run)

    agent = sub.add_parser(
        "mock-agent", help="play a scenario's agent steps in this terminal", add_help=False
    )
    agent.add_argument("rest", nargs=argparse.REMAINDER)

    serve = sub.add_parser(
        "serve",
        help="serve scenarios over HTTP: `serve llm` plays the model for a real agent",
        add_help=False,
    )
    serve.add_argument("kind", choices=["llm"], metavar="llm", help="the server to start")
    serve.add_argument("rest", nargs=argparse.REMAINDER)

    edit = sub.add_parser("edit", help="open the app on a scenario file or folder (also: workbench [PATH])")
    edit.add_argument("path", nargs="?", type=Path, default=Path("scenarios"), metavar="PATH",
                      help="a scenario file (created on save if new) or a folder (default ./scenarios)")  # fmt: skip
    edit.add_argument(
        "--goldens", type=Path, default=Path("screenshots"), metavar="DIR", help="default ./screenshots"
    )
    edit.add_argument(
        "--out", type=Path, default=Path("target/tmp/workbench"), metavar="DIR", help="run folders"
    )
    _add_theme(edit)

    show = sub.add_parser("show", help="open a recorded run folder (its trace.jsonl) in the app, read-only")
    show.add_argument("run", type=Path, metavar="RUN", help="a run folder or its trace.jsonl")
    _add_theme(show)

    timeline = sub.add_parser("timeline", help="print the compiled schedule of a scenario as a table")
    timeline.add_argument("file", type=Path, metavar="FILE")
    _add_define(timeline)
    return parser


def _add_theme(p: argparse.ArgumentParser) -> None:
    p.add_argument("--theme", metavar="NAME",
                   help="workbench-dark (default), workbench-light, workbench-high-contrast, or a Textual theme")  # fmt: skip


def _add_define(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--define", "-D", action="append", default=[], metavar="K=V",
        help="a symbol for `rules` conditions (also from AH_SCENARIO_DEFINES=K=V,...)",
    )  # fmt: skip


def _version() -> str:
    from workbench import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in _COMMANDS and not argv[0].startswith("-"):
        argv.insert(0, "edit")  # `workbench PATH` opens the app on PATH
    elif not argv and sys.stdin.isatty() and sys.stdout.isatty():
        argv = ["edit"]  # `workbench` in a terminal opens the app on ./scenarios; elsewhere it prints help
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    try:
        return int(_COMMANDS[args.command](args))
    except UsageError as exc:
        print(f"workbench: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("workbench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception:  # a bug: never a bare traceback in the user's face
        return _internal_error()


def _internal_error() -> int:
    from workbench.crash import write_crash_report

    exc = sys.exc_info()[1]
    assert exc is not None
    path = write_crash_report(exc)
    print(f"workbench: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
    print(f"workbench: this is a bug; the traceback is in {path}", file=sys.stderr)
    return EXIT_INTERNAL


# --------------------------------------------------------------------------- commands


def _cmd_validate(args: argparse.Namespace) -> int:
    from workbench.scenario.loader import discover, try_load
    from workbench.timeline import compile_schedule

    files = _discover(discover, args.paths)
    valid = invalid = warnings = 0
    for path in files:
        result = try_load(path, defines=args.define)
        diagnostics = list(result.diagnostics)
        if result.scenario is not None:
            from workbench.scenario.diagnostics import ScenarioError

            try:
                compile_schedule(result.scenario)
            except ScenarioError as exc:
                diagnostics += exc.diagnostics
        errors = [d for d in diagnostics if d.severity.value == "error"]
        for d in diagnostics:
            if d.severity.value == "error" or not args.quiet:
                print(d, file=sys.stderr)
        warnings += len(diagnostics) - len(errors)
        if errors:
            invalid += 1
        else:
            valid += 1
    if not args.quiet:
        print(f"{valid} valid, {invalid} invalid, {warnings} warnings ({len(files)} files)")
    return EXIT_INVALID if invalid else EXIT_OK


def _discover(discover: object, paths: list[Path]) -> list[Path]:
    missing = [p for p in paths if not p.exists()]
    for p in missing:
        print(f"{p}:1:1: error: file not found", file=sys.stderr)
    if missing:
        raise SystemExit(EXIT_INVALID)
    files = list(discover(paths))  # type: ignore[operator]
    if not files:
        raise UsageError(
            "no scenario files (*.yaml, *.yml, *.json, *.toml) under " + ", ".join(map(str, paths))
        )
    return files


def _cmd_schema(args: argparse.Namespace) -> int:
    import json

    from workbench.scenario.schema import scenario_schema

    print(json.dumps(scenario_schema(), indent=2))
    return EXIT_OK


def _cmd_timeline(args: argparse.Namespace) -> int:
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


def _cmd_run(args: argparse.Namespace) -> int:
    from workbench.clock import parse_speed
    from workbench.engine.batch import Console, collect, parse_selection, run_batch
    from workbench.engine.report import write_json_report, write_junit
    from workbench.engine.runner import RunOptions
    from workbench.engine.select import SelectionError
    from workbench.scenario.loader import discover

    try:
        speed = parse_speed(args.speed)
        selection = parse_selection(args.k, args.tags, args.shard)
    except (ValueError, SelectionError) as exc:
        raise UsageError(str(exc)) from None
    if args.jobs < 1:
        raise UsageError("-j must be at least 1")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    import re

    for mask in args.mask:
        try:
            re.compile(mask)
        except re.error as exc:
            raise UsageError(f"--mask {mask!r} is not a valid regular expression: {exc}") from None
    if args.agent is not None:
        from workbench.llm.presets import PRESETS

        if args.mode != "real-agent":
            raise UsageError("--agent needs --mode real-agent")
        if args.agent not in PRESETS:
            raise UsageError(f"unknown agent preset `{args.agent}`; known: {', '.join(PRESETS)}")
    if args.ci and args.update_goldens:
        raise UsageError("--ci never writes goldens; drop --update-goldens")
    _discover(discover, args.paths)
    candidates = collect(args.paths, selection, args.define)
    if not candidates:
        print("workbench: no scenario matches the selection", file=sys.stderr)
        return EXIT_INVALID
    for candidate in candidates:
        for d in candidate.diagnostics:
            print(d, file=sys.stderr)
    options = RunOptions(
        speed=speed, ci=args.ci, update_goldens=args.update_goldens, goldens_dir=args.goldens, out_dir=args.out,
        defines=tuple(args.define), timeout_s=args.timeout, keep=args.keep, checkpoint_cmd=args.checkpoint_cmd, masks=tuple(args.mask),
        mode=args.mode, agent=args.agent, agent_ui=args.agent_ui,
    )  # fmt: skip
    console = Console(sys.stdout, len(candidates), live=sys.stdout.isatty() and not args.ci)
    report = run_batch(candidates, options, args.jobs, console)
    console.summary(report)
    if args.report:
        write_json_report(report, args.report)
    if args.junit:
        write_junit(report, args.junit)
    if any(r.status == "error" and any(f.kind == "validation" for f in r.failures) for r in report.results):
        return EXIT_INVALID
    return EXIT_OK if report.ok else EXIT_FAILED


def _cmd_mock_agent(args: argparse.Namespace) -> int:
    from workbench.agent.mock_agent import main as agent_main

    return agent_main(args.rest)


def _cmd_serve(args: argparse.Namespace) -> int:
    from workbench.llm import serve_llm_main

    return serve_llm_main(list(args.rest))


def _open_app(**kwargs: object) -> int:
    # The app is loaded by name: headless modules never import Textual or `workbench.app`
    # (DESIGN.md section 7, checked by import-linter and tests/test_architecture.py).
    import importlib

    app = importlib.import_module("workbench." + "app")
    return int(app.main(**kwargs))


def _cmd_edit(args: argparse.Namespace) -> int:
    path: Path = args.path
    if not path.exists() and (path.suffix.lower() not in (".yaml", ".yml", ".json", ".toml")):
        raise UsageError(
            f"{path}: no such file or folder (a new scenario needs a .yaml, .json or .toml name)"
        )
    return _open_app(path=path, goldens_dir=args.goldens, out_dir=args.out, theme=args.theme)


def _cmd_show(args: argparse.Namespace) -> int:
    run: Path = args.run
    trace = run / "trace.jsonl" if run.is_dir() else run
    if not trace.is_file():
        raise UsageError(f"{run}: not a run folder (no trace.jsonl)")
    return _open_app(path=None, run_dir=run, theme=args.theme)


_COMMANDS = {
    "edit": _cmd_edit,
    "show": _cmd_show,
    "serve": _cmd_serve,
    "run": _cmd_run,
    "mock-agent": _cmd_mock_agent,
    "validate": _cmd_validate,
    "schema": _cmd_schema,
    "timeline": _cmd_timeline,
}
