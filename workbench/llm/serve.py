"""`workbench serve llm SCENARIO...`: the mock LLM server on its own.

Loads every scenario (files or folders), prints the base URL on stdout's first
line, then the endpoints of every API style and the environment to paste into
an agent's shell (``ANTHROPIC_BASE_URL=...``, ``OPENAI_BASE_URL=...``,
``GOOGLE_GEMINI_BASE_URL=...``), and serves until Ctrl-C (or SIGTERM),
printing each failure on stderr as it is found (`file:line: kind: message`);
then it checks what the sessions left unfinished (final asserts, replies never
asked for). With ``-v`` each request is one line on stderr: its style, session,
and which scenario step it consumed or why it was a side request.

Sessions are keyed by API key: clients that send no key share one session.

Exit codes: 0 served without failures; 1 a session recorded failures; 2 invalid
input (a scenario, with `file:line:col` diagnostics, or a flag, or a port that
cannot be bound). ``--speed`` defaults to ``max`` (no waiting), as for
``workbench run``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.scenario.model import Scenario
from workbench.stopping import server_inputs, until_stopped
from workbench.usage import (
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    UsageParser,
    add_define,
    add_listen_arguments,
    check_folder,
    check_output,
    path_arg,
)

from .recorder import RequestLog

if TYPE_CHECKING:
    from .agents import profile_named
    from .server import LlmServer

PROG = "workbench serve llm"


def build_parser() -> argparse.ArgumentParser:
    p = UsageParser(
        prog="workbench serve llm", description="Serve scenarios as a mock LLM API for real coding agents."
    )
    add_arguments(p)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `workbench serve llm` (the CLI builds its parser from these)."""
    add_listen_arguments(p)
    p.add_argument(
        "--speed", default="max", help="1 = scenario timing, 4 = four times faster, max = no waiting"
    )
    p.add_argument("--strict-tools", action="store_true",
                   help="refuse requests whose tool definitions differ from the agent's tool profile")  # fmt: skip
    from .agents import tool_profiles

    p.add_argument("--profile", choices=list(tool_profiles()),
                   help="tool profile (default: detected from each request's tools)")  # fmt: skip
    p.add_argument("--workspace", type=path_arg, help="folder `assert` fs checks look in")
    p.add_argument("--out", type=path_arg, help="folder for the request log and saved mismatching requests")
    add_define(p)
    p.add_argument("-v", "--verbose", action="store_true", help="one line per request on stderr")


def serve_llm_main(argv: Sequence[str]) -> int:
    """Entry point of `workbench serve llm`; ``argv`` excludes `serve llm`."""
    try:
        args = build_parser().parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Serve the scenarios of parsed ``args`` until Ctrl-C or SIGTERM."""
    try:  # a request log lost, or every `assert` of the files failing, only once the agent has run
        check_output(args.out, "--out", folder=True)
        check_folder(args.workspace, "--workspace", "where `assert` fs checks look")
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    inputs = server_inputs(args, PROG, "the `x-scenario-name` header")
    if inputs is None:
        return EXIT_INVALID
    speed, prepared = inputs
    scenarios = [p.scenario for p in prepared if p.scenario is not None]
    # failures are printed as they happen: `file:line: kind: message`
    logging.basicConfig(level=logging.WARNING, format=f"{PROG}: %(message)s", stream=sys.stderr)
    try:
        return asyncio.run(_serve(scenarios, args, speed))
    except KeyboardInterrupt:
        return EXIT_OK


async def _serve(scenarios: list[Scenario], args: argparse.Namespace, speed: float | None) -> int:
    from .server import LlmServer

    server = LlmServer(
        scenarios,
        host=args.host,
        port=args.port,
        speed=speed,
        strict_tools=args.strict_tools,
        out_dir=args.out,
        workspace=args.workspace,
        profile=profile_named(args.profile) if args.profile else None,
        on_request=_print_request if getattr(args, "verbose", False) else None,
    )
    try:
        url = await server.start()
    except OSError as exc:
        print(f"workbench serve llm: error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)  # fmt: skip
        return EXIT_INVALID
    print(url + "\n" + banner(url, server), flush=True)
    try:
        await until_stopped()
    finally:
        await server.finish()
        await server.stop()
    if server.failures:
        count = len(server.failures)
        print(
            f"workbench serve llm: {count} failure{'s' if count != 1 else ''} (listed above)", file=sys.stderr
        )
    return EXIT_FAILED if server.failures else EXIT_OK


def banner(url: str, server: LlmServer) -> str:
    """The endpoints of every registered API style and the environment to paste."""
    from .agents import Endpoint, endpoint_env

    lines = ["endpoints:"]
    for wire in server.wires:
        turns = [re.sub(r"\{(\w+):[^}]*\}", r"{\1}", r.path) for r in wire.routes if r.kind == "turn"]
        first = turns[0].split("/")[1]  # the preferred version prefix; the others are aliases
        shown = ", ".join(url + t for t in turns if t.split("/")[1] == first)
        lines.append(f"  {wire.title:<18} POST {shown}")
    env = endpoint_env(Endpoint(url, "any-key", Path("."), Path(".")))
    lines.append("environment to paste (any key; one session per key, clients that send no key share one):")
    lines += [f"  export {k}={v}" for k, v in env.items() if not k.startswith("WORKBENCH_")]
    return "\n".join(lines)


def _print_request(entry: RequestLog) -> None:
    session = f" session {entry['session']}" if entry.get("session") else ""
    print(f"workbench serve llm: {entry['method']} {entry['path']} [{entry.get('style') or '-'}]{session}: "
          f"{entry['outcome']}", file=sys.stderr, flush=True)  # fmt: skip
    for note in entry.get("notes") or ():
        print(f"workbench serve llm:   {note}", file=sys.stderr, flush=True)
