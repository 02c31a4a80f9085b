"""A program in a real pseudo-terminal, driven from asyncio without blocking the loop.

The pty's master fd is non-blocking and watched with ``loop.add_reader``: each
read (up to 64 KiB) is decoded incrementally (a UTF-8 character split across
reads comes out whole; invalid bytes become U+FFFD), fed to the
:class:`~.screen.Screen`, passed to the recorder, and dropped, so a program that
floods output costs time, not memory. Answers to terminal queries (cursor
position, device attributes) are written back to the program at once, so
programs that ask do not stall.

The child is a session and process-group leader (ptyprocess forks with
``setsid``), so :meth:`PtySession.terminate` ends the whole group: SIGHUP,
SIGCONT and SIGTERM, a grace period, then SIGKILL; then it reaps the child and
closes the fd. A descendant that left the group (``setsid`` and a double fork,
as daemons do) is found by the token its environment inherited, or, if it
also cleared its environment, because the leader (and then this process) is a
child subreaper that adopts it (:mod:`.descendants`), and ended the same way. Exit is watched through a pidfd where Linux has one (no
polling). Sessions still alive at interpreter exit are killed the same way, and
``async with`` terminates a session however the block ends, cancellation
included.

Exit codes follow the shell: the program's status, or 128 + the signal number
when a signal ended it (SIGKILL gives 137).
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
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType

from ptyprocess import PtyProcess

from workbench.scenario.user_regex import UserRegex

from . import descendants, idle
from .asciicast import AsciicastRecorder
from .keys import encode_keys
from .reading import reads_keys, unread_input
from .screen import Screen

READ_SIZE = 65536
DEFAULT_TERM = "xterm-256color"
KEY_READ_TIMEOUT_S = 1.0  # how long a typed key may wait for the program to read it before the next goes
KEY_POLL_S = 0.001  # how often the kernel's queue is looked at meanwhile
_LIVE: weakref.WeakSet[PtySession] = weakref.WeakSet()


class WaitTimeout(TimeoutError):
    """A wait ran out of time; the message says what was awaited and shows the screen."""


class PtySession:
    """One program in one pty, with its screen. Create it with :meth:`spawn`."""

    def __init__(
        self, proc: PtyProcess, screen: Screen, recorder: AsciicastRecorder | None, token: str = ""
    ) -> None:
        self.proc = proc
        self.token = token  # in the environment of every process this session starts (see .descendants)
        self._since = descendants.start_time(proc.pid) if token else 0
        self._seen: descendants.Seen = set()  # processes seen in this session's tree, for adopted orphans
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
        self._exited = asyncio.Event()
        self._last_activity = time.monotonic()
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._outbox = bytearray()
        self._closed = False
        self._pidfd = -1
        screen.on_answer = self._answer
        os.set_blocking(self.fd, False)
        self._loop.add_reader(self.fd, self._on_readable)
        with contextlib.suppress(AttributeError, OSError):
            self._pidfd = os.pidfd_open(self.pid)
            self._loop.add_reader(self._pidfd, self._on_exit)
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
        confine: Callable[[], None] | None = None,
        pass_fds: tuple[int, ...] = (),
    ) -> PtySession:
        """Start ``argv`` in a new ``width`` x ``height`` pty; raises FileNotFoundError/OSError if it cannot start.

        ``pass_fds``: descriptors the program inherits (all others are closed in it).

        ``confine`` runs in the forked child before ``exec`` (a sandbox confining the program); if it raises,
        the program is not started and this raises.

        ``TERM`` defaults to ``xterm-256color`` when ``env`` has none. The fork and
        exec happen before this returns (a few milliseconds on the loop's thread).
        """
        environment = dict(env)
        environment.setdefault("TERM", DEFAULT_TERM)
        token = descendants.new_token()
        descendants.subreaper(True)  # orphans of the session come to us, not to init
        environment[descendants.TOKEN_VAR] = token
        if not os.path.isdir(cwd):  # ptyprocess would fail in the forked child, past its error reporting
            raise FileNotFoundError(f"cannot start {argv[0]!r}: no folder {cwd!r}")
        try:
            proc = PtyProcess.spawn(
                list(argv), cwd=cwd, env=environment, dimensions=(height, width),
                preexec_fn=_prepare_child if confine is None else lambda: _prepare_child(confine), pass_fds=pass_fds,
            )  # fmt: skip
        except FileNotFoundError as exc:
            raise FileNotFoundError(f"cannot start {argv[0]!r}: {exc}") from None
        return cls(proc, Screen(width, height, scrollback=scrollback), recorder, token)

    async def __aenter__(self) -> PtySession:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.terminate()

    # ------------------------------------------------------------------ output

    def _on_readable(self) -> None:
        try:
            data = os.read(self.fd, READ_SIZE)
        except BlockingIOError:
            return
        except OSError:  # EIO: every holder of the pty's other end has gone
            data = b""
        if data:
            self._consume(data)
        else:
            self._on_eof()

    def _consume(self, data: bytes) -> None:
        text = self._decoder.decode(data)
        if text:
            self.screen.feed(text)
            if self.recorder is not None:
                self.recorder.output(text)
        self.bytes_read += len(data)
        self._last_activity = time.monotonic()
        self._changed.set()
        if self._waiters:
            self._wake_waiters()

    def _on_eof(self) -> None:
        self.eof = True
        with contextlib.suppress(ValueError, OSError, RuntimeError):
            self._loop.remove_reader(self.fd)
        tail = self._decoder.decode(b"", final=True)
        if tail:
            self.screen.feed(tail)
            if self.recorder is not None:
                self.recorder.output(tail)
        self._changed.set()
        self._wake_waiters(everyone=True)

    def _wake_waiters(self, everyone: bool = False) -> None:
        keep = []
        for n, future in self._waiters:
            if future.done():
                continue
            if everyone or self.bytes_read >= n:
                future.set_result(None)
            else:
                keep.append((n, future))
        self._waiters = keep

    def drain(self) -> None:
        """Read whatever the pty holds right now (after the program exits, its last output)."""
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
        """Send bytes to the program; what the pty cannot take now is sent as soon as it can."""
        if self._closed or not data:
            return
        self._last_activity = time.monotonic()  # input is activity too: its echo is on the way
        self._outbox += data
        self._flush()

    def write(self, text: str) -> None:
        """Type ``text`` in key notation (``<Enter>``, ``<C-c>``...; see :mod:`.keys`)."""
        self.write_bytes(encode_keys(text))

    async def type_keys(self, keys: Sequence[bytes], timeout: float = KEY_READ_TIMEOUT_S) -> None:
        """Type ``keys`` (each as the bytes it sends: :func:`~workbench.terminal.keys.split_keys`) as a person
        does. A program that takes keys as they come (a TUI) gets each in a read of its own: the next goes
        once the kernel's queue shows it read the last, as keystrokes arrive (after ``timeout`` without a
        read, the rest at once).
        Written at once, a line is one read, which some TUIs take as a paste, or act on a key with the state
        from before the line (Kilo Code's ``!``, which opens its shell mode on an empty prompt, opened it
        after a whole typed sentence). A line-mode program gets them at once: the kernel reads them key by
        key anyway."""
        if len(keys) < 2 or not reads_keys(self.fd) or unread_input(self.fd) is None:
            self.write_bytes(b"".join(keys))
            return
        for n, key in enumerate(keys):
            self.write_bytes(key)
            deadline = time.monotonic() + timeout
            while not self._closed and (self._outbox or unread_input(self.fd)):
                if time.monotonic() > deadline:
                    # it reads no keys now (busy elsewhere): the rest go at once, as they would pile up
                    self.write_bytes(b"".join(keys[n + 1 :]))
                    return
                await asyncio.sleep(KEY_POLL_S)

    def _answer(self, text: str) -> None:
        self.write_bytes(text.encode())

    def _flush(self) -> None:
        while self._outbox and not self._closed:
            try:
                n = os.write(self.fd, self._outbox)
            except BlockingIOError:
                self._loop.add_writer(self.fd, self._flush)
                return
            except OSError:
                self._outbox.clear()
                break
            del self._outbox[:n]
        with contextlib.suppress(ValueError, OSError, RuntimeError):
            self._loop.remove_writer(self.fd)

    def resize(self, width: int, height: int) -> None:
        """Change the terminal size (the program gets SIGWINCH)."""
        if not self._closed:
            self.proc.setwinsize(height, width)
        self.screen.resize(width, height)
        if self.recorder is not None:
            self.recorder.resize(width, height)

    # ------------------------------------------------------------------ waits

    def _failure(self, what: str) -> WaitTimeout:
        return WaitTimeout(f"{what}; the screen:\n{self.screen.text()}")

    async def wait_bytes_read(self, n: int, timeout: float) -> None:
        """Until at least ``n`` bytes have been read and drawn (or the output has ended)."""
        if self.bytes_read >= n or self.eof or self._closed:
            return
        future: asyncio.Future[None] = self._loop.create_future()
        self._waiters.append((n, future))
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise self._failure(
                f"the program wrote {self.bytes_read} of {n} bytes within {timeout:g} s"
            ) from None
        finally:
            self._waiters = [(m, f) for m, f in self._waiters if f is not future]

    async def wait_stable(self, ms: int, timeout: float) -> None:
        """Until nothing has been read from or written to the program for ``ms`` milliseconds."""
        deadline = time.monotonic() + timeout
        quiet = ms / 1000
        while True:
            now = time.monotonic()
            left = self._last_activity + quiet - now
            if left <= 0 or self.eof:
                self.track()
                return
            if now + left > deadline:
                raise self._failure(
                    f"the screen did not settle ({ms} ms without output) within {timeout:g} s"
                )
            await asyncio.sleep(left)

    async def wait_for_text(self, pattern: str | re.Pattern[str] | UserRegex, timeout: float) -> str:
        """Until the screen shows ``pattern`` (text, or a compiled regex searched in the rows); returns the match.

        The screen is searched as its rows joined by newlines, first with trailing
        spaces removed, then as full rows (so ``"$ "`` finds a prompt).
        """
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen.text()
            found = _search(pattern, shown)
            if found is None:
                found = _search(pattern, "\n".join(self.screen.text_rows()))
            if found is not None:
                return found
            left = deadline - time.monotonic()
            ended = self.eof or self._closed
            if left <= 0 or ended:
                wanted = pattern if isinstance(pattern, str) else pattern.pattern
                if left > 0:
                    raise self._failure(f"{wanted!r} did not appear before the program's output ended")
                raise self._failure(f"{wanted!r} did not appear within {timeout:g} s")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    @property
    def alive(self) -> bool:
        """True until the program has exited (and been reaped)."""
        return self._poll() is None

    def _poll(self) -> int | None:
        if self.exit_code is None and not self._closed:
            self._reap(block=False)
        return self.exit_code

    def _reap(self, block: bool) -> None:
        """Collect the child's status if it has exited (``block``: wait for it)."""
        try:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere: the status is lost
            self.exit_code = -1 if self.exit_code is None else self.exit_code
            self._mark_exited()
            return
        if pid == 0:
            return
        if os.WIFSIGNALED(status):
            self.proc.signalstatus = os.WTERMSIG(status)
            self.exit_code = 128 + os.WTERMSIG(status)
        else:
            self.proc.exitstatus = os.waitstatus_to_exitcode(status)
            self.exit_code = int(self.proc.exitstatus)
        self.proc.status = status
        self.proc.terminated = True
        self._mark_exited()

    def _mark_exited(self) -> None:
        self._exited.set()
        self._close_pidfd()

    def track(self) -> None:
        """Note the processes now in the session's tree, so they are still known once orphaned (cheap: one /proc scan)."""
        if self.token and not self._closed:
            descendants.find(self.token, self.pid, self._since, self._seen)

    def processes(self) -> list[int]:
        """The session's live processes, the program first."""
        if not self.token or self._closed:
            return [self.pid]
        return list(
            dict.fromkeys([self.pid, *descendants.find(self.token, self.pid, self._since, self._seen)])
        )

    async def wait_idle(self, ms: int, limit: float) -> bool:
        """Until the screen has been quiet and the program idle for ``ms`` milliseconds (:mod:`.idle`); False
        when it kept busy for ``limit`` seconds."""
        return await idle.wait_idle(self.processes, lambda: self._last_activity, ms, limit)

    def _on_exit(self) -> None:
        if self._closed or self.exit_code is not None:
            return
        self._reap(block=False)
        if self.exit_code is None:  # the pidfd fired before the status was ready: ask again shortly
            self._loop.call_later(0.001, self._on_exit)

    async def wait_exit(self, timeout: float) -> int:
        """Until the program exits; returns its exit code (128 + the signal number if a signal ended it).

        Output the program wrote before it exited is read and drawn first.
        """
        deadline = time.monotonic() + timeout
        delay = 0.002
        while (code := self._poll()) is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._failure(f"the program did not exit within {timeout:g} s")
            wait = left if self._pidfd >= 0 else min(delay, left)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._exited.wait(), wait)
            delay = min(delay * 2, 0.05)
        self.drain()
        return code

    # ------------------------------------------------------------------ ending

    async def terminate(self, grace: float = 1.0) -> None:
        """End the program and its whole process group, reap it, release the pty. Idempotent.

        SIGHUP, SIGCONT and SIGTERM go to the group; whatever is left after
        ``grace`` seconds gets SIGKILL. If this coroutine is cancelled while it
        waits, the group is killed at once.
        """
        if self._closed:
            return
        try:
            escaped = descendants.find(self.token, self.pid, self._since, self._seen) if self.token else []
            if self._poll() is None or escaped:
                for sig in (signal.SIGHUP, signal.SIGCONT, signal.SIGTERM):
                    _signal_group(self.pid, sig)
                    descendants.signal_all(escaped, sig)
                deadline = time.monotonic() + grace
                while self._poll() is None and time.monotonic() < deadline:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(
                            self._exited.wait(), min(0.01, max(0.0, deadline - time.monotonic()))
                        )
        finally:
            self.close()

    def close(self) -> None:
        """Synchronous and final: SIGKILL the group, reap the child, read the last output, close the fds."""
        if self._closed:
            return
        _signal_group(self.pid, signal.SIGKILL)  # the leader may be gone while its group lives on
        if self.token:
            # and those that left the group
            descendants.kill_all(self.token, self.pid, self._since, self._seen)
        if self._poll() is None:
            self._reap(block=True)
        if not self.eof:
            self.drain()
        self._closed = True
        for remove in (self._loop.remove_reader, self._loop.remove_writer):
            with contextlib.suppress(ValueError, OSError, RuntimeError):
                remove(self.fd)
        self._close_pidfd()
        with contextlib.suppress(OSError):
            self.proc.fileobj.close()
        self.proc.closed = True
        self.proc.fd = -1
        self._outbox.clear()
        self._wake_waiters(everyone=True)
        self._changed.set()
        _LIVE.discard(self)
        if not _LIVE:
            descendants.subreaper(False)  # adopt nothing more than sessions need

    def _close_pidfd(self) -> None:
        if self._pidfd >= 0:
            with contextlib.suppress(ValueError, OSError, RuntimeError):
                self._loop.remove_reader(self._pidfd)
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = -1


def _search(pattern: str | re.Pattern[str] | UserRegex, text: str) -> str | None:
    if isinstance(pattern, str):
        return pattern if pattern in text else None
    match = pattern.search(text)
    return None if match is None else match.group()


def _prepare_child(confine: Callable[[], None] | None = None) -> None:
    """In the forked child, before exec: a program as a fresh terminal starts it.

    Ignored signals and the signal mask survive ``exec``: Python ignores SIGPIPE, and a parent started
    with ``nohup``, in a background job or by some CI runners ignores SIGHUP, SIGINT or SIGQUIT. The
    program under test would inherit them (Ctrl-C would not stop it, ``yes | head`` would print EPIPE
    errors), so every signal gets its default action and none is blocked. The program also adopts its
    descendants' orphans (see .descendants), and ``confine`` confines it (a sandbox), last.
    """
    for sig in signal.valid_signals():
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    descendants.subreaper(True)
    if confine is not None:
        confine()


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


@atexit.register
def _kill_live_sessions() -> None:
    """At interpreter exit, no program started here outlives us."""
    for session in list(_LIVE):
        with contextlib.suppress(Exception):
            _signal_group(session.pid, signal.SIGKILL)
            if session.token:
                descendants.kill_all(session.token, session.pid, session._since, session._seen)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(session.pid, 0)
            with contextlib.suppress(OSError):
                os.close(session.fd)
