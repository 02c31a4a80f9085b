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

import termios

from .line_read import line_reader


def reads_input(master_fd: int) -> bool:
    """Whether the program on the pty whose master is ``master_fd`` takes input now."""
    try:
        if not termios.tcgetattr(master_fd)[3] & termios.ICANON:
            return True
    except termios.error:
        return False
    return line_reader(master_fd) is not None
