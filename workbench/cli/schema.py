"""`workbench schema`: the JSON Schema of the YAML scenario format, on stdout."""

from __future__ import annotations

import argparse

from workbench.usage import EXIT_OK


def add_arguments(p: argparse.ArgumentParser) -> None:
    del p  # no options


def run(args: argparse.Namespace) -> int:
    import json

    from workbench.scenario.schema import scenario_schema

    print(json.dumps(scenario_schema(), indent=2))
    return EXIT_OK
