"""Pieces several commands share: common options, finding scenario files, opening the app."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.names import DEFAULT_GOLDENS_DIR, DEFAULT_OUT_DIR, DEFAULT_SCENARIOS_DIR
from workbench.usage import EXIT_INVALID, UsageError, check_output, not_there, path_arg, path_exists

DEFAULT_SCENARIOS = DEFAULT_SCENARIOS_DIR


def add_folders(p: argparse.ArgumentParser) -> None:
    """``--goldens`` and ``--out``, with the defaults of :mod:`workbench.names`."""
    p.add_argument("--goldens", type=path_arg, default=DEFAULT_GOLDENS_DIR, metavar="DIR",
                   help=f"default ./{DEFAULT_GOLDENS_DIR}")  # fmt: skip
    p.add_argument("--out", type=path_arg, default=DEFAULT_OUT_DIR, metavar="DIR", help="run folders")


class StoreWithLazyHelp(argparse.Action):
    """argparse's ``store``, whose help text is made only when a help is printed: listing an option's
    choices imports them (``--agent``'s, the agent registry), which a run without ``--help`` does not need."""

    def __init__(self, *args: Any, describe: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._describe = describe

    @property
    def help(self) -> str:
        return self._describe()

    @help.setter
    def help(self, _value: str | None) -> None:
        pass  # argparse.Action.__init__ sets it; the text comes from ``describe``

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: Any = None,
    ) -> None:
        setattr(namespace, self.dest, values)


def add_mode_options(p: argparse.ArgumentParser) -> None:
    """One flag per option the modes declare (`workbench.engine.drivers`), with what it means in each mode."""
    from workbench.engine.drivers import flag_help, mode_flags

    for takers in mode_flags().values():
        option = takers[0][1]
        p.add_argument(option.flag, dest=option.dest, metavar=option.metavar, action=StoreWithLazyHelp,
                       describe=functools.partial(flag_help, takers))  # fmt: skip


def mode_option_values(args: argparse.Namespace) -> dict[str, str | None]:
    """The values of the flags :func:`add_mode_options` added (None: not given)."""
    from workbench.engine.drivers import mode_flags

    return {name: getattr(args, takers[0][1].dest, None) for name, takers in mode_flags().items()}


def check_masks(masks: list[str]) -> None:
    """Every ``--mask`` compiles as a regular expression, or a usage error names the one that does not."""
    from workbench.scenario.masks import mask_problem

    for mask in masks:
        if (problem := mask_problem(mask)) is not None:
            raise UsageError(f"--mask {problem}")


def check_lenient(args: argparse.Namespace) -> None:
    """``--lenient`` loosens ``--ci`` only: alone it would change nothing, and say nothing of it."""
    if args.lenient and not args.ci:
        raise UsageError(
            "--lenient only loosens --ci (without --ci, unknown keys are warnings already); add --ci or drop --lenient"
        )


def add_theme(p: argparse.ArgumentParser) -> None:
    p.add_argument("--theme", metavar="NAME",
                   help="workbench-dark (default), workbench-light, workbench-high-contrast, or one of yours (~/.config/workbench/themes/)")  # fmt: skip


def add_scenario_paths(p: argparse.ArgumentParser) -> None:
    """Scenario files or folders, ./scenarios when none is given."""
    p.add_argument("paths", nargs="*", type=path_arg, metavar="PATH",
                   help=f"scenario files or folders (default ./{DEFAULT_SCENARIOS})")  # fmt: skip


def scenario_files(paths: list[Path]) -> list[Path]:
    """The scenario files under ``paths`` (./scenarios when empty); a missing path is invalid input."""
    from workbench.scenario.loader import discover

    if not paths:
        if not DEFAULT_SCENARIOS.exists():
            raise UsageError(
                f"no PATH given and the default folder ./{DEFAULT_SCENARIOS} does not exist here "
                f"({Path.cwd()}); pass scenario files or folders, e.g. `workbench run my-scenarios/`"
            )
        paths = [DEFAULT_SCENARIOS]
    missing = [p for p in paths if not path_exists(p)]
    for p in missing:
        print(f"{p}:1:1: error: {not_there(p)}", file=sys.stderr)
    if missing:
        raise SystemExit(EXIT_INVALID)
    from workbench.scenario.loader import is_scenario_name

    for p in paths:  # named on purpose, so read; but a README.md read as YAML must say why it fails so
        if p.is_file() and not is_scenario_name(p):
            print(f"{p}:1:1: warning: not a scenario file name (*.yaml, *.yml, *.json, *.toml; not a golden's "
                  "`.style.json` or a recording's `.requests.json`): read as a scenario anyway", file=sys.stderr)  # fmt: skip
    files = list(discover(paths))
    if not files:
        raise UsageError(
            "no scenario files (*.yaml, *.yml, *.json, *.toml) under " + ", ".join(map(str, paths))
        )
    return files


_INSIDE = {
    "--out": "run folders and all",
    "--report": "the JSON report and all",
    "--junit": "the JUnit file and all",
}


def check_html_output(path: Path | None, **inside: Path | None) -> None:
    """:func:`check_output` for an HTML report folder (``--html``), which must also be new, empty or
    an older report: the report replaces its folder whole, and a folder of other files is not for it to remove.

    ``inside`` names the other outputs (``out=``, ``report=``, ``junit=``): none may be in that folder,
    which the report would replace (or, holding them, refuse) once everything has run.
    """
    check_output(path, "--html", folder=True)
    if path is None:
        return
    html = path.resolve()
    for name, other in inside.items():
        flag = f"--{name}"
        if other is not None and (other.resolve() == html or html in other.resolve().parents):
            raise UsageError(f"{flag} {other} is --html {path} or inside it: the report replaces its folder "
                             f"whole, {_INSIDE[flag]}; give the report a folder of its own")  # fmt: skip
    from workbench.report.write import ReportError, check_target

    try:
        check_target(path)
    except ReportError as exc:
        raise UsageError(str(exc)) from None


def open_app(**kwargs: Any) -> int:
    """Start the Textual app; imported here, not at the top, so that headless commands never load Textual.

    Without a terminal (a CI job that ran `workbench scenarios` for `workbench run scenarios`) the app would
    draw into a pipe until the job's own timeout: that is a usage error that names the headless commands.
    Under textual-serve (`--web`) the app's driver is named in ``TEXTUAL_DRIVER`` and needs none.
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()) and not os.environ.get("TEXTUAL_DRIVER"):
        raise UsageError(
            "the app needs a terminal, and stdin or stdout is not one here (a CI job, a pipe?): to run "
            "scenarios headless, use `workbench run PATH --ci`; to check them, `workbench validate PATH`; "
            "to look at a run in a browser, `workbench show --web RUN`"
        )
    from workbench import app

    return int(app.main(**kwargs))
