"""Start an ACP agent with its stdin/stdout on Unix sockets and its stderr where it is (the run's pty).

``python -m workbench.acp.launch SOCKET -- ARGV...`` makes two connections to
the engine's socket, one for fd 0 and one for fd 1 (each announced by one tag
byte), and ``exec``s the agent: the agent is the process the engine's terminal
runs (its pid, its exit code, its stderr on screen and in the recording), while
the protocol runs on the sockets.

Two connections, not one on both fds: asyncio watches a socket used as a
*write* pipe for readability to notice the peer closing, so an agent whose
stdin and stdout were one socket would take the first message it receives for
a hang-up (Python SDK agents do exactly that).
"""

from __future__ import annotations

import os
import socket
import sys

STDIN_TAG, STDOUT_TAG = b"I", b"O"


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python -m workbench.acp.launch SOCKET -- ARGV...", file=sys.stderr)
        return 2
    path, command = argv[0], argv[2:]
    for fd, tag in ((0, STDIN_TAG), (1, STDOUT_TAG)):
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(path)
            conn.sendall(tag)
        except OSError as exc:
            print(
                f"workbench acp launch: cannot reach the engine at {path}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return 3
        os.dup2(conn.fileno(), fd)
        conn.close()
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"workbench acp launch: cannot start {command[0]!r}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
