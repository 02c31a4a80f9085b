"""`workbench report merge REPORT... [--junit F] [--report F]`: one report from a sharded run's reports."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    from workbench.engine.merge import add_arguments as add

    add(p)


def run(args: argparse.Namespace) -> int:
    from workbench.engine.merge import run as merge

    return merge(args)
