"""The control channel between the engine and the mock agent.

At ``--speed max`` the mock agent never sleeps: the engine paces it, step by
step, over a Unix socket that carries JSON lines. Screens are identical at every
speed because each exchange ends with a byte count: the agent reports how many
bytes it has written to the terminal so far, and the engine waits until its pty
reader has consumed that many before it looks at the screen. (The agent turns
the terminal's output processing off, so bytes written equal bytes read.)

Engine -> agent::

    {"op": "step", "index": 3}        play schedule step 3 (an agent step)
    {"op": "sync", "bytes": 120}      wait until 120 bytes of typed input were read
    {"op": "end"}                     finish: reply "bye" and exit

Agent -> engine::

    {"op": "hello", "pid": 123, "written": 80}
    {"op": "done", "index": 3, "written": 512, "failures": [{"kind", "message", "line"}]}
    {"op": "synced", "written": 530}
    {"op": "bye", "exit": 0, "written": 600}
    {"op": "crash", "error": "KeyError: 'x'", "path": "/tmp/workbench-crash-....txt"}

``crash`` is the agent's last word when a bug stops it (in the agent or in a
tool): the traceback is in the file, and the engine raises
:class:`~workbench.crash.ReportedCrash` (an internal error, exit 3) instead of
seeing a closed channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import socket
import sys
import tempfile
from collections.abc import Awaitable, Callable
from typing import Any

from workbench import tempfolders
from workbench.crash import ReportedCrash, summary, write_crash_report
from workbench.names import Env
from workbench.usage import EXIT_INTERNAL

ENV_VAR = Env.CONTROL
_CRASH_FILE = re.compile(r"the traceback is in (\S+?\.txt)")
SUN_PATH_MAX = 107 if sys.platform.startswith("linux") else 103
"""Bytes of a Unix socket path, without its NUL (108 on Linux, 104 on macOS and the BSDs)."""
_NAME = "wb-ctl-XXXXXXXX/c"  # what mkdtemp and the socket's name add to the base folder


def socket_folders() -> list[str]:
    """Where a control socket may live, best first: TMPDIR (via tempfile), then short standard places."""
    candidates = [
        tempfile.gettempdir(),
        os.environ.get("XDG_RUNTIME_DIR", ""),
        "/tmp",
        "/dev/shm",
        "/var/tmp",
    ]
    seen: list[str] = []
    for base in candidates:
        if base and base not in seen:
            seen.append(base)
    return seen


def private_socket_path() -> tuple[str, str]:
    """A fresh private (0700) folder and the socket path inside it, short enough for ``AF_UNIX``.

    ``TMPDIR`` is used when the path fits; a long one (macOS has 50-character
    ones, CI runners nest deeper) falls back to a short standard folder, so the
    channel works whatever ``TMPDIR`` is. Returns ``(folder, path)``.
    """
    for base in socket_folders():
        if len(os.fsencode(os.path.join(base, _NAME))) + len(tempfolders.owner_tag()) + 1 > SUN_PATH_MAX:
            continue
        try:
            folder = str(tempfolders.make("ctl", base))  # named after this process: a later run sweeps it
        except OSError:
            continue
        path = os.path.join(folder, "c")
        if len(os.fsencode(path)) <= SUN_PATH_MAX:
            return folder, path
        shutil.rmtree(folder, ignore_errors=True)
    raise ControlError(
        f"no writable folder gives a Unix socket path under {SUN_PATH_MAX + 1} bytes "
        f"(tried {', '.join(socket_folders())}); set TMPDIR to a short writable folder"
    )


class ControlError(RuntimeError):
    """The other side broke the protocol or went away."""


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


class AgentLink:
    """The agent's end: a blocking socket (the agent is single-threaded)."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self._buffer = b""

    def fileno(self) -> int:
        return self.sock.fileno()

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(encode(message))

    def read_available(self) -> list[dict[str, Any]]:
        """Read what the socket has (call when select says readable); [] plus EOF raises."""
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ControlError("the engine closed the control channel")
        self._buffer += chunk
        messages = []
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            if line.strip():
                messages.append(json.loads(line))
        return messages

    def report_crash(self, exc: BaseException) -> str:
        """Write the crash file and tell the engine where it is (if it still listens); return the path."""
        path = write_crash_report(exc)
        with contextlib.suppress(OSError):
            self.send({"op": "crash", "error": summary(exc), "path": path})
        return path

    def close(self) -> None:
        self.sock.close()


class EngineLink:
    """The engine's end: an asyncio Unix server that accepts exactly one agent.

    Without a ``path`` it listens in a private folder of its own (see
    :func:`private_socket_path`), removed by :meth:`close`; :attr:`path` is set
    once :meth:`start` has run.
    """

    def __init__(self, path: str | None = None) -> None:
        self.path = path or ""
        self._folder: str | None = None
        self._server: asyncio.AbstractServer | None = None
        self._connected: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]] | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._connected = loop.create_future()

        def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if self._connected is not None and not self._connected.done():
                self._connected.set_result((reader, writer))
            else:
                writer.close()

        if not self.path:
            self._folder, self.path = private_socket_path()
        self._server = await asyncio.start_unix_server(accept, path=self.path)

    async def wait_connected(
        self,
        timeout: float,
        exited: Awaitable[int] | None = None,
        screen: Callable[[], str] | None = None,
    ) -> dict[str, Any]:
        """Until the agent connects and says hello; ``exited`` (the agent's exit) ends the wait early.

        An agent that exits before connecting raises ControlError with its exit code
        and ``screen``; one that exits 3 printed where its crash file is (as every
        workbench command does for a bug): that is a :class:`ReportedCrash`.
        """
        assert self._connected is not None
        connected = asyncio.ensure_future(asyncio.shield(self._connected))
        waiters: set[asyncio.Future[Any]] = {connected}
        exit_task = asyncio.ensure_future(exited) if exited is not None else None
        if exit_task is not None:
            waiters.add(exit_task)
        try:
            await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waiters:
                if not task.done():
                    task.cancel()
        if not self._connected.done():
            if (
                exit_task is not None
                and exit_task.done()
                and not exit_task.cancelled()
                and not exit_task.exception()
            ):
                self._gone_before_hello(exit_task.result(), screen() if screen else "")
            raise TimeoutError(f"the mock agent did not connect within {timeout:g} s")
        self._reader, self._writer = self._connected.result()
        return await self.receive(timeout, expect="hello")

    @staticmethod
    def _gone_before_hello(code: int, screen: str) -> None:
        crash = _CRASH_FILE.search(screen.replace("\n", ""))
        if code == EXIT_INTERNAL and crash:
            raise ReportedCrash("the mock agent", f"it exited {code} before connecting", crash.group(1))
        shown = screen.rstrip()
        raise ControlError(
            f"the mock agent exited with {code} before connecting"
            + (f"; the screen was:\n{shown}" if shown else "")
        )

    async def send(self, message: dict[str, Any]) -> None:
        if self._writer is None:
            raise ControlError("the mock agent is not connected")
        self._writer.write(encode(message))
        await self._writer.drain()

    async def receive(self, timeout: float, expect: str | None = None) -> dict[str, Any]:
        if self._reader is None:
            raise ControlError("the mock agent is not connected")
        line = await asyncio.wait_for(self._reader.readline(), timeout)
        if not line:
            raise ControlError("the mock agent closed the control channel (did it exit?)")
        message: dict[str, Any] = json.loads(line)
        if message.get("op") == "crash":
            raise ReportedCrash("the mock agent", str(message.get("error")), str(message.get("path")))
        if expect is not None and message.get("op") != expect:
            raise ControlError(f"expected `{expect}` from the mock agent, got {message}")
        return message

    async def request(self, message: dict[str, Any], expect: str, timeout: float) -> dict[str, Any]:
        await self.send(message)
        return await self.receive(timeout, expect)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await self._writer.wait_closed()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
