"""Every process a session started, also the ones that left its process group.

Killing a program's process group misses a child that called ``setsid()`` (or
``setpgid``) and was orphaned by a double fork: it belongs to another group and
is adopted by init, so neither the group nor the parent chain leads to it.
Each session therefore marks its program's environment with a token
(:data:`TOKEN_VAR`), which every descendant inherits across ``fork`` and
``exec``; :func:`find` scans ``/proc`` for the token, and for descendants of
the session's leader (in case one cleared its environment but is still below
it). :func:`kill_all` signals what it finds until nothing is left, so a
process that forks while it is being killed is caught by the next pass.

Where there is no ``/proc`` (macOS), only the process group is ended.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
from collections.abc import Iterable

TOKEN_VAR = "WORKBENCH_SESSION"
_PROC = "/proc"
_MAX_PASSES = 50


def new_token() -> str:
    """A value no other session has."""
    return secrets.token_hex(12)


def available() -> bool:
    return os.path.isdir(os.path.join(_PROC, "self"))


def _pids() -> Iterable[int]:
    with contextlib.suppress(OSError):
        for name in os.listdir(_PROC):
            if name.isdigit():
                yield int(name)


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time in clock ticks after boot) of ``pid``, None if it is gone."""
    try:
        fields = _read(f"{_PROC}/{pid}/stat").rsplit(b")", 1)[1].split()
        return fields[0].decode(), int(fields[1]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def start_time(pid: int) -> int:
    """When ``pid`` started (clock ticks after boot); 0 if unknown. Its descendants started no earlier."""
    stat = _stat(pid) if available() else None
    return stat[2] if stat else 0


def _has_token(pid: int, marker: bytes) -> bool:
    try:
        return marker in b"\0" + _read(f"{_PROC}/{pid}/environ")
    except OSError:  # gone, or not ours to read
        return False


def find(token: str, leader: int, since: int = 0) -> list[int]:
    """Live processes (not zombies) that carry ``token`` or descend from ``leader``; never this one.

    ``since`` (the leader's :func:`start_time`) skips the environment of processes
    older than the session, which cannot be of it: most of them, so the scan is cheap.
    """
    if not available():
        return []
    marker = f"\0{TOKEN_VAR}={token}\0".encode()
    me = os.getpid()
    parents: dict[int, int] = {}
    found: set[int] = set()
    for pid in _pids():
        stat = _stat(pid)
        if stat is None or stat[0] == "Z" or pid == me:
            continue
        parents[pid] = stat[1]
        if stat[2] >= since and _has_token(pid, marker):
            found.add(pid)
    for pid in parents:  # below the leader, token or not (the leader may be this process)
        seen, up = 0, pid
        while seen < 64:
            if up == leader:
                found.add(pid)
                break
            if up not in parents:
                break
            up, seen = parents[up], seen + 1
    return sorted(found)


def signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def kill_all(token: str, leader: int, since: int = 0) -> list[int]:
    """SIGKILL every process of the session until none is left; return the pids that were killed."""
    killed: list[int] = []
    for _ in range(_MAX_PASSES):
        alive = find(token, leader, since)
        if not alive:
            break
        signal_all(alive, signal.SIGKILL)
        killed += [p for p in alive if p not in killed]
    return killed
