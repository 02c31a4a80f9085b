"""`workbench show RUN`: a recorded run in the app, read-only.

RUN is a run folder (or its ``trace.jsonl``), a scenario's folder of runs
under ``--out``, a scenario file, or a scenario name: the latter three open the
scenario's latest run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.common import add_theme, open_app
from workbench.cli.edit import add_web, serve_web
from workbench.names import DEFAULT_OUT_DIR, SCENARIO_SUFFIXES
from workbench.usage import UsageError, path_arg

TRACE = "trace.jsonl"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN", help="a run folder, a scenario name or file (its latest run)")
    p.add_argument("--out", type=path_arg, default=DEFAULT_OUT_DIR, metavar="DIR",
                   help=f"where runs are looked up by scenario name (default {DEFAULT_OUT_DIR})")  # fmt: skip
    add_theme(p)
    add_web(p)


def run(args: argparse.Namespace) -> int:
    run_dir = find_run(args.run, args.out)
    if args.web:
        return serve_web(["show", str(run_dir), *(["--theme", args.theme] if args.theme else [])], args)
    return open_app(path=None, run_dir=run_dir, theme=args.theme)


def find_run(arg: str, out_dir: Path) -> Path:
    """The run folder ``arg`` names (see the module docstring); a clear usage error when there is none."""
    try:
        return _find_run(arg, out_dir)
    except OSError as exc:  # a name the file system refuses (too long, a symlink loop), an unreadable folder
        raise UsageError(f"{arg}: cannot be looked up: {exc.strerror or exc}") from None


def _find_run(arg: str, out_dir: Path) -> Path:
    path = Path(arg)
    if path.is_file() and path.name == TRACE:
        return path.parent
    if path.is_dir() and (path / TRACE).is_file():
        return path
    candidates = [path] if path.is_dir() else []
    name = _scenario_name(path) if path.is_file() and path.suffix.lower() in SCENARIO_SUFFIXES else arg
    candidates.append(out_dir / name)
    for folder in candidates:
        latest = latest_run(folder)
        if latest is not None:
            return latest
    raise UsageError(
        f"{arg}: no recorded run (looked for {TRACE} in {', '.join(str(c) for c in candidates)}); "
        "run the scenario first with `workbench run` (a skipped scenario records no run), or pass a run folder"
    )


def latest_run(folder: Path) -> Path | None:
    """The newest run folder below ``folder`` (``<profile>/<timestamp>-<pid>/trace.jsonl``), if any."""
    if not folder.is_dir():
        return None
    traces = [t for t in folder.glob(f"*/*/{TRACE}") if t.is_file()] + [t for t in folder.glob(f"*/{TRACE}")]
    if not traces:
        return None
    return max(traces, key=lambda t: t.stat().st_mtime).parent


def _scenario_name(path: Path) -> str:
    from workbench.scenario.loader import try_load

    result = try_load(path)
    return result.scenario.name if result.scenario is not None else path.stem
