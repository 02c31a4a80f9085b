"""Whether a local client has *read* what the server sent it, not merely been sent it.

A screen is read once the client has had the chance to draw every event.
Writing the event to the socket is not enough on a busy machine: the client
may not have been scheduled yet, and its screen is then "quiet" only because
it has not started. On loopback both ends of the connection are on this
machine, so the kernel's table of TCP sockets (``/proc/net/tcp``, ``tcp6``)
shows the client socket's receive queue: bytes that arrived and that the
client has not read. Where that table does not exist, the answer is "read".
"""

from __future__ import annotations

import contextlib
import ipaddress
from pathlib import Path

TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))


def _key(address: tuple[str, int]) -> tuple[str, str] | None:
    """(hex address, hex port) as the table writes the client's local address."""
    host, port = address[0], address[1]
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return None
    raw = ip.packed
    # the kernel prints each 32-bit word in host byte order (little-endian here)
    words = [raw[i : i + 4][::-1].hex().upper() for i in range(0, len(raw), 4)]
    return "".join(words), f"{port:04X}"


def unread_bytes(client: tuple[str, int]) -> int:
    """Bytes waiting in the receive queue of the local socket bound to ``client`` (its address and port)."""
    key = _key(client)
    if key is None:
        return 0
    for table in TABLES:
        with contextlib.suppress(OSError):
            found = queued(table.read_text(), key)
            if found is not None:
                return found
    return 0


def queued(table: str, key: tuple[str, str]) -> int | None:
    """The receive queue of the socket whose local address is ``key`` in ``table`` (the text of
    ``/proc/net/tcp`` or ``tcp6``); None if no row has that address. Several rows can: a connection
    that ended on the same port lingers in TIME_WAIT, its queue empty, and may come first (a busy
    machine reuses ports), so the live socket is the one with the most bytes waiting."""
    local = f"{key[0]}:{key[1]}"
    queues = [
        int(fields[4].split(":")[1], 16)
        for line in table.splitlines()[1:]
        if len(fields := line.split()) > 4 and fields[1] == local
    ]
    return max(queues) if queues else None
