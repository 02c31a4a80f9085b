"""Whether a local client has read what it was sent: the kernel's receive queue of its socket."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from workbench.rest.received import unread_bytes


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
