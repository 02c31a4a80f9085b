"""One way to start a process a scenario can influence: confined to writing where it is allowed.

Shell commands (`runCmd`, live `Bash`, `userCommand`, `sed`, `git apply`), the engine's own git and
the program under test (the mock agent, a real agent, an ACP program, a scenario's ``command``) all
start through :class:`Sandbox`, which uses the strongest confinement this machine offers:

* ``bubblewrap`` (Debian's ``bwrap``, where it can make a mount namespace): the whole file system
  is mounted read-only except the folders the command may write, and ``/dev/shm`` is a private,
  empty tmpfs that disappears with the command. Nothing outside those folders can be created,
  written, removed, renamed, ``chmod``-ed or ``touch``-ed. (Landlock is not added inside: a
  Landlock-restricted process may not make the mounts bubblewrap needs.) The program under test
  gets the same file system from :mod:`.namespace` in its forked child, before it runs or execs
  (no ``bwrap`` process between the terminal and the program). The commands a process so
  confined starts itself (the forked mock agent's ``runCmd``, ``sed``, ``git apply``) are
  confined by Landlock on top of its namespace where the kernel has Landlock, not by a second
  ``bwrap`` (2.8 ms of CPU per command, 1.3 ms this way): they write only beneath their own
  writable folders and ``/dev``'s devices, as under ``bwrap``; ``/dev/shm`` is the namespace's private tmpfs (shared
  with the program under test and its other commands, not with the machine), and ``chmod``, ``chown`` and file times are bounded by the agent's namespace
  alone: a command may change those on the agent's own writable folders (its scratch folder,
  its crash folder), not on anything else. Where Landlock is missing they start under ``bwrap``
  as anywhere else. The report still says ``bubblewrap``: the program under test runs at that level.
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

from . import landlock, namespace
from .landlock import WriteSandbox

T = TypeVar("T")
Level = Literal["bubblewrap", "landlock", "none"]

LEVELS: dict[str, str] = {
    "bubblewrap": "bubblewrap: shell commands and the program under test see a read-only file system but for "
    "the workspace, their scratch folder and the run's HOME, and a private /dev/shm",
    "landlock": "Landlock: shell commands and the program under test write only in the workspace, their "
    "scratch folder and the run's HOME (chmod and file times outside are not covered; /dev/shm is closed)",
    "none": "none: shell commands and the program under test are NOT confined (no bubblewrap or user "
    "namespaces, no Landlock on this kernel): they can write anywhere this user can",
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
        probe = _early_bwrap.pop(program, None) or _start_bwrap_probe(program)
    except OSError:
        return None
    try:
        code = probe.wait(timeout=30)
    except subprocess.TimeoutExpired:
        probe.kill()
        probe.wait()
        return None
    return program if code == 0 else None


def _start_bwrap_probe(program: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([program, "--ro-bind", "/", "/", "--tmpfs", "/dev/shm", "true"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip


@functools.cache
def _namespaces() -> bool:
    """Whether a forked child can confine itself as bubblewrap would (:mod:`.namespace`): the program under test
    is confined that way, so the bubblewrap level needs both (AppArmor may allow bwrap alone)."""
    pid = _early_namespaces.pop() if _early_namespaces else _fork_namespace_probe()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _fork_namespace_probe() -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            namespace.confine_self([])
            code = 0
        finally:
            os._exit(code)
    return pid


_early_bwrap: dict[str, subprocess.Popen[bytes]] = {}
"""The ``bwrap`` probe :func:`start_probes` started (by the program it ran), until :func:`level` collects it."""
_early_namespaces: list[int] = []
"""The namespace probe :func:`start_probes` forked, until :func:`level` collects it."""


def start_probes() -> None:
    """Start what :func:`level` finds out (a ``bwrap`` and a forked child making namespaces), each in a
    process of its own, so that the 5-6 ms they take pass while this process prepares the run (imports
    what the runs need, starts the event loop, its workers) instead of after: :func:`level` then collects
    them. Nothing is started once :func:`level` has run, and nothing where it would not probe."""
    if _bwrap.cache_info().currsize or _early_bwrap or os.environ.get(DISABLE_VAR):
        return
    program = shutil.which("bwrap")
    if program is None:
        return
    with contextlib.suppress(OSError):
        _early_bwrap[program] = _start_bwrap_probe(program)
        if not _namespaces.cache_info().currsize and not _early_namespaces:
            _early_namespaces.append(_fork_namespace_probe())


def level() -> Level:
    """The confinement shell commands and the program under test get on this machine."""
    try:
        if _bwrap() is not None and _namespaces():
            return "bubblewrap"
        return "landlock" if landlock.available() else "none"
    finally:
        _collect_early()


def _collect_early() -> None:
    """Wait for the probes :func:`start_probes` started that :func:`level` did not need: no process of
    ours is left unwaited for."""
    while _early_bwrap:
        _program, probe = _early_bwrap.popitem()
        probe.kill()  # if still running: its answer is not needed
        probe.wait()
    while _early_namespaces:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(_early_namespaces.pop(), 0)


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
        self._landlock: WriteSandbox | None = None
        if self.level != "bubblewrap":
            self._landlock = WriteSandbox(_device_rules(self.writable))
        elif namespace.confined():  # Landlock on top of this process's namespace, where the kernel has it
            # /dev/shm here is the namespace's own private tmpfs (not the machine's): as under bwrap, a
            # command may use it (POSIX semaphores: multiprocessing's locks, Chromium), shared only with
            # the program under test and its other commands, all gone with the namespace
            shm = [Path("/dev/shm")] if Path("/dev") in self.writable else []
            rules = WriteSandbox(_device_rules(self.writable) + shm)
            self._landlock = rules if rules.active else None  # else a second bwrap, as anywhere else

    @property
    def active(self) -> bool:
        return self.level != "none"

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """``argv`` as the sandbox starts it (under bwrap, at the bubblewrap level but in a confined process)."""
        program = _bwrap() if self.level == "bubblewrap" and self._landlock is None else None
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

    def confine_self(self) -> None:
        """Confine this process, a forked child about to run or exec the program under test (single-threaded:
        namespaces need that). Its own commands start under the same level; OSError if it cannot."""
        if self.level == "bubblewrap":
            namespace.confine_self(self.writable)
        elif self.level == "landlock":  # its own ruleset: the child may have closed the parent's descriptors
            with WriteSandbox(_device_rules(self.writable)) as rules:
                rules.restrict_self()

    def close(self) -> None:
        if self._landlock is not None:
            self._landlock.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ProgramSandbox:
    """The confinement of one run's program under test, and its private scratch folder (its ``TMPDIR``).

    The program may write its workspace, the run's HOME (``RUN_DIR/home``: a real agent's settings and
    caches), the scratch folder, ``/dev`` (its terminal; a private ``/dev/shm`` under bubblewrap), the
    agent's stderr log when its preset keeps one, and ``RUN_DIR/crashes`` (``$WORKBENCH_CRASH_DIR``: our
    mock agent's crash reports outlive the scratch folder); it reads the whole system and reaches the
    network, so it still talks to the run's servers on 127.0.0.1. Call :meth:`remove` when the program has
    ended."""

    def __init__(self, workspace: Path, run_dir: Path, env: dict[str, str]) -> None:
        from workbench import tempfolders
        from workbench.names import Env

        self.scratch = tempfolders.make("tmp")
        self.crashes = (run_dir / "crashes").resolve()
        self.crashes.mkdir(parents=True, exist_ok=True)
        self.env = {**env, "TMPDIR": str(self.scratch), Env.CRASH_DIR: str(self.crashes)}
        # absolute: the child confines itself in the workspace, not in this process's folder
        writable = [
            workspace.resolve(),
            (run_dir / "home").resolve(),
            self.scratch,
            self.crashes,
            Path("/dev"),
        ]
        log = env.get(Env.AGENT_LOG)
        if log:
            Path(log).touch()  # a file is bound writable (bubblewrap) or given a rule (Landlock) if it exists
            writable.append(Path(log).resolve())
        self.sandbox = Sandbox(writable)

    def remove(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.crashes.rmdir()  # kept only when a crash report is in it
