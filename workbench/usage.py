"""Exit codes and the argument parser shared by every command, the CLI's and the servers'.

It sits below every layer so that a server started on its own (`workbench serve
llm`) reports bad flags exactly as the CLI does, without importing the CLI.

Exit codes, for every command: 0 success; 1 a scenario failed; 2 invalid input
(a scenario, a config, a flag) with diagnostics on stderr; 3 internal error (a
bug: the traceback goes to a file whose path is printed).
"""

from __future__ import annotations

import argparse
import sys

from workbench.names import EXIT_FAILED, EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, EXIT_TERMINATED

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERNAL",
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "Terminated",
    "UsageError",
    "UsageParser",
]


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI runner cancelling): handled exactly as Ctrl-C is, but the command exits 143."""


class UsageError(Exception):
    """A bad flag or argument: reported like a diagnostic, exit 2."""


class UsageParser(argparse.ArgumentParser):
    """argparse that exits 2 (invalid input) on a bad flag, as every command of the workbench does."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID)
