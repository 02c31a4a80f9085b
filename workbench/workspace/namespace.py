"""Bubblewrap's confinement for a process that is already running: the forked mock agent.

The engine starts the mock agent by forking its own warm process (no exec, so no ``bwrap`` on a
command line). The forked child, still single-threaded, calls :func:`confine_self` before the agent
runs: a user and mount namespace of its own in which the whole file system is read-only except the
``writable`` folders, and ``/dev/shm`` is a private, empty tmpfs, which is what ``bwrap --ro-bind / /
--bind F F --tmpfs /dev/shm`` gives. Unlike Landlock, this still lets the agent's own shell commands
start under bubblewrap (a Landlock-restricted process may not make mounts). Read-only mounts stop
``chmod`` and ``touch`` too; devices (the terminal, ``/dev/null``) stay writable, as a read-only mount
does not cover writes to a device. The network is not touched.

A process confined this way knows it (:func:`confined`, this process's own state, which no
environment variable can fake): the commands it starts through :class:`.sandbox.Sandbox` are then
confined by Landlock on top of this namespace instead of by a second ``bwrap``.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from pathlib import Path

_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_MS_BIND, _MS_REC, _MS_SLAVE = 4096, 16384, 1 << 19
_MOUNT_SETATTR = 442  # the same on every Linux architecture (the unified numbers from 424 on)
_AT_FDCWD, _AT_RECURSIVE = -100, 0x8000
_MOUNT_ATTR_RDONLY = 1


_confined = False


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]  # fmt: skip


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"could not confine the program ({what}): {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as out:
        out.write(text)


def confine_self(writable: Sequence[Path]) -> None:
    """Make this (single-threaded) process's file system read-only but for ``writable``; OSError if it cannot.

    ``/dev`` in ``writable`` means a private ``/dev/shm`` (devices are writable anyway)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    uid, gid = os.getuid(), os.getgid()
    _check(libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _check(libc.mount(None, b"/", None, _MS_REC | _MS_SLAVE, None), "private mounts")

    def setattr_(path: Path, attr_set: int, attr_clr: int) -> None:
        attr = _MountAttr(attr_set, attr_clr, 0, 0)
        result = libc.syscall(_MOUNT_SETATTR, ctypes.c_int(_AT_FDCWD), os.fsencode(path),
                              ctypes.c_uint(_AT_RECURSIVE), ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)))  # fmt: skip
        _check(int(result), f"mount_setattr {path}")

    setattr_(Path("/"), _MOUNT_ATTR_RDONLY, 0)
    for folder in writable:
        folder = Path(folder)
        if folder == Path("/dev"):
            _check(libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", 0, b"mode=1777"), "a private /dev/shm")
        elif folder.exists():
            _check(libc.mount(os.fsencode(folder), os.fsencode(folder), None, _MS_BIND | _MS_REC, None),
                   f"bind {folder}")  # fmt: skip
            setattr_(folder, 0, _MOUNT_ATTR_RDONLY)
    os.chdir(os.getcwd())  # the working folder as seen through the new mounts (else it is the read-only one)
    global _confined
    _confined = True


def confined() -> bool:
    """Whether this process has confined itself with :func:`confine_self` (its children inherit the namespace)."""
    return _confined
