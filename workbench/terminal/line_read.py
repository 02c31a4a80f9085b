"""Whether the program in a pty waits to read a line from its terminal: the sign of a free-text question.

On the screen a free-text question (``Commit message:``) looks like any output
that ends in a colon; what sets it apart is what the program does, which the
kernel shows. :func:`line_reader` says a line is awaited when all of these hold:

1. the terminal is in canonical mode (``ICANON`` in the termios the program
   set, read through the pty's master): the program has the kernel edit and
   hand it a whole line (``input()``, ``read -r``, ``fgets``, ``getpass`` with
   ``ECHO`` off);
2. the main thread of a process of the terminal's foreground process group is
   blocked in ``read()`` (``/proc/PID/syscall``) on a descriptor that is that
   process's controlling terminal (its ``st_rdev`` is ``tty_nr`` of
   ``/proc/PID/stat``);
3. no complete line waits to be read: ``poll()`` on the terminal (opened
   through ``/proc/PID/fd/N``, never read) is not readable. The kernel's poll
   first hands the line discipline any bytes still in flight from the master,
   so a line that was typed but not yet read is never taken for a new question.

Nothing here depends on time: a program that prints ``Working:`` and goes on
working is not in ``read()``, and a line already typed keeps (3) false until the
program has read it. Programs that edit the line themselves (raw mode: GNU
readline, Node's readline, most TUIs) fail (1), and programs that wait in
``poll``/``epoll`` fail (2): their questions are not recognised here (text rules
answer them). Where ``/proc/PID/syscall`` cannot be read (another user's
process, a kernel without it) or the architecture's ``read`` number is not
known, no line read is ever reported.
"""

from __future__ import annotations

import contextlib
import os
import select
import termios

# the number of read(2) in each architecture's system call table
_READ_SYSCALL = {"x86_64": 0, "amd64": 0, "aarch64": 63, "arm64": 63, "riscv64": 63, "loongarch64": 63,
                 "i386": 3, "i686": 3, "armv7l": 3, "ppc64le": 3, "ppc64": 3, "s390x": 3}  # fmt: skip


def line_reader(fd: int) -> int | None:
    """The pid of the process waiting in ``read()`` for a line from the pty whose master is ``fd``, or None."""
    number = _READ_SYSCALL.get(os.uname().machine.lower())
    try:
        canonical = termios.tcgetattr(fd)[3] & termios.ICANON
        group = os.tcgetpgrp(fd)
    except (termios.error, OSError):
        return None
    if number is None or not canonical or group <= 0:
        return None
    for pid in _members(group):
        terminal = _blocked_read_on_terminal(pid, number)
        if terminal is not None and not _line_waiting(terminal):
            return pid
    return None


def _members(group: int) -> list[int]:
    """The processes of process group ``group``, its leader first."""
    found = [group]
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if (
                entry.name.isdigit()
                and int(entry.name) != group
                and _stat(int(entry.name))[:1] == [str(group)]
            ):
                found.append(int(entry.name))
    return found


def _stat(pid: int) -> list[str]:
    """Fields of ``/proc/PID/stat`` from the process group on (pgrp, session, tty_nr, ...); [] if gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as file:
            return file.read().rsplit(")", 1)[1].split()[2:]
    except (OSError, IndexError):
        return []


def _blocked_read_on_terminal(pid: int, number: int) -> str | None:
    """``/proc/PID/fd/N`` when the process's main thread is blocked in ``read(N, ...)`` on its terminal."""
    try:
        with open(f"/proc/{pid}/syscall", encoding="ascii") as file:
            fields = file.read().split()
    except OSError:
        return None
    if len(fields) < 2 or fields[0] != str(number):
        return None  # "running", another call, or not in a call at all
    stat = _stat(pid)
    if len(stat) < 3:
        return None
    path = f"/proc/{pid}/fd/{int(fields[1], 16)}"
    try:
        device = os.stat(path).st_rdev
    except (OSError, ValueError):
        return None
    return path if device != 0 and device == int(stat[2]) else None


def _line_waiting(terminal: str) -> bool:
    """Whether a complete line waits in the terminal's input (poll flushes what is in flight first)."""
    try:
        fd = os.open(terminal, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return True  # cannot tell: never answer on a guess
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    finally:
        os.close(fd)
