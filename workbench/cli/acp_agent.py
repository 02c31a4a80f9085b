"""`workbench acp-agent SCENARIO`: a scenario as an Agent Client Protocol agent over stdio."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    from workbench.acp.serve import add_arguments as serve_arguments

    serve_arguments(p)


def run(args: argparse.Namespace) -> int:
    from workbench.acp.serve import run as serve

    return serve(args)
