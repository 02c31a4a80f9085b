"""Processes a test started, told apart from every other process on the machine.

A test that checks "nothing survived" must not look for ``sleep 600`` in the
whole process table: another program may run one. Tests give their processes
a unique argument (:func:`unique_seconds`: ``sleep 600.000123456`` sleeps as
long as ``sleep 600``) and look only for that (:func:`running`).
"""

from __future__ import annotations

import os
import secrets
import signal
from pathlib import Path


def signals_at_their_defaults() -> None:
    """``preexec_fn``: SIGINT and SIGHUP at their default actions in the child, as a program started from a
    terminal has them, even when this test run ignores them: under ``nohup`` (SIGHUP), in a background job
    of a shell without job control (SIGINT), or under a CI runner that does either. The product goes on
    ignoring a stop signal it was started ignoring, so a test that sends one starts its program as a shell
    would (a fresh-clone run of the suite under ``nohup``, in the background, failed every such test)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def unique_seconds(seconds: int) -> str:
    """``seconds`` with a random fraction of a microsecond or less: an argument no other process has."""
    return f"{seconds}.{secrets.randbelow(10**9):09d}"


def running(needle: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line contains ``needle``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in cmdline and state != "Z":
            found.append(int(entry.name))
    return found
