"""Every process a session started, also the ones that left its process group.

Killing a program's process group misses a child that called ``setsid()`` (or
``setpgid``) and was orphaned by a double fork: it belongs to another group and
is adopted by init, so neither the group nor the parent chain leads to it.
Each session therefore marks its program's environment with a token
(:data:`TOKEN_VAR`), which every descendant inherits across ``fork`` and
``exec``; :func:`find` looks for the token, and for descendants of the
session's leader (in case one cleared its environment but is still below it). :func:`kill_all` signals what it finds until nothing is left, so a
process that forks while it is being killed is caught by the next pass.

A process that clears its environment *and* leaves the tree (its parent exits)
carries neither mark, and init would adopt it. So each session's leader is a
child subreaper (:func:`subreaper`): an orphan in its tree is adopted by the
leader and stays below it, where the scan finds it, for as long as the leader
lives. The process that runs sessions is a subreaper too, for what the leader
leaves behind when it exits: an adopted process there is of a session if its
session id is the session leader's (it never called ``setsid``), or if a scan
while the session ran saw it in the tree (the ``seen`` set a session keeps and
refreshes at each :func:`find`). Children this process started itself
(``git``, tool shells, other sessions) match neither rule and are never touched;
adopted zombies of the session are reaped, so none is left behind.

Where to look: while this process is a subreaper and the leader is below it,
nothing the session started can leave this process's tree (an orphan goes to
the nearest subreaper above it, the leader or this process), so the tree is
walked from ``/proc/<pid>/task/*/children``: the few processes below this one,
not every process on the machine. Where the kernel lists no children
(``CONFIG_PROC_CHILDREN`` off) or this process is no subreaper, every process
in ``/proc`` is read instead. (Either way, a process that a server outside,
such as a running tmux server, starts at the session's request is not below
it: the scan found it only when the server passed the environment on.)

Where there is no ``/proc`` (macOS), only the process group is ended.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import secrets
import signal
from collections.abc import Collection, Iterable

from workbench.names import Env

TOKEN_VAR = Env.SESSION
_PROC = "/proc"
_MAX_PASSES = 50
_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37

#: (pid, start time) of processes seen in a session's tree: a pid alone could be reused.
Seen = set[tuple[int, int]]


def new_token() -> str:
    """A value no other session has."""
    return secrets.token_hex(12)


def available() -> bool:
    return os.path.isdir(os.path.join(_PROC, "self"))


@functools.cache
def _libc() -> ctypes.CDLL:
    # the C library this process already has loaded: ctypes.util.find_library("c") would run
    # `ldconfig -p` in a child process (and import ctypes.util) at each start of a run
    return ctypes.CDLL(None, use_errno=True)


def subreaper(on: bool) -> bool:
    """Make this process adopt its descendants' orphans, or stop (Linux ``prctl``); False where it cannot.

    The flag survives ``exec`` but is not inherited by ``fork``. A session sets it
    in its leader (between fork and exec: the loaded C library is reused, nothing
    is imported there) and in the process running sessions while any of them runs.
    In the latter an orphan of some other program this process started (a daemon
    that ``git`` or a tool spawned) is adopted too, and if nobody attributes it to
    a session it stays a zombie until this process exits, so that window is kept
    to the sessions' lifetime.
    """
    if not available():
        return False
    with contextlib.suppress(OSError, AttributeError):
        return bool(_libc().prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0)
    return False


def _is_subreaper() -> bool:
    flag = ctypes.c_int(0)
    with contextlib.suppress(OSError, AttributeError):
        return bool(_libc().prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0 and flag.value)
    return False


@functools.cache
def children_listed() -> bool:
    """Whether the kernel lists each thread's children (``/proc/<pid>/task/<tid>/children``)."""
    return os.path.exists(f"{_PROC}/self/task/{os.getpid()}/children")


def _children(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (a thread that started a child is its parent)."""
    try:
        tasks = os.listdir(f"{_PROC}/{pid}/task")
    except OSError:  # gone
        return []
    found: list[int] = []
    for task in tasks:
        with contextlib.suppress(OSError, ValueError):
            found += map(int, _read(f"{_PROC}/{pid}/task/{task}/children").split())
    return found


def _below(pid: int) -> list[int]:
    """Every process below ``pid`` (not itself), walked down the kernel's lists of children."""
    found: list[int] = []
    known = {pid}
    todo = [pid]
    while todo:
        for child in _children(todo.pop()):
            if child not in known:
                known.add(child)
                found.append(child)
                todo.append(child)
    return found


def _candidates(leader: int) -> Iterable[int]:
    """Where a session's processes can be: below this process if it is a subreaper with the leader below
    it (see the module's docstring), else anywhere."""
    me = os.getpid()
    if children_listed() and _is_subreaper():
        below = _below(me)
        if leader == me or leader in below or _stat(leader) is None:
            return below
    return _pids()


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


def _stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, parent pid, start time in clock ticks after boot, session id) of ``pid``; None if gone."""
    try:
        fields = _read(f"{_PROC}/{pid}/stat").rsplit(b")", 1)[1].split()
        return fields[0].decode(), int(fields[1]), int(fields[19]), int(fields[3])
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


def find(token: str, leader: int, since: int = 0, seen: Seen | None = None) -> list[int]:
    """Live processes (not zombies) of the session; never this one.

    Of the session: carrying ``token``, below ``leader``, or adopted by this
    process and either in the leader's session or in ``seen`` (see the module's
    docstring), and anything below those. ``seen`` is updated with what is
    found, and the session's adopted zombies are reaped. ``since`` (the leader's
    :func:`start_time`) skips the environment of processes older than the
    session, which cannot be of it: most of them, so a scan is cheap.
    """
    if not available():
        return []
    marker = f"\0{TOKEN_VAR}={token}\0".encode()
    me = os.getpid()
    seen = set() if seen is None else seen
    parents: dict[int, int] = {}
    starts: dict[int, int] = {}
    found: set[int] = set()
    roots = {leader}
    for pid in _candidates(leader):
        stat = _stat(pid)
        if stat is None or pid == me:
            continue
        state, parent, start, sid = stat
        adopted = parent == me and start >= since and (sid == leader or (pid, start) in seen)
        if state == "Z":
            if adopted and pid != leader:  # the leader's status is its session's to collect
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
            continue
        parents[pid], starts[pid] = parent, start
        if adopted:
            roots.add(pid)
        if start >= since and _has_token(pid, marker):
            found.add(pid)
    for pid in parents:  # below a root, token or not (the leader may be this process)
        hops, up = 0, pid
        while hops < 64:
            if up in roots:
                found.add(pid)
                break
            if up not in parents:
                break
            up, hops = parents[up], hops + 1
    seen.update((pid, starts[pid]) for pid in found)
    return sorted(found)


def _reap(pids: Iterable[int]) -> None:
    """Collect the killed processes this one adopted (its own children are waited for by their owners)."""
    for pid in pids:
        stat = _stat(pid)
        if stat is not None and stat[1] == os.getpid():
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        if pid <= 0:  # 0 and -1 are every process of a group, or every process there is: never meant
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def kill_all(token: str, leader: int, since: int = 0, seen: Seen | None = None) -> list[int]:
    """SIGKILL every process of the session until none is left, reap the adopted ones; return the pids killed."""
    killed: list[int] = []
    for _ in range(_MAX_PASSES):
        alive = find(token, leader, since, seen)
        if not alive:
            break
        signal_all(alive, signal.SIGKILL)
        killed += [p for p in alive if p not in killed]
    _reap(p for p in killed if p != leader)
    return killed


def kill_adopted(keep: Collection[int]) -> list[int]:
    """SIGKILL every process this one adopted as a subreaper (a child of it that is not in ``keep``, its
    own children) and everything below those, until none is left; reap them; return the pids killed.

    For what a process that ran sessions left when it was killed itself (`run -j`'s worker, SIGKILLed):
    its programs, their groups and the orphans they adopted. A walk of this process's tree per pass (a
    scan of ``/proc`` where the kernel lists no children); rare."""
    if not available():
        return []
    me, killed = os.getpid(), set[int]()
    for _ in range(_MAX_PASSES):
        where = _below(me) if children_listed() else _pids()
        parents = {pid: stat[1] for pid in where if (stat := _stat(pid)) is not None and pid != me}
        below = {pid for pid, parent in parents.items() if parent == me and pid not in keep}
        grown = True
        while grown:
            more = {pid for pid, parent in parents.items() if parent in below and pid not in below}
            below |= more
            grown = bool(more)
        if not below:
            break
        signal_all(below, signal.SIGKILL)
        _reap(below)
        killed |= below
    return sorted(killed)
