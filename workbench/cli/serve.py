"""`workbench serve KIND SCENARIO...`: serve scenarios over HTTP, one server kind per module.

A server kind is a module with ``add_arguments(parser)`` and ``run(args) -> int``,
registered in :data:`SERVERS` (one line).
"""

from __future__ import annotations

import argparse
import importlib

from workbench.usage import UsageParser

#: server kind -> (module, one-line help)
SERVERS: dict[str, tuple[str, str]] = {
    "llm": ("workbench.llm.serve", "the mock LLM API (Anthropic, OpenAI, ...) for a real coding agent"),
    "rest": (
        "workbench.rest.serve",
        "the agent service's REST/SSE API, for testing its clients (simulation mode)",
    ),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True, parser_class=UsageParser)
    for kind, (module, help_text) in SERVERS.items():
        server = kinds.add_parser(
            kind, help=help_text, description=help_text[:1].upper() + help_text[1:] + "."
        )
        importlib.import_module(module).add_arguments(server)


def run(args: argparse.Namespace) -> int:
    return int(importlib.import_module(SERVERS[args.kind][0]).run(args))
