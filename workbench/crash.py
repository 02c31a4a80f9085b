"""Bugs are reported, never shown as a bare traceback: the traceback goes to a file we name."""

from __future__ import annotations

import os
import tempfile
import traceback


def write_crash_report(exc: BaseException) -> str:
    """Write ``exc``'s traceback to a temp file; return its path."""
    fd, path = tempfile.mkstemp(prefix="workbench-crash-", suffix=".txt")
    with os.fdopen(fd, "w") as f:
        traceback.print_exception(exc, file=f)
    return path
