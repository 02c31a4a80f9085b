"""`workbench edit [PATH]` (also `workbench [PATH]`): the app on a scenario file or folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.common import SCENARIO_SUFFIXES, add_theme, open_app
from workbench.usage import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", type=Path, default=Path("scenarios"), metavar="PATH",
                   help="a scenario file (created on save if new) or a folder (default ./scenarios)")  # fmt: skip
    p.add_argument(
        "--goldens", type=Path, default=Path("screenshots"), metavar="DIR", help="default ./screenshots"
    )
    p.add_argument(
        "--out", type=Path, default=Path("target/tmp/workbench"), metavar="DIR", help="run folders"
    )
    add_theme(p)


def run(args: argparse.Namespace) -> int:
    path: Path = args.path
    if not path.exists() and path.suffix.lower() not in SCENARIO_SUFFIXES:
        raise UsageError(
            f"{path}: no such file or folder (a new scenario needs a .yaml, .json or .toml name)"
        )
    return open_app(path=path, goldens_dir=args.goldens, out_dir=args.out, theme=args.theme)
