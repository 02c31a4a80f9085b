"""A program in a real pseudo-terminal, driven from asyncio without blocking the loop.

The pty's master fd is non-blocking and watched with ``loop.add_reader``: each
read is decoded incrementally (a UTF-8 character split across reads comes out
whole; invalid bytes become U+FFFD), fed to the :class:`~.screen.Screen`, passed
to the recorder, and then dropped, so a program that floods output costs time,
not memory. Answers to terminal queries go straight back to the program.

The child is a session and process-group leader (ptyprocess calls ``setsid``),
so :meth:`PtySession.terminate` ends the whole group: SIGHUP and SIGTERM, a short
grace, then SIGKILL. Sessions still alive at interpreter exit are killed the same
way. Exit codes follow the shell: the status, or 128 + the signal number.
"""

from __future__ import annotations

import asyncio
import atexit
import codecs
import contextlib
import os
import re
import signal
import time
import weakref
from collections.abc import Mapping, Sequence

from ptyprocess import PtyProcess

from .asciicast import AsciicastRecorder
from .keys import encode_keys
from .screen import Screen

READ_SIZE = 65536
_LIVE: weakref.WeakSet[PtySession] = weakref.WeakSet()


class WaitTimeout(TimeoutError):
    """A wait ran out of time; the message shows what the screen looked like."""


class PtySession:
    def __init__(self, proc: PtyProcess, screen: Screen, recorder: AsciicastRecorder | None) -> None:
        self.proc = proc
        self.pid: int = proc.pid
        self.fd: int = proc.fd
        self.screen = screen
        self.recorder = recorder
        self.bytes_read = 0
        self.eof = False
        self.exit_code: int | None = None
        self._loop = asyncio.get_running_loop()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._changed = asyncio.Event()
        self._last_output = time.monotonic()
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._outbox = bytearray()
        self._closed = False
        screen.on_answer = self._answer
        os.set_blocking(self.fd, False)
        self._loop.add_reader(self.fd, self._on_readable)
        _LIVE.add(self)

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str,
        width: int = 80,
        height: int = 24,
        recorder: AsciicastRecorder | None = None,
        scrollback: int = 1000,
    ) -> PtySession:
        """Start ``argv`` in a new pty of ``width`` x ``height``; raises OSError if it cannot start."""
        try:
            proc = PtyProcess.spawn(list(argv), cwd=cwd, env=dict(env), dimensions=(height, width))
        except FileNotFoundError as exc:
            raise FileNotFoundError(f"cannot start {argv[0]!r}: {exc}") from None
        return cls(proc, Screen(width, height, scrollback=scrollback), recorder)

    # ------------------------------------------------------------------ output

    def _on_readable(self) -> None:
        try:
            data = os.read(self.fd, READ_SIZE)
        except BlockingIOError:
            return
        except OSError:  # EIO: every writer of the pty has gone
            data = b""
        if not data:
            self._on_eof()
            return
        self._consume(data)

    def _consume(self, data: bytes) -> None:
        text = self._decoder.decode(data)
        if text:
            self.screen.feed(text)
            if self.recorder is not None:
                self.recorder.output(text)
        self.bytes_read += len(data)
        self._last_output = time.monotonic()
        self._changed.set()
        if self._waiters:
            self._wake_waiters()

    def _on_eof(self) -> None:
        self.eof = True
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_reader(self.fd)
        tail = self._decoder.decode(b"", final=True)
        if tail:
            self.screen.feed(tail)
        self._changed.set()
        self._wake_waiters(everyone=True)

    def _wake_waiters(self, everyone: bool = False) -> None:
        keep = []
        for n, future in self._waiters:
            if everyone or self.bytes_read >= n:
                if not future.done():
                    future.set_result(None)
            else:
                keep.append((n, future))
        self._waiters = keep

    def drain(self) -> None:
        """Read whatever the pty holds right now (used after the program exits)."""
        while not self.eof and not self._closed:
            try:
                data = os.read(self.fd, READ_SIZE)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._on_eof()
                return
            self._consume(data)

    # ------------------------------------------------------------------ input

    def write_bytes(self, data: bytes) -> None:
        """Send bytes to the program; what the pty cannot take now is sent when it can."""
        if self._closed:
            return
        self._last_output = time.monotonic()  # input is activity too: its echo and effects are on their way
        self._outbox += data
        self._flush()

    def write(self, text: str) -> None:
        """Type ``text`` in key notation (see :mod:`.keys`)."""
        self.write_bytes(encode_keys(text))

    def _answer(self, text: str) -> None:
        self.write_bytes(text.encode())

    def _flush(self) -> None:
        while self._outbox:
            try:
                n = os.write(self.fd, self._outbox)
            except BlockingIOError:
                self._loop.add_writer(self.fd, self._flush)
                return
            except OSError:
                self._outbox.clear()
                break
            del self._outbox[:n]
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_writer(self.fd)

    def resize(self, width: int, height: int) -> None:
        self.proc.setwinsize(height, width)
        self.screen.resize(height, width)
        if self.recorder is not None:
            self.recorder.resize(width, height)

    # ------------------------------------------------------------------ waits

    def _screen_dump(self) -> str:
        return "\n".join(row.rstrip() for row in self.screen.text_rows())

    async def wait_bytes_read(self, n: int, timeout: float) -> None:
        """Until ``n`` bytes have been read and drawn (or the output ended)."""
        if self.bytes_read >= n or self.eof:
            return
        future: asyncio.Future[None] = self._loop.create_future()
        self._waiters.append((n, future))
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise WaitTimeout(
                f"the program wrote {self.bytes_read} of {n} bytes within {timeout:g} s; the screen:\n"
                + self._screen_dump()
            ) from None

    async def wait_stable(self, ms: int, timeout: float) -> None:
        """Until nothing has been written to or read from the program for ``ms`` milliseconds."""
        deadline = time.monotonic() + timeout
        quiet = ms / 1000
        while True:
            now = time.monotonic()
            left = self._last_output + quiet - now
            if left <= 0 or self.eof:
                return
            if now + left > deadline:
                raise WaitTimeout(
                    f"the screen did not settle ({ms} ms without output) within {timeout:g} s; the screen:\n"
                    + self._screen_dump()
                )
            await asyncio.sleep(left)

    async def wait_for_text(self, pattern: str | re.Pattern[str], timeout: float) -> str:
        """Until the screen shows ``pattern`` (a string, or a compiled regex); returns the match."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self._screen_dump()
            if isinstance(pattern, str):
                if pattern in screen:
                    return pattern
            elif (match := pattern.search(screen)) is not None:
                return match.group()
            left = deadline - time.monotonic()
            if left <= 0 or self.eof:  # after EOF the screen can no longer change
                shown = pattern if isinstance(pattern, str) else pattern.pattern
                raise WaitTimeout(f"{shown!r} did not appear within {timeout:g} s; the screen:\n{screen}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    @property
    def alive(self) -> bool:
        return self._poll() is None

    def _poll(self) -> int | None:
        if self.exit_code is None and not self._closed:
            try:
                alive = self.proc.isalive()
            except Exception:  # ptyprocess raises its own error when the child is already reaped
                alive = False
            if not alive:
                self._set_exit_code()
        return self.exit_code

    def _set_exit_code(self) -> None:
        if self.proc.exitstatus is not None:
            self.exit_code = int(self.proc.exitstatus)
        elif self.proc.signalstatus is not None:
            self.exit_code = 128 + int(self.proc.signalstatus)
        else:
            self.exit_code = -1

    async def wait_exit(self, timeout: float) -> int:
        """Until the program exits; returns its exit code (128 + signal if a signal ended it)."""
        deadline = time.monotonic() + timeout
        delay = 0.002
        while (code := self._poll()) is None:
            if time.monotonic() >= deadline:
                raise WaitTimeout(
                    f"the program did not exit within {timeout:g} s; the screen:\n" + self._screen_dump()
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)
        self.drain()
        return code

    # ------------------------------------------------------------------ ending

    async def terminate(self, grace: float = 1.0) -> None:
        """End the program and its whole process group, reap it, and release the pty. Idempotent."""
        if self._closed:
            return
        try:
            if self._poll() is None:
                _signal_group(self.pid, signal.SIGHUP)
                _signal_group(self.pid, signal.SIGCONT)
                _signal_group(self.pid, signal.SIGTERM)
                deadline = time.monotonic() + grace
                while self._poll() is None and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)
        finally:
            self.close()

    def close(self) -> None:
        """Synchronous last resort (also used at interpreter exit): SIGKILL the group, reap, close."""
        if self._closed:
            return
        _signal_group(self.pid, signal.SIGKILL)
        if self._poll() is None:
            with contextlib.suppress(ChildProcessError, OSError):
                _, status = os.waitpid(self.pid, 0)
                self.proc.exitstatus = os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else None
                self.proc.signalstatus = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
                self.proc.terminated = True
            self._set_exit_code()
        if not self.eof:
            self.drain()
        self._closed = True
        for remove in (self._loop.remove_reader, self._loop.remove_writer):
            with contextlib.suppress(ValueError, OSError, RuntimeError):
                remove(self.fd)
        with contextlib.suppress(OSError):
            self.proc.fileobj.close()
        self.proc.closed = True
        self.proc.fd = -1
        self._wake_waiters(everyone=True)
        _LIVE.discard(self)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


@atexit.register
def _kill_live_sessions() -> None:
    for session in list(_LIVE):
        with contextlib.suppress(Exception):
            _signal_group(session.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.close(session.fd)
