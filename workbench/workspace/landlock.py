"""Shell commands a scenario runs may write only inside the workspace: Linux Landlock.

``runCmd`` (and Claudeless ``Bash`` in live mode) and ``userCommand`` run real
shell commands; path checks cannot stop ``echo x > ~/.bashrc``. Where the
kernel has Landlock (Linux 5.13+, enabled), each such command runs under a
ruleset that lets it read and execute anything but create, write, truncate,
rename or remove files only beneath the workspace, a private scratch folder
that is its ``TMPDIR`` (programs need temporary files; the system temp folder
holds other programs' files, so it is not writable) and ``/dev`` (``/dev/null``,
its terminal). The ruleset is
built once; a short-lived thread restricts itself with it and starts the
command, which inherits the restriction (as does everything it starts), while
the rest of this process stays free. No command runs unconfined by accident:
if confining fails, the command is not started.

Where Landlock is missing, :func:`available` is False and commands run
unconfined (the README says so). Network access is not restricted.
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

from workbench.names import Env

T = TypeVar("T")

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on every Linux architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_WRITE_FILE, _REMOVE_DIR, _REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
_MAKE = sum(1 << bit for bit in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
_REFER, _TRUNCATE = 1 << 13, 1 << 14  # ABI 2 and 3


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    libc.syscall.restype = ctypes.c_long
    return libc


_LIBC = _libc()


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (not Linux, too old, or disabled)."""
    if _LIBC is None:
        return 0
    version = int(
        _LIBC.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    )
    return max(version, 0)


def available() -> bool:
    return abi_version() > 0


def _write_access(abi: int) -> int:
    access = _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE
    if abi >= 2:
        access |= _REFER
    if abi >= 3:
        access |= _TRUNCATE
    return access


WRITABLE_VAR = Env.WRITABLE
"""Folders (``os.pathsep``-separated) the engine lets commands write besides the workspace: the run's HOME."""


def default_writable(workspace: Path, scratch: Path, *extra: Path) -> list[Path]:
    """What a command may write: the workspace, its private scratch folder (its ``TMPDIR``), ``/dev``,
    ``extra`` and the folders in ``$WORKBENCH_WRITABLE`` (the engine puts the run's private HOME there).
    Not the system temp folder (other programs' files are there), nor the user's HOME."""
    listed = [Path(p) for p in os.environ.get(WRITABLE_VAR, "").split(os.pathsep) if p]
    return [workspace, scratch, Path("/dev"), *extra, *listed]


def scratch_folder() -> Path:
    """A fresh private folder for a command's temporary files; the caller removes it."""
    from workbench import tempfolders

    return tempfolders.make("tmp")


class WriteSandbox:
    """A Landlock ruleset allowing writes beneath ``writable`` only; :meth:`run` starts processes under it.

    Use it as ``sandbox.run(lambda: subprocess.Popen(...))`` and close it once
    the process has started (the ruleset's descriptor is no longer needed).
    Where Landlock is unavailable, :attr:`active` is False and :meth:`run` just calls.
    """

    def __init__(self, writable: Sequence[Path]) -> None:
        self.fd = -1
        abi = abi_version()
        if abi <= 0:
            return
        access = _write_access(abi)
        attr = _RulesetAttr(access)
        fd = int(
            _LIBC.syscall(
                _CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0)
            )
        )
        if fd < 0:
            return
        try:
            for folder in writable:
                self._allow(fd, folder, access)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd

    @staticmethod
    def _allow(ruleset: int, folder: Path, access: int) -> None:
        try:
            target = os.open(folder, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return  # a folder that does not exist needs no rule
        try:
            if not stat.S_ISDIR(os.fstat(target).st_mode):  # a device or file: only file rights apply to it
                access &= _WRITE_FILE | _TRUNCATE
            rule = _PathBeneathAttr(access, target)
            if (
                int(
                    _LIBC.syscall(
                        _ADD_RULE,
                        ctypes.c_int(ruleset),
                        ctypes.c_int(_RULE_PATH_BENEATH),
                        ctypes.byref(rule),
                        ctypes.c_uint32(0),
                    )
                )
                < 0
            ):
                err = ctypes.get_errno()
                raise OSError(err, f"landlock_add_rule({folder}): {os.strerror(err)}")
        finally:
            os.close(target)

    @property
    def active(self) -> bool:
        return self.fd >= 0

    def run(self, start: Callable[[], T]) -> T:
        """Call ``start`` (which starts a process) in a new thread restricted by this ruleset.

        Landlock restricts the calling thread and everything it starts afterwards,
        so the process inherits the restriction while this one stays free, and
        subprocess can still use vfork (a ``preexec_fn`` would force a full fork
        of this process: three times slower). If the restriction fails the
        process is not started: OSError.
        """
        if self.fd < 0:
            return start()
        outcome: list[Any] = []

        def confined() -> None:
            try:
                self.restrict_self()
                outcome.append(start())
            except BaseException as exc:
                outcome.append(_Failed(exc))

        thread = threading.Thread(target=confined, name="landlock-spawn", daemon=True)
        thread.start()
        thread.join()
        if isinstance(outcome[0], _Failed):
            raise outcome[0].error
        return cast(T, outcome[0])

    def restrict_self(self) -> None:
        """Restrict the calling thread (and all it starts) by this ruleset; OSError if it cannot.

        A forked, single-threaded child calls it before it runs the program under test."""
        if self.fd < 0:
            return
        if _LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or (
            _LIBC.syscall(_RESTRICT_SELF, ctypes.c_int(self.fd), ctypes.c_uint32(0)) != 0
        ):
            err = ctypes.get_errno()
            raise OSError(
                err, f"could not confine the command to the workspace (Landlock): {os.strerror(err)}"
            )

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> WriteSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error
