"""One way to start a process a scenario can influence: confined to writing where it is allowed.

Shell commands (`runCmd`, live `Bash`, `userCommand`, `sed`, `git apply`) and the engine's own git
all start through :class:`Sandbox`, which uses the strongest confinement this machine offers:

* ``bubblewrap`` (Debian's ``bwrap``, where it can make a mount namespace): the whole file system
  is mounted read-only except the folders the command may write, and ``/dev/shm`` is a private,
  empty tmpfs that disappears with the command. Nothing outside those folders can be created,
  written, removed, renamed, ``chmod``-ed or ``touch``-ed. (Landlock is not added inside: a
  Landlock-restricted process may not make the mounts bubblewrap needs.)
* ``landlock`` (Linux 5.13+): files may be created, written, removed and renamed only beneath the
  writable folders; ``/dev`` is writable only for its devices (``/dev/null``, ``/dev/tty``, the
  ptys), not ``/dev/shm``. Landlock does not cover ``chmod``, ``chown`` or file times: a command can
  still change those outside the workspace.
* ``none`` (macOS, old or locked-down kernels): commands run unconfined.

:func:`level` says which one runs here (``workbench run -v`` prints it, the JSON report records it).
No command runs unconfined by accident: if the chosen confinement fails to start, the command is
not started.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, TypeVar

from . import landlock
from .landlock import WriteSandbox

T = TypeVar("T")
Level = Literal["bubblewrap", "landlock", "none"]

LEVELS: dict[str, str] = {
    "bubblewrap": "bubblewrap: a read-only file system but for the workspace, its scratch folder and the run's "
    "HOME, and a private /dev/shm",
    "landlock": "Landlock: writes only in the workspace, its scratch folder and the run's HOME "
    "(chmod and file times outside are not covered; /dev/shm is closed)",
    "none": "none: shell commands are not confined (no bubblewrap, no Landlock on this kernel)",
}
DISABLE_VAR = "WORKBENCH_NO_BWRAP"
"""Set (to anything) to use Landlock alone: for comparing levels, or where bubblewrap misbehaves."""


@functools.cache
def _bwrap() -> str | None:
    """The ``bwrap`` program when it can make its namespaces here (a container may forbid them)."""
    if os.environ.get(DISABLE_VAR):
        return None
    program = shutil.which("bwrap")
    if program is None:
        return None
    try:
        probe = subprocess.run([program, "--ro-bind", "/", "/", "--tmpfs", "/dev/shm", "true"],
                               capture_output=True, timeout=30, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return program if probe.returncode == 0 else None


def level() -> Level:
    """The confinement shell commands get on this machine."""
    if _bwrap() is not None:
        return "bubblewrap"
    return "landlock" if landlock.available() else "none"


def _device_rules(writable: Sequence[Path]) -> list[Path]:
    """``writable`` with ``/dev`` replaced by its devices and pty folder (Landlock alone: no /dev/shm)."""
    out: list[Path] = []
    for folder in writable:
        if Path(folder) != Path("/dev"):
            out.append(Path(folder))
            continue
        out.extend(Path("/dev") / name for name in ("null", "zero", "full", "tty", "ptmx", "pts", "random",
                                                     "urandom"))  # fmt: skip
    return out


class Sandbox:
    """Processes started by :meth:`run` may write beneath ``writable`` only (as far as :func:`level` allows).

    Use it as ``sandbox.run(lambda: subprocess.Popen(sandbox.wrap(argv), ...))``."""

    def __init__(self, writable: Sequence[Path]) -> None:
        self.level: Level = level()
        self.writable = [Path(p) for p in writable]
        self._landlock = None if self.level == "bubblewrap" else WriteSandbox(_device_rules(self.writable))

    @property
    def active(self) -> bool:
        return self.level != "none"

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """``argv`` as the sandbox starts it (under bwrap, at the bubblewrap level)."""
        program = _bwrap() if self.level == "bubblewrap" else None
        if program is None:
            return list(argv)
        mounts = ["--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--tmpfs", "/dev/shm"]
        for folder in self.writable:
            if folder != Path("/dev") and folder.exists():
                mounts += ["--bind", str(folder), str(folder)]
        return [program, *mounts, "--", *argv]

    def call(
        self, argv: Sequence[str], *, cwd: Path, timeout: float, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` confined, in a process group of its own, and capture its output as text.

        On a timeout the whole group is killed (under bubblewrap the command is bwrap's child, which
        killing bwrap alone would leave running) and TimeoutExpired is raised."""

        def start() -> subprocess.CompletedProcess[str]:
            with subprocess.Popen(self.wrap(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  start_new_session=True) as proc:  # fmt: skip
                try:
                    out, err = proc.communicate(timeout=timeout)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    proc.communicate()
                    raise
            return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)

        return self.run(start)

    def run(self, start: Callable[[], T]) -> T:
        """Call ``start``, which starts a process; that process (and all it starts) is confined
        (``start`` must start it with :meth:`wrap`'s argv: bubblewrap confines through the command line)."""
        if self._landlock is None:
            return start()
        return self._landlock.run(start)

    def close(self) -> None:
        if self._landlock is not None:
            self._landlock.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
