"""A program that asks for keys at once and drops them while it loads, for tests: as an Ink app on a busy
machine does (qwen-code 0.24 lost a scenario's first input so), it puts its terminal in raw mode, draws a
banner, then keeps busy for SECONDS with a quiet screen, reading and dropping whatever is typed; then it
puts the terminal back and runs COMMAND in its place.

    python3 busy_start.py SECONDS COMMAND [ARG...]
"""

import contextlib
import os
import sys
import termios
import time
import tty

seconds, command = float(sys.argv[1]), sys.argv[2:]
saved = termios.tcgetattr(0)
tty.setraw(0)
os.write(1, b"loading...\r\n")
os.set_blocking(0, False)
end = time.monotonic() + seconds
while time.monotonic() < end:  # busy, as a program loading its modules is: no sleep
    with contextlib.suppress(BlockingIOError):
        os.read(0, 1024)  # what is typed now is read and dropped
os.set_blocking(0, True)
termios.tcsetattr(0, termios.TCSANOW, saved)
os.execvp(command[0], command)
