"""Whether the program on a pty is ready to read what is typed.

A program is ready once its terminal asks for input: either it switched the
terminal out of canonical mode (what every TUI does before it reads keys:
Ink's ``setRawMode``, curses' ``cbreak``, readline), which the pty's master
side shows in its ``termios`` flags; or a process of the terminal's foreground
process group is blocked in ``read()`` for a line from it
(:func:`workbench.terminal.line_read.line_reader`). Both are read from the
kernel, not from the screen, so no text and no quiet period decides it.
"""

from __future__ import annotations

import array
import fcntl
import os
import select
import termios

from .line_read import line_reader

_TIOCGPTN = 0x80045430  # Linux: the number N of the pty's other end, /dev/pts/N


def reads_input(master_fd: int) -> bool:
    """Whether the program on the pty whose master is ``master_fd`` takes input now."""
    return reads_keys(master_fd) or line_reader(master_fd) is not None


def reads_keys(master_fd: int) -> bool:
    """Whether the program takes each key as it comes (its terminal out of canonical mode: a TUI)."""
    try:
        return not termios.tcgetattr(master_fd)[3] & termios.ICANON
    except termios.error:
        return False


def unread_input(master_fd: int) -> int | None:
    """How many typed bytes the program on the pty has not read yet, from the kernel's queue of the pty's
    other end; None where that cannot be told (not Linux, the other end gone). Exact about none: a count
    above none may leave out bytes the kernel has not pushed into the queue yet."""
    try:
        number = array.array("I", [0])
        fcntl.ioctl(master_fd, _TIOCGPTN, number)
        fd = os.open(f"/dev/pts/{number[0]}", os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        # Bytes written to the master reach this queue through the kernel's flip buffer, pushed by a worker
        # a moment later; polling this end waits for that push when the queue looks empty (n_tty_poll
        # flushes it then), so a key not yet pushed is counted as unread rather than taken for read.
        waiting = select.poll()
        waiting.register(fd, select.POLLIN)
        waiting.poll(0)
        count = array.array("i", [0])
        fcntl.ioctl(fd, termios.FIONREAD, count)
        return count[0]
    except OSError:
        return None
    finally:
        os.close(fd)
