"""`workbench edit [PATH]` (also `workbench [PATH]`): the app on a scenario file or folder."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from workbench.cli.common import StoreWithLazyHelp, add_folders, add_theme, open_app
from workbench.names import DEFAULT_SCENARIOS_DIR, SCENARIO_SUFFIXES
from workbench.usage import UsageError, host_arg, path_arg, path_exists, port_number


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", type=path_arg, default=DEFAULT_SCENARIOS_DIR, metavar="PATH",
                   help="a scenario file (created on save if new) or a folder (default ./scenarios)")  # fmt: skip
    add_folders(p)
    add_theme(p)
    from workbench.engine.drivers import DEFAULT_MODE, driver_names

    p.add_argument("--mode", default=DEFAULT_MODE, choices=driver_names(), metavar="MODE",
                   help=f"how the app's runs play scenarios: {', '.join(driver_names())}")  # fmt: skip
    from workbench.engine.drivers import flag_help, mode_flags

    p.add_argument(
        "--agent",
        metavar="NAME",
        action=StoreWithLazyHelp,
        describe=functools.partial(flag_help, mode_flags()["agent"]),
    )  # the agents load for --help only
    add_web(p)


def add_web(p: argparse.ArgumentParser) -> None:
    p.add_argument("--web", action="store_true", help="serve the app in a browser (textual-serve)")
    p.add_argument("--port", type=port_number, default=8000, help="--web: the port (default 8000)")
    p.add_argument(
        "--host", type=host_arg, default="127.0.0.1", help="--web: the address (default 127.0.0.1)"
    )


def serve_web(argv: list[str], args: argparse.Namespace) -> int:
    from workbench.app.web import serve

    return serve(argv, host=args.host, port=args.port)


def run(args: argparse.Namespace) -> int:
    """Without a ./scenarios folder the app opens anyway and offers to make one from a template."""
    path: Path = args.path
    if (
        not path_exists(path)
        and path.suffix.lower() not in SCENARIO_SUFFIXES
        and path != DEFAULT_SCENARIOS_DIR
    ):
        raise UsageError(
            f"{path}: no such file or folder (a new scenario needs a .yaml, .json or .toml name)"
        )
    if args.web:
        argv = [
            "edit",
            str(path),
            "--goldens",
            str(args.goldens),
            "--out",
            str(args.out),
            "--mode",
            args.mode,
        ]
        argv += ["--theme", args.theme] if args.theme else []
        argv += ["--agent", args.agent] if args.agent else []
        return serve_web(argv, args)
    return open_app(path=path, goldens_dir=args.goldens, out_dir=args.out, theme=args.theme, mode=args.mode,
                    agent=args.agent)  # fmt: skip
