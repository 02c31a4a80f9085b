"""Whether the program on a pty is ready to read what is typed.

A program is ready once its terminal asks for input: either it switched the
terminal out of canonical mode (what every TUI does before it reads keys:
Ink's ``setRawMode``, curses' ``cbreak``, readline), which the pty's master
side shows in its ``termios`` flags; or a process of the terminal's foreground
process group sleeps in a terminal read (a line-based program's ``read`` on
its canonical terminal waits in ``n_tty_read``, seen in ``/proc/<pid>/wchan``
as that or ``wait_woken``). Both are read from the kernel, not from the screen,
so no text and no quiet period decides it.
"""

from __future__ import annotations

import os
import termios

TTY_READ_WAITS = frozenset({"n_tty_read", "wait_woken"})


def reads_input(master_fd: int) -> bool:
    """Whether the program on the pty whose master is ``master_fd`` takes input now."""
    try:
        if not termios.tcgetattr(master_fd)[3] & termios.ICANON:
            return True
        group = os.tcgetpgrp(master_fd)
    except (termios.error, OSError):
        return False
    return any(_waits_in_tty_read(pid) for pid in _members(group))


def _members(group: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        except OSError:
            continue
        if len(fields) > 2 and fields[2] == str(group):  # state ppid pgrp ...
            out.append(int(entry))
    return out


def _waits_in_tty_read(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/wchan", encoding="utf-8") as f:
            return f.read().strip() in TTY_READ_WAITS
    except OSError:
        return False
