"""One recording: the proxy, the agent in a pty, the user's terminal relayed to it.

The agent runs as ``workbench run --mode real-agent`` would run it (a fresh
workspace, a private HOME, the preset's config or the command's
``{base_url}`` placeholders, a throwaway API key), except that its base URL is
the recording proxy (:mod:`.proxy`) in front of the real API. The user's
terminal is put in raw mode and relayed both ways, so the user drives the agent
as usual; with ``--prompt`` the prompt is typed for them and the recording ends
once the agent is idle (its last reply called no tool, no request is in flight
and the screen has been quiet for :data:`QUIET_MS`).

The end of each turn (the same idleness) is marked with the screen and the
files the turn changed; keys the user types are kept with their times. When the
agent exits, the user's keys end (EOF), or the recording is interrupted
(SIGINT/SIGTERM: written, marked partial), :mod:`.writer` makes the scenario.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import secrets
import selectors
import shutil
import signal
import sys
import tempfile
import termios
import time
import tty
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from workbench.engine.program import base_env
from workbench.llm.agents import Endpoint, PresetError, endpoint_env, expand_command
from workbench.llm.agents import agent_named as preset_named
from workbench.names import EXIT_INTERRUPTED
from workbench.scenario.user_regex import PatternTooSlow, UserRegex
from workbench.terminal.asciicast import AsciicastRecorder
from workbench.terminal.masks import mask_shot
from workbench.terminal.reading import reads_input
from workbench.terminal.session import PtySession, WaitTimeout
from workbench.workspace import Workspace

from .proxy import RecordingProxy, UpstreamUnreachable, check_reachable, upstream_base
from .redact import Redactor
from .writer import Recording, TurnMark, Written, conversation, write_recording

QUIET_MS = 500  # as long as a replay lets the screen settle before a screenshot (real-agent mode)
DRAW_AFTER_REPLY_S = 5.0
READY_TIMEOUT_S = 60.0
JSON_ASSERT_BYTES = 64 * 1024
# DEC private modes a program turns on and must turn off again: application cursor keys, mouse reports
# (X10, button, any-motion, UTF-8, SGR, urxvt), focus reports, bracketed paste
LEFT_ON = (1, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 2004)
_KEYBOARD_STACK = re.compile(r"\x1b\[(?:(>)\d*|<(\d*))u")  # kitty keyboard protocol: push flags, pop N
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # SIGHUP: the user's terminal closed


class RecordError(Exception):
    """Bad input for a recording (exit 2): an upstream that cannot be reached, an unknown agent... or an
    interrupted recording with nothing in it (``exit_code`` 130)."""

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class RecordOptions:
    upstream: str
    out: Path
    command: tuple[str, ...] = ()
    agent: str | None = None
    prompt: str | None = None
    max_gap_ms: int | None = None
    masks: tuple[str, ...] = ()  # --mask: besides the preset's
    goldens_dir: Path = Path("screenshots")
    timeout_s: float = 600.0
    width: int = 80
    height: int = 24


@dataclass
class RecordResult:
    written: Written
    partial: bool
    exit_code: int | None


class _Relay(AsciicastRecorder):
    """The agent's output, shown on the user's terminal as it comes (the pty session's output hook)."""

    def __init__(self, fd: int | None) -> None:  # no file: nothing of the session is written to disk here
        self._file = None
        self.fd = fd
        self.keyboard_pushes = 0  # kitty keyboard-protocol flags pushed (`CSI > n u`) and not popped

    def output(self, text: str) -> None:
        for push, pops in _KEYBOARD_STACK.findall(text):
            self.keyboard_pushes = (
                self.keyboard_pushes + 1 if push else max(0, self.keyboard_pushes - int(pops or 1))
            )
        if self.fd is not None and text:
            with contextlib.suppress(OSError):
                os.write(self.fd, text.encode("utf-8", "replace"))

    def marker(self, label: str) -> None:
        return None

    def resize(self, width: int, height: int) -> None:
        return None


class Recorder:
    def __init__(
        self,
        options: RecordOptions,
        environ: Mapping[str, str] | None = None,
        *,
        stdin_fd: int | None = None,
        stdout_fd: int | None = None,
    ) -> None:
        self.options = options
        self.environ = dict(os.environ if environ is None else environ)
        self.stdin_fd = stdin_fd
        self.stdout_fd = stdout_fd
        self.redactor = Redactor(self.environ)
        self.t0 = time.monotonic()
        self.inputs: list[tuple[float, bytes]] = []
        self.marks: list[TurnMark] = []
        self.partial = False
        self._stop = asyncio.Event()
        self._failed: str | None = None  # why the recording cannot be written
        self._prompt_typed = False
        self._turns_marked = 0
        self._session: PtySession | None = None
        self._workspace: Workspace | None = None
        self._snapshot: Mapping[str, tuple[int, ...]] = {}
        self._masks: tuple[str, ...] = ()
        self._relay = _Relay(stdout_fd)
        self._output_at_end: dict[int, int] = {}  # exchange seq -> the agent's output read when it ended

    def now(self) -> float:
        return time.monotonic() - self.t0

    # ------------------------------------------------------------------ the whole recording

    async def run(self) -> RecordResult:
        opts = self.options
        try:
            upstream = upstream_base(opts.upstream)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
        preset = None
        if opts.agent:
            try:
                preset = preset_named(opts.agent)
            except PresetError as exc:
                raise RecordError(str(exc)) from None
        if opts.prompt is None and self.stdin_fd is not None and not relayable(self.stdin_fd):
            raise RecordError(
                "without --prompt, record relays your terminal to the agent, and stdin here is a file or "
                "/dev/null, which cannot be relayed: run it in a terminal (or with keys from a pipe), "
                "or give --prompt TEXT to record one prompt"
            )
        try:
            await check_reachable(upstream)
        except UpstreamUnreachable as exc:
            raise RecordError(f"{exc}; nothing was started") from None
        root = Path(tempfile.mkdtemp(prefix="wb-record-"))
        self._workspace = Workspace.create(opts.out.parent, None)
        proxy = RecordingProxy(upstream, self.redactor, self.environ, clock_start=self.t0)
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, self._interrupted)
        saved_tty = None
        code: int | None = None
        try:
            base_url = await proxy.start()
            home = (root / "home").resolve()
            home.mkdir()
            endpoint = Endpoint(
                base_url, "wb-" + secrets.token_hex(8), self._workspace.path, home, opts.prompt or ""
            )
            env = base_env(opts.width, opts.height, home)
            ready = None
            if preset is not None:
                try:
                    launch = preset.launch(endpoint, "tui", self.environ)
                except PresetError as exc:
                    raise RecordError(str(exc)) from None
                argv, ready = launch.argv, launch.ready
                env.update(launch.env)
                self._masks = preset.masks
            else:
                env.update(endpoint_env(endpoint))
                argv = expand_command(opts.command, endpoint)
            self._masks = (*self._masks, *(m for m in opts.masks if m not in self._masks))
            on_command_line = any("{prompt}" in word for word in opts.command)
            self._snapshot = self._workspace.snapshot()
            try:
                session = await PtySession.spawn(argv, env=env, cwd=str(self._workspace.path),
                                                 width=opts.width, height=opts.height,
                                                 recorder=self._relay)  # fmt: skip
            except OSError as exc:
                raise RecordError(f"cannot start the agent: {exc}{self._relative_hint()}") from None
            self._session = session
            if on_command_line and opts.prompt is not None:  # the replay puts its first input where it was
                self.inputs.append((self.now(), opts.prompt.encode()))
            proxy.on_end = lambda exchange: self._output_at_end.__setitem__(exchange.seq, session.bytes_read)
            if self.stdin_fd is not None and opts.prompt is None:
                if os.isatty(self.stdin_fd):
                    saved_tty = termios.tcgetattr(self.stdin_fd)
                    tty.setraw(self.stdin_fd)
                loop.add_reader(self.stdin_fd, self._on_keys)
            tasks = [asyncio.create_task(self._watch_turns(proxy)), asyncio.create_task(self._watch_exit())]
            if opts.prompt is not None and not on_command_line:
                tasks.append(asyncio.create_task(self._type_prompt(opts.prompt, ready)))
            try:
                await asyncio.wait_for(self._stop.wait(), opts.timeout_s)
            except TimeoutError:
                self.partial = True
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self._failed is None and opts.prompt is not None and not session.alive:
                self._failed = self._no_session(on_command_line, bool(proxy.exchanges))
            if self._failed is None and not conversation([e for e in proxy.exchanges if e.ended is not None]):
                self._failed = self._no_turn()
            if self._failed is not None:
                raise RecordError(
                    f"{self._failed}\nnothing was written", EXIT_INTERRUPTED if self.partial else None
                )
            if not self.partial:
                await self._mark_if_turn_ended(proxy)
            code = session.exit_code
            ended = [e for e in proxy.exchanges if e.ended is not None]
            await session.terminate()
            code = session.exit_code if code is None else code
            recording = Recording(
                name=opts.out.stem, command=opts.command, agent=opts.agent, width=opts.width, height=opts.height,
                workspace=self._workspace.path, home=home, upstream=upstream, masks=self._masks,
                inputs=self.inputs, marks=self.marks, exchanges=ended, partial=self.partial,
                max_gap_ms=opts.max_gap_ms, prompt_on_command_line=on_command_line and opts.prompt is not None,
            )  # fmt: skip
            try:
                written = write_recording(recording, opts.out, opts.goldens_dir, self.redactor)
            except OSError as exc:
                raise RecordError(f"cannot write the recording: {exc.strerror or exc}"
                                  + (f": {exc.filename}" if exc.filename else "")) from None  # fmt: skip
            return RecordResult(written, self.partial, code)
        finally:
            if self.stdin_fd is not None:
                with contextlib.suppress(ValueError, OSError):
                    loop.remove_reader(self.stdin_fd)
                if saved_tty is not None:
                    with contextlib.suppress(termios.error):
                        termios.tcsetattr(self.stdin_fd, termios.TCSADRAIN, saved_tty)
            for sig in STOP_SIGNALS:
                loop.remove_signal_handler(sig)
            if self._session is not None:
                await self._session.terminate()
                self._leave_modes()
            await proxy.stop()
            self._workspace.close()
            shutil.rmtree(root, ignore_errors=True)

    def _no_session(self, on_command_line: bool, asked: bool) -> str | None:
        """Why an agent that has exited left nothing to record with ``--prompt`` (it crashed at start, say),
        or None: it never took the prompt, or with the prompt on its command line it never asked the model."""
        session = self._session
        assert session is not None
        if on_command_line and not asked:
            what = "without sending a request"
        elif not on_command_line and not self._prompt_typed:
            what = "before it took the prompt"
        else:
            return None
        screen = "\n".join(row.rstrip() for row in session.screen.text_rows()).strip("\n")
        return f"the agent exited (code {session.exit_code}) {what}, so there is no session to record; its screen was:\n{screen}{self._relative_hint()}"

    def _leave_modes(self) -> None:
        """Turn off on the user's terminal what the agent turned on there and did not turn off (it was stopped
        at the end of the recording, or crashed): the alternate screen, mouse and focus reports, bracketed
        paste, kitty keyboard flags, a hidden cursor. The agent's own screen model (and, for the keyboard
        flags it does not keep, the relay) says which are still on; the cursor goes last, since leaving the
        alternate screen restores the cursor saved with it."""
        session = self._session
        if session is None or self.stdout_fd is None or not os.isatty(self.stdout_fd):
            return
        screen = session.screen
        undo = "\x1b[?1049l" if screen.alternate else ""
        undo += "".join(f"\x1b[?{mode}l" for mode in LEFT_ON if mode << 5 in screen.vt.mode)  # pyte's keys
        if self._relay.keyboard_pushes:
            undo += f"\x1b[<{self._relay.keyboard_pushes}u"
        if undo or not screen.cursor_visible:
            with contextlib.suppress(OSError):
                os.write(self.stdout_fd, (undo + "\x1b[?25h\x1b[0m").encode())

    def _no_turn(self) -> str:
        """Why a session in which the model was never asked is not written: it would replay green whatever
        the agent does (an agent that cannot start, an input that ended before the first prompt)."""
        session = self._session
        assert session is not None
        if self.partial:
            why = "the recording was interrupted (or reached --timeout) before the agent sent a request to the model"
        elif session.alive:
            why = "your input ended before the agent sent a request to the model"
        else:
            why = f"the agent exited (code {session.exit_code}) without sending a request to the model"
        screen = "\n".join(row.rstrip() for row in session.screen.text_rows()).strip("\n")
        return f"{why}, so there is no session to record; its screen was:\n{screen}{self._relative_hint()}"

    def _relative_hint(self) -> str:
        """Why an agent may not have found its own files: it runs in a fresh, empty workspace, so a path on
        its command line relative to this folder names nothing there."""
        here = [w for i, w in enumerate(self.options.command) if (i or "/" in w) and not os.path.isabs(w)
                and "{" not in w and os.path.isfile(w)]  # fmt: skip
        if not here:
            return ""
        return (f"\nnote: the agent runs in a fresh, empty workspace, not in this folder: {', '.join(here)} on its "
                "command line is a path relative to this folder; give it as an absolute path, or install the agent "
                "as a command on PATH (a recording that names it so replays on other machines too)")  # fmt: skip

    def _interrupted(self) -> None:
        self.partial = True
        self._stop.set()

    # ------------------------------------------------------------------ input

    def _on_keys(self) -> None:
        assert self.stdin_fd is not None
        try:
            data = os.read(self.stdin_fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the user's input ended: so does the recording
            asyncio.get_running_loop().remove_reader(self.stdin_fd)
            self._stop.set()
            return
        self._type(data)

    def _type(self, data: bytes) -> None:
        if self._pending_turn_end and self._session is not None:
            self._mark_now()  # the screen the user saw before typing again
        self.inputs.append((self.now(), data))
        if self._session is not None:
            self._session.write_bytes(data)

    async def _type_prompt(self, prompt: str, ready: str | None) -> None:
        """Type ``--prompt`` as the replay will: once the agent shows it takes input and is quiet, then Enter."""
        session = self._session
        assert session is not None
        if ready is not None:
            try:
                await session.wait_for_text(ready, READY_TIMEOUT_S)
            except WaitTimeout as exc:  # typed now, the prompt would be lost: the recording ends, saying why
                self._failed = f"the agent never showed its ready text (its preset's `ready`), so --prompt was not typed: {exc}"
                self._stop.set()
                return
        else:  # until its terminal asks for input, as the replay waits (workbench.terminal.reading)
            deadline = time.monotonic() + READY_TIMEOUT_S
            while not reads_input(session.fd) and session.alive and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
        await session.wait_stable(QUIET_MS, READY_TIMEOUT_S)
        if not session.alive:
            return  # nothing takes the prompt: `run` says so
        self._prompt_typed = True
        self.inputs.append((self.now(), prompt.encode()))
        await session.type_keys([c.encode() for c in prompt])  # as the replay types it: a key per read
        await session.wait_stable(QUIET_MS, READY_TIMEOUT_S)
        self._type(b"\r")

    # ------------------------------------------------------------------ turns

    _pending_turn_end = False
    _pending_turns = 0

    async def _watch_exit(self) -> None:
        session = self._session
        assert session is not None
        await session.wait_exit(timeout=self.options.timeout_s + 60)
        session.drain()
        self._stop.set()

    async def _watch_turns(self, proxy: RecordingProxy) -> None:
        """Mark the end of each turn; with ``--prompt``, the first end of a turn ends the recording."""
        session = self._session
        assert session is not None
        while True:
            await proxy.changed.wait()
            proxy.changed.clear()
            if proxy.busy:
                continue
            turns = conversation([e for e in proxy.exchanges if e.ended is not None])
            if len(turns) <= self._turns_marked or turns[-1].reply.tool_calls:
                continue
            self._pending_turn_end, self._pending_turns = True, len(turns)
            # The quiet before the answer arrived is not the end: first the agent draws something of it
            # (as the replay waits, see the real-agent driver's settle).
            drawn_from = self._output_at_end.get(turns[-1].exchange.seq, session.bytes_read)
            with contextlib.suppress(WaitTimeout):
                await session.wait_bytes_read(drawn_from + 1, DRAW_AFTER_REPLY_S)
            await session.wait_stable(QUIET_MS, self.options.timeout_s)
            if proxy.busy or proxy.changed.is_set() or not self._pending_turn_end:
                continue  # the agent asked again (a retry, a title) or the user typed: look again
            self._mark_now()
            if self.options.prompt is not None:
                self._stop.set()
                return

    async def _mark_if_turn_ended(self, proxy: RecordingProxy) -> None:
        turns = conversation([e for e in proxy.exchanges if e.ended is not None])
        if len(turns) > self._turns_marked and not turns[-1].reply.tool_calls:
            self._pending_turns = len(turns)
            self._mark_now()

    def _mark_now(self) -> None:
        session, workspace = self._session, self._workspace
        assert session is not None and workspace is not None
        self._pending_turn_end = False
        self._turns_marked = max(self._turns_marked + 1, self._pending_turns)
        after = workspace.snapshot()
        changes = Workspace.changed_files(self._snapshot, after)
        self._snapshot = after
        changed = [c["path"] for c in changes if c["change"] != "deleted"]
        deleted = [c["path"] for c in changes if c["change"] == "deleted"]
        label = f"turn-{len(self.marks) + 1}"
        given = self.options.masks
        masks = [
            UserRegex(m, "--mask" if m in given else "a mask of the agent's preset") for m in self._masks
        ]
        try:
            shot = mask_shot(session.screen.snapshot(), masks)
        except PatternTooSlow as exc:
            raise RecordError(str(exc)) from None
        self.marks.append(TurnMark(self.now(), label, shot, changed, deleted, self._json_files(changed)))

    def _json_files(self, paths: list[str]) -> dict[str, object]:
        assert self._workspace is not None
        out: dict[str, object] = {}
        for rel in paths:
            if not rel.endswith(".json"):
                continue
            path = self._workspace.path / rel
            try:
                if path.stat().st_size <= JSON_ASSERT_BYTES:
                    out[rel] = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
        return out


def terminal_size(fd: int | None) -> tuple[int, int]:
    """The user's terminal size (the agent's pty gets the same), else 80x24."""
    if fd is not None and os.isatty(fd):
        with contextlib.suppress(OSError):
            size = os.get_terminal_size(fd)
            return size.columns, size.lines
    return 80, 24


def relayable(fd: int) -> bool:
    """Whether the user's keys can be relayed from ``fd``: the event loop can wait on it (a terminal, a
    pipe, a socket), which it cannot on a regular file or /dev/null (epoll refuses them)."""
    with selectors.DefaultSelector() as selector:
        try:
            selector.register(fd, selectors.EVENT_READ)
        except (OSError, ValueError):
            return False
    return True


def default_stdin() -> int | None:
    return sys.stdin.fileno() if sys.stdin is not None and not sys.stdin.closed else None
