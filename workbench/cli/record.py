"""`workbench record --upstream URL -o SCENARIO.yaml [--prompt TEXT] -- COMMAND...`: record a real session.

The agent (COMMAND, with the `{base_url}` placeholders of real-agent mode, or
`--agent NAME`) talks to the real API through a recording proxy; your terminal
drives it. On exit the session is a scenario that replays it
(`workbench run SCENARIO --mode real-agent --ci`), with goldens and the request
sidecar for `--drift`. See :mod:`workbench.record`.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys

from workbench.cli.common import check_masks
from workbench.names import DEFAULT_GOLDENS_DIR, EXIT_INTERRUPTED
from workbench.usage import EXIT_INVALID, EXIT_OK, UsageError, check_output, path_arg, path_exists


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--upstream", required=True, metavar="URL",
                   help="the real API (e.g. https://api.anthropic.com); the style comes from each request's path")  # fmt: skip
    p.add_argument("-o", "--output", required=True, type=path_arg, metavar="SCENARIO.yaml",
                   help="the scenario to write (an earlier recording there is replaced, a hand-written file never); goldens go under --goldens, the request sidecar beside it")  # fmt: skip
    p.add_argument("--prompt", metavar="TEXT",
                   help="type this one prompt (or put it in COMMAND's {prompt}) and stop once the agent is idle")  # fmt: skip
    p.add_argument("--agent", metavar="NAME", help="a known agent's preset instead of COMMAND")
    p.add_argument(
        "--size", metavar="WxH", help="the agent's terminal size (default: your terminal's, else 80x24)"
    )
    p.add_argument("--mask", action="append", default=[], metavar="REGEX",
                   help="volatile screen text: blanked in the goldens and kept in the scenario's `masks`; repeatable")  # fmt: skip
    p.add_argument("--max-gap", type=int, metavar="MS", help="cap every recorded delay at MS milliseconds")
    p.add_argument("--goldens", type=path_arg, default=DEFAULT_GOLDENS_DIR, metavar="DIR",
                   help="where the goldens go (default ./screenshots, where `workbench run` looks)")  # fmt: skip
    p.add_argument("--timeout", type=float, default=600.0, metavar="S",
                   help="stop (and write what was recorded, marked partial) after S seconds; default 600")  # fmt: skip
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                   help="the agent's command line, with {base_url}, {openai_base_url}, {api_key}, {workspace}, {prompt}; it runs in a fresh, empty workspace")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from workbench.record.session import (
        Recorder,
        RecordError,
        RecordOptions,
        default_stdin,
        terminal_size,
    )
    from workbench.record.writer import is_recording
    from workbench.scenario.diagnostics import count

    command = tuple(args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd)
    if not command and not args.agent:
        raise UsageError(
            "record needs the agent: `-- COMMAND...` (with {base_url} placeholders) or `--agent NAME`"
        )
    if command and args.agent:
        raise UsageError("give either `--agent NAME` or `-- COMMAND...`, not both")
    if args.output.suffix.lower() not in (".yaml", ".yml"):
        raise UsageError(f"-o {args.output}: a recording is a YAML scenario (*.yaml or *.yml)")
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        raise UsageError(f"--timeout {args.timeout:g}: give the seconds the recording may last, more than 0")
    if args.prompt is not None and not args.prompt.strip():
        raise UsageError("--prompt needs the text to type (an empty prompt asks the model nothing)")
    if args.max_gap is not None and args.max_gap < 0:
        raise UsageError("--max-gap must be 0 or more milliseconds")
    check_output(args.output, "-o", example="session.yaml")
    replaces = path_exists(args.output)
    if replaces and not is_recording(args.output):
        raise UsageError(
            f"-o {args.output}: is there and was not written by `workbench record`, so a recording does not "
            "replace it; give another file name (or delete it first)"
        )
    check_output(args.goldens, "--goldens", folder=True)
    check_masks(args.mask)
    stdin = default_stdin()
    width, height = terminal_size(stdin)
    if args.size is not None:
        try:
            width, height = (int(n) for n in args.size.lower().split("x"))
        except ValueError:
            raise UsageError(f"--size {args.size}: expected WIDTHxHEIGHT, e.g. 100x40") from None
        if not (2 <= width <= 1000 and 2 <= height <= 1000):
            raise UsageError(f"--size {args.size}: width and height must be 2 to 1000")
    options = RecordOptions(
        upstream=args.upstream, out=args.output, command=command, agent=args.agent, prompt=args.prompt,
        max_gap_ms=args.max_gap, masks=tuple(args.mask), goldens_dir=args.goldens, timeout_s=args.timeout, width=width, height=height,
    )  # fmt: skip
    stdout = sys.stdout.fileno() if args.prompt is None or sys.stdout.isatty() else None
    try:
        result = asyncio.run(Recorder(options, stdin_fd=stdin, stdout_fd=stdout).run())
    except RecordError as exc:
        print(f"workbench record: error: {exc}", file=sys.stderr)
        return EXIT_INVALID if exc.exit_code is None else exc.exit_code
    w = result.written
    state = "partial recording (interrupted)" if result.partial else "recording"
    replaced = " (it replaced the earlier recording there)" if replaces else ""
    print(f"\r\nworkbench record: {state} written to {w.scenario}{replaced}: {count(w.replies, 'model response')} "
          f"to {count(w.requests, 'request')}; {count(len(w.goldens), 'golden')}; requests for --drift in "
          f"{w.sidecar}", file=sys.stderr)  # fmt: skip
    print(f"workbench record: replay it with: {w.replay}", file=sys.stderr)
    if w.unanswered and all(w.unanswered):
        how = "; ".join(dict.fromkeys(how for how in w.unanswered if how))
        print(f"workbench record: warning: the upstream answered no model request as the API does ({how}); if "
              f"that is not the session you meant to record, check --upstream {args.upstream} (the API's own "
              "URL, such as https://api.openai.com) and your key (ANTHROPIC_API_KEY, OPENAI_API_KEY, "
              "GEMINI_API_KEY)", file=sys.stderr)  # fmt: skip
    return EXIT_INTERRUPTED if result.partial else EXIT_OK
