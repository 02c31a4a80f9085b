"""`workbench mock-agent SCENARIO`: the built-in mock agent in this terminal (the engine runs it too)."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    from workbench.agent.mock_agent import add_arguments as agent_arguments

    agent_arguments(p)


def run(args: argparse.Namespace) -> int:
    from workbench.agent.mock_agent import run as play

    return play(args)
