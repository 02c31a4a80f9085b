"""Starting the built-in mock agent by forking this process instead of starting a new Python.

A fresh interpreter that imports the loader, the timeline and the agent costs
most of a trivial scenario's time. The engine has all of that imported
already, so it forks: the child gets a new pty as its controlling terminal (as
an exec'd program would), the program's environment and folder, fresh
standard streams, default signal handlers, no event loop and no inherited file
descriptors beyond 0-2, and then runs the mock agent's ``main`` with the same
arguments the command line would have had; it never returns to the engine's
code (``os._exit``).

Forking is only safe with one thread (another thread's locks would be copied
held), so :func:`can_fork` says no when other threads run (the app, a pool),
and the engine then starts the agent the ordinary way. Set
``WORKBENCH_NO_FORK=1`` to always start it the ordinary way.
"""

from __future__ import annotations

import asyncio
import fcntl
import functools
import importlib
import io
import os
import pty
import signal
import struct
import sys
import tempfile
import termios
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType

from ptyprocess import PtyProcess

from workbench.names import Env
from workbench.terminal import AsciicastRecorder, PtySession, Screen, descendants
from workbench.terminal.session import DEFAULT_TERM

ENTRY = "workbench.agent.mock_agent"
"""The module whose ``main(argv)`` a forked child runs."""
PRELOAD = (ENTRY, "workbench.agent.tools", "workbench.clock", "workbench.workspace")
"""What the child imports on every run (the agent imports its tools when it starts): imported here
first, once, so that no child imports (and compiles) them again."""


def can_fork() -> bool:
    return (
        hasattr(os, "fork") and os.environ.get(Env.NO_FORK, "") in ("", "0") and threading.active_count() == 1
    )


def warm() -> ModuleType:
    """Import what a forked child runs (:data:`PRELOAD`), so that the children, and processes forked
    from this one later (a pool's workers), share those modules instead of importing them again.
    Returns the entry module."""
    for name in PRELOAD:
        importlib.import_module(name)
    return sys.modules[ENTRY]


async def fork_session(
    args: Sequence[str], *, env: Mapping[str, str], cwd: str, width: int, height: int,
    recorder: AsciicastRecorder | None, confine: Callable[[], None] | None = None, prepared: object = None,
) -> PtySession:  # fmt: skip
    """The mock agent with ``args`` (its command-line arguments) in a new pty, as a child of this process.

    ``prepared`` is the engine's loaded scenario and schedule: the child plays them, as it shares this
    process's memory, instead of reading and compiling the file again (or reading an unsaved one at all).
    ``confine`` runs in the child before the agent does (a sandbox confining it); if it raises, the child
    prints why and exits with 3."""
    environment = dict(env)
    environment.setdefault("TERM", DEFAULT_TERM)
    token = descendants.new_token()
    environment[descendants.TOKEN_VAR] = token
    if not os.path.isdir(cwd):
        raise FileNotFoundError(f"cannot start the mock agent: no folder {cwd!r}")
    module = warm()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # nothing buffered here may be written twice by the child
    pid, fd = pty.fork()
    if pid == 0:  # the child: never returns
        _child(
            module.main if prepared is None else functools.partial(module.main, prepared=prepared),
            list(args),
            environment,
            cwd,
            width,
            height,
            confine,
        )
    proc = PtyProcess(pid, fd)
    return PtySession(proc, Screen(width, height, scrollback=1000), recorder, token)


def _child(main: object, args: list[str], env: dict[str, str], cwd: str, width: int, height: int,
           confine: Callable[[], None] | None) -> None:  # fmt: skip
    code = 3
    try:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
        if confine is not None:  # before the descriptors close: Landlock's ruleset is one
            confine()
        os.closerange(3, _max_fd())
        for sig in (
            signal.SIGINT,
            signal.SIGTERM,
            signal.SIGCHLD,
            signal.SIGPIPE,
            signal.SIGHUP,
            signal.SIGQUIT,
        ):
            signal.signal(sig, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        tempfile.tempdir = None  # this process's TMPDIR was cached: the child's is its own (confined) one
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8", errors="replace")
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="replace",
                                      write_through=True)  # fmt: skip
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="replace",
                                      write_through=True)  # fmt: skip
        sys.argv = ["workbench mock-agent", *args]
        code = int(main(args))  # type: ignore[operator]
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _max_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (ValueError, OSError):
        return 4096
