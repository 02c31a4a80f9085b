"""`workbench verify-install PATH`: build, install away from the source tree, check commands, smoke-run."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    from workbench.engine.verify_install import add_arguments as add

    add(p)


def run(args: argparse.Namespace) -> int:
    from workbench.engine.verify_install import run as verify

    return verify(args)
