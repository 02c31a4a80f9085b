"""Open files under a root so that no path, however it changes meanwhile, leads out of it.

Checking a path and then opening it is a race: a folder on the way can be
swapped for a symlink to elsewhere between the two. Here the check *is* the
open. On Linux 5.6+ ``openat2`` with ``RESOLVE_BENEATH`` resolves the whole
path in the kernel relative to the root's descriptor and refuses (``EXDEV``)
anything that would leave it, symlinks included, while symlinks that stay
inside still work. Elsewhere each folder is opened relative to the previous
one with ``O_NOFOLLOW``, so a symlink anywhere on the way is refused outright.

Missing folders are created one at a time relative to their parent's
descriptor (``mkdir(dir_fd=...)``), never by a path.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import sys
from pathlib import Path, PurePosixPath
from typing import Any

from .confine import WorkspaceError

_OPENAT2 = 437  # the same number on every Linux architecture (a syscall added after the unification)
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_BENEATH = 0x08
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def _load_openat2() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        syscall = ctypes.CDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):
        return None
    syscall.restype = ctypes.c_long
    return syscall


_syscall = _load_openat2()
_has_openat2: bool | None = None if _syscall is not None else False


def _openat2(dir_fd: int, rel: str, flags: int, mode: int) -> int:
    """``openat2(dir_fd, rel, flags, mode, RESOLVE_BENEATH)``; OSError on failure, ENOSYS if there is none."""
    assert _syscall is not None
    how = _OpenHow(
        flags | os.O_CLOEXEC, mode if flags & os.O_CREAT else 0, _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS
    )
    fd = int(
        _syscall(
            ctypes.c_long(_OPENAT2), ctypes.c_int(dir_fd), ctypes.c_char_p(os.fsencode(rel)),
            ctypes.byref(how), ctypes.c_size_t(ctypes.sizeof(how)),
        )
    )  # fmt: skip
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), rel)
    return fd


def kernel_confines() -> bool:
    """Whether ``openat2`` with ``RESOLVE_BENEATH`` works here (else the O_NOFOLLOW walk is used)."""
    global _has_openat2
    if _has_openat2 is None:
        try:
            os.close(_openat2(os.open("/", _DIR_FLAGS), ".", _DIR_FLAGS, 0))
            _has_openat2 = True
        except OSError:
            _has_openat2 = False
    return _has_openat2


def _parts(rel: str) -> list[str]:
    pure = PurePosixPath(rel)
    if pure.is_absolute() or not rel or "\x00" in rel:
        raise WorkspaceError(f"`{rel}` is not a relative path")
    parts = [p for p in pure.parts if p != "."]
    if ".." in parts:
        raise WorkspaceError(f"`{rel}` climbs out with `..`")
    return parts


def _escape(rel: str, what: str) -> WorkspaceError:
    return WorkspaceError(f"{what}: `{rel}` leads outside the workspace (through a symlink)")


def _open_step(dir_fd: int, name: str, flags: int, mode: int, rel: str, what: str) -> int:
    """Open ``name`` in the folder ``dir_fd`` without leaving it."""
    try:
        if kernel_confines():
            return _openat2(dir_fd, name, flags, mode)
        return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.EXDEV, errno.ELOOP):
            raise _escape(rel, what) from None
        raise


def _open_folder(root_fd: int, parts: list[str], create: bool, rel: str, what: str) -> int:
    """A descriptor of the folder ``parts`` below ``root_fd``, made (one level at a time) if ``create``."""
    fd = os.dup(root_fd)
    try:
        for name in parts:
            try:
                step = _open_step(fd, name, _DIR_FLAGS, 0, rel, what)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(
                    FileExistsError
                ):  # made meanwhile, or a dangling symlink (refused below)
                    os.mkdir(name, 0o777, dir_fd=fd)
                step = _open_step(fd, name, _DIR_FLAGS, 0, rel, what)
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_beneath(
    root: Path, rel: str, flags: int, *, mode: int = 0o666, make_parents: bool = False, what: str = "path"
) -> int:
    """A descriptor of ``rel`` under ``root`` opened with ``flags``; WorkspaceError if it would leave ``root``.

    ``make_parents`` creates missing folders on the way (relative to their parent, never by path).
    """
    parts = _parts(rel)
    root_fd = os.open(root, _DIR_FLAGS)
    try:
        if kernel_confines():  # the whole path at once, so inner symlinks resolve as they do from the root
            try:
                return _open_step(root_fd, "/".join(parts) or ".", flags, mode, rel, what)
            except FileNotFoundError:
                if not make_parents:
                    raise
        folder = _open_folder(root_fd, parts[:-1], make_parents, rel, what)
        try:
            return _open_step(folder, parts[-1] if parts else ".", flags, mode, rel, what)
        finally:
            os.close(folder)
    finally:
        os.close(root_fd)


def write_beneath(root: Path, rel: str, data: bytes, *, append: bool = False, what: str = "path") -> None:
    """Write (or append) ``data`` to ``rel`` under ``root``, creating it and its folders; never outside."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    fd = open_beneath(root, rel, flags, mode=0o666, make_parents=True, what=what)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def read_beneath(root: Path, rel: str, *, what: str = "path") -> bytes:
    """The bytes of ``rel`` under ``root``, read without leaving it."""
    fd = open_beneath(root, rel, os.O_RDONLY, what=what)
    with os.fdopen(fd, "rb") as f:
        return f.read()
