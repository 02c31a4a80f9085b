"""Bugs are reported, never shown as a bare traceback: the traceback goes to a file we name.

A crash in another process (the mock agent, a tool it runs) is written there
too, and only its path and one-line summary travel to the engine, which
reports it as :class:`ReportedCrash`: an internal error (exit 3), not a
scenario failure.
"""

from __future__ import annotations

import os
import tempfile
import traceback


def write_crash_report(exc: BaseException) -> str:
    """Write ``exc``'s traceback to a file; return its path. The file goes to ``$WORKBENCH_CRASH_DIR`` when
    the engine set it (a program it confined: its ``TMPDIR`` goes with the run), else the temp folder."""
    from workbench.names import Env

    fd, path = tempfile.mkstemp(
        prefix="workbench-crash-", suffix=".txt", dir=os.environ.get(Env.CRASH_DIR) or None
    )
    with os.fdopen(fd, "w") as f:
        traceback.print_exception(exc, file=f)
    return path


def summary(exc: BaseException) -> str:
    """``Type: message``: the line that names a crash next to its file."""
    return f"{type(exc).__name__}: {exc}"


class ReportedCrash(RuntimeError):
    """A bug in ``who`` whose traceback is already in the crash file ``path``."""

    def __init__(self, who: str, error: str, path: str) -> None:
        super().__init__(f"{who} crashed: {error} (this is a bug; the traceback is in {path})")
        self.path = path
