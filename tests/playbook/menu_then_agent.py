"""A TUI that asks before the agent starts: a numbered menu with a cursor (arrow keys move it, Enter picks),
then a `(y/n)` confirm; it prints what was chosen and becomes the agent given after `--`."""

from __future__ import annotations

import os
import sys
import termios
import tty

OPTIONS = ["Opus", "Sonnet", "Haiku"]


def draw(cursor: int) -> None:
    sys.stdout.write("\x1b[2J\x1b[HPick a model:\r\n")
    for n, label in enumerate(OPTIONS):
        sys.stdout.write(f"{'❯' if n == cursor else ' '} {n + 1}. {label}\r\n")
    sys.stdout.flush()


def main() -> None:
    agent = sys.argv[sys.argv.index("--") + 1 :]
    saved = termios.tcgetattr(0)
    tty.setraw(0)
    cursor, pending = 0, b""
    try:
        draw(cursor)
        while True:
            pending += os.read(0, 64)
            while pending:
                if pending.startswith((b"\x1b[A", b"\x1b[B")):
                    step = -1 if pending[2:3] == b"A" else 1
                    cursor, pending = max(0, min(len(OPTIONS) - 1, cursor + step)), pending[3:]
                    draw(cursor)
                elif pending[:1] in (b"\r", b"\n"):
                    pending = b""
                    break
                elif pending[:1] == b"\x1b" and len(pending) < 3:
                    break  # the rest of the arrow key is on its way
                else:
                    pending = pending[1:]
            else:
                continue
            break
    finally:
        termios.tcsetattr(0, termios.TCSADRAIN, saved)
    sys.stdout.write(f"\x1b[2J\x1b[Hchose {OPTIONS[cursor]}\n")
    answer = input("Start the agent? (y/n) ")
    if answer.strip() != "y":
        print("not started")
        return
    os.execvp(agent[0], agent)


if __name__ == "__main__":
    main()
