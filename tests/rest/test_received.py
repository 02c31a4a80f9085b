"""Whether a local client has read what it was sent: the kernel's receive queue of its socket."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from workbench.rest.received import queued, unread_bytes


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs /proc/net/tcp")
@pytest.mark.parametrize("family, host", [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")])
def test_unread_bytes_are_what_the_client_has_not_read_yet(family: int, host: str) -> None:
    try:
        server = socket.socket(family, socket.SOCK_STREAM)
        server.bind((host, 0))
    except OSError:
        pytest.skip(f"no {host} here")
    server.listen()
    with server, socket.socket(family, socket.SOCK_STREAM) as client:
        client.connect(server.getsockname()[:2])
        conn, _ = server.accept()
        with conn:
            me = client.getsockname()[:2]
            assert unread_bytes(me) == 0
            conn.sendall(b"x" * 1000)
            deadline = time.monotonic() + 10
            while unread_bytes(me) < 1000:  # loopback delivery is immediate; the loop only guards the test
                assert time.monotonic() < deadline
                time.sleep(0.01)
            assert unread_bytes(me) == 1000
            assert client.recv(400) == b"x" * 400
            assert unread_bytes(me) == 600
            client.recv(600)
            assert unread_bytes(me) == 0


def test_a_connection_that_ended_on_the_same_port_does_not_hide_the_live_ones_queue() -> None:
    """A busy machine reuses ports: the row of an ended connection (TIME_WAIT, nothing queued) on the
    client's port can come before the live socket's in the table, which then read as "all read" (0): a
    full run of the suite on a loaded machine waited for the 1000 bytes here until its deadline."""
    header = (
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"
    )
    ended = "   0: 0100007F:A1B2 0100007F:1F90 06 00000000:00000000 03:00001234 00000000     0        0 0 3 0"
    live = (
        "   1: 0100007F:A1B2 0100007F:2710 01 00000000:000003E8 00:00000000 00000000  1000        0 4242 1 0"
    )
    other = (
        "   2: 0100007F:C3D4 0100007F:2710 01 00000000:00000010 00:00000000 00000000  1000        0 4243 1 0"
    )
    key = ("0100007F", "A1B2")
    assert queued("\n".join([header, ended, live, other]), key) == 1000
    assert queued("\n".join([header, live, ended]), key) == 1000
    assert queued("\n".join([header, other]), key) is None
