"""The workbench's ACP client: it plays the user's side of the protocol and remembers everything.

An SDK client object (``acp.connect_to_agent`` / ``spawn_agent_process`` call
its methods). It

* collects every ``session/update`` into the :class:`TurnRecord` of the prompt
  in flight (text, thoughts, tool calls merged by id, plans, mode changes);
* answers ``session/request_permission`` by a script: an answer function, or by
  default the first allow option (every answer is recorded); after the user
  cancelled it answers ``cancelled``, as the protocol requires;
* serves ``fs/read_text_file`` / ``fs/write_text_file`` from a root folder
  (paths must be absolute and inside it) and ``terminal/*`` with real
  processes there; a client without a root refuses them with method-not-found.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    EnvVariable,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

ALLOW = ("allow_once", "allow_always")
OUTPUT_LIMIT = 1_000_000


@dataclass
class ToolCallRecord:
    """A tool call as the client saw it: the ``tool_call`` merged with every ``tool_call_update``."""

    id: str
    title: str = ""
    kind: str | None = None
    statuses: list[str] = field(default_factory=list)
    content: list[dict[str, Any]] = field(default_factory=list)
    locations: list[str] = field(default_factory=list)
    raw_input: Any = None
    raw_output: Any = None

    @property
    def status(self) -> str | None:
        return self.statuses[-1] if self.statuses else None

    @property
    def text(self) -> str:
        return "\n".join(str(c["content"].get("text", "")) for c in self.content
                         if c.get("type") == "content" and isinstance(c.get("content"), dict))  # fmt: skip

    def merge(self, update: dict[str, Any]) -> None:
        if update.get("title"):
            self.title = update["title"]
        if update.get("kind"):
            self.kind = update["kind"]
        if update.get("status") and (not self.statuses or self.statuses[-1] != update["status"]):
            self.statuses.append(update["status"])
        if "content" in update and update["content"] is not None:
            self.content = list(update["content"]) if update.get("sessionUpdate") == "tool_call" else (
                self.content + list(update["content"]))  # fmt: skip
        for loc in update.get("locations") or []:
            if loc.get("path") not in self.locations:
                self.locations.append(loc.get("path"))
        if "rawInput" in update:
            self.raw_input = update["rawInput"]
        if "rawOutput" in update:
            self.raw_output = update["rawOutput"]


@dataclass
class PermissionRecord:
    tool_call_id: str
    title: str
    options: list[str]
    outcome: str  # selected | cancelled
    option_id: str | None


@dataclass
class TurnRecord:
    """Everything one prompt turn produced."""

    prompt: str = ""
    text: str = ""
    thoughts: str = ""
    tool_calls: dict[str, ToolCallRecord] = field(default_factory=dict)
    plans: list[list[dict[str, Any]]] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)
    permissions: list[PermissionRecord] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    extensions: list[dict[str, Any]] = field(default_factory=list)  # {method, params, kind, answer?}
    stop_reason: str | None = None
    meta: dict[str, Any] | None = None

    @property
    def plan(self) -> list[dict[str, Any]]:
        return self.plans[-1] if self.plans else []

    def add(self, update: dict[str, Any]) -> None:
        self.updates.append(update)
        kind = update.get("sessionUpdate")
        content = update.get("content")
        if kind in ("agent_message_chunk", "agent_thought_chunk") and isinstance(content, dict):
            text = (
                str(content.get("text", "")) if content.get("type") == "text" else f"[{content.get('type')}]"
            )
            if kind == "agent_message_chunk":
                self.text += text
            else:
                self.thoughts += text
        elif kind in ("tool_call", "tool_call_update"):
            tid = str(update.get("toolCallId"))
            self.tool_calls.setdefault(tid, ToolCallRecord(tid)).merge(update)
        elif kind == "plan":
            self.plans.append(list(update.get("entries") or []))
        elif kind == "current_mode_update":
            self.modes.append(str(update.get("currentModeId")))


PermissionAnswer = Callable[[dict[str, Any], list[PermissionOption]], "str | None"]
"""Given the tool call (wire dict) and the options: the option id to select, or None to cancel."""


def first_allow(tool_call: dict[str, Any], options: list[PermissionOption]) -> str | None:
    """The default answer: the first allow option (else the first option)."""
    for option in options:
        if option.kind in ALLOW:
            return option.option_id
    return options[0].option_id if options else None


@dataclass
class _Terminal:
    process: asyncio.subprocess.Process
    output: bytearray = field(default_factory=bytearray)
    limit: int = OUTPUT_LIMIT
    truncated: bool = False
    reader: asyncio.Task[None] | None = None


class WorkbenchClient:
    """An SDK client object (see the module docstring)."""

    def __init__(self, root: Path | None = None, *, answer: PermissionAnswer = first_allow,
                 terminal: bool = True, extensions: Mapping[str, list[dict[str, Any]]] | None = None) -> None:  # fmt: skip
        self.root = root.resolve() if root is not None else None
        self.answer = answer
        # extension method (`_scp/...`) -> the answers to give its requests, in order (the last repeats)
        self.extension_answers = {k: list(v) for k, v in (extensions or {}).items()}
        self.extensions: list[dict[str, Any]] = []  # every extension message of the agent, in order
        self.terminal_enabled = terminal and root is not None
        self.turns: dict[str, TurnRecord] = {}  # session id -> the turn in flight (or the last one)
        self.history: dict[str, list[dict[str, Any]]] = {}  # updates outside any prompt (session/load replay)
        self.cancelled: set[str] = set()
        self.fs_calls: list[tuple[str, str]] = []
        self._terminals: dict[str, _Terminal] = {}
        self._next_terminal = 0
        self.on_update: Callable[[str, dict[str, Any]], None] | None = None

    # ------------------------------------------------------------------ turns

    def begin(self, session_id: str, prompt: str) -> TurnRecord:
        record = TurnRecord(prompt=prompt)
        self.turns[session_id] = record
        self.cancelled.discard(session_id)
        return record

    def end(self, session_id: str) -> None:
        self.turns.pop(session_id, None)

    async def initialize(self, conn: Any) -> InitializeResponse:
        """``initialize`` on ``conn``, offering what this client serves: fs with a root, terminals if enabled."""
        fs = self.root is not None
        response: InitializeResponse = await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs),
                terminal=self.terminal_enabled,
            ),
            client_info=Implementation(name="workbench", version="1"),
        )
        return response

    def prompt(
        self, conn: Any, session_id: str, blocks: list[Any], shown: str
    ) -> Coroutine[Any, Any, TurnRecord]:
        """One ``session/prompt`` turn on ``conn``: its record (``shown`` as the prompt), with the stop
        reason once the agent answered. The turn begins at once, before the coroutine runs (a cancel that
        follows belongs to it); the SDK's errors (RequestError, ConnectionError) go to the caller."""
        record = self.begin(session_id, shown)

        async def turn() -> TurnRecord:
            try:
                response = await conn.prompt(session_id=session_id, prompt=blocks)
            finally:
                self.end(session_id)
            record.stop_reason = str(response.stop_reason)
            record.meta = response.field_meta
            return record

        return turn()

    # ------------------------------------------------------------------ client methods

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        data = update.model_dump(mode="json", by_alias=True, exclude_none=True)
        turn = self.turns.get(session_id)
        if turn is not None:
            turn.add(data)
        else:
            self.history.setdefault(session_id, []).append(data)
        if self.on_update is not None:
            self.on_update(session_id, data)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[PermissionOption],
                                 **kw: Any) -> RequestPermissionResponse:  # fmt: skip
        call = tool_call.model_dump(mode="json", by_alias=True, exclude_none=True)
        chosen = None if session_id in self.cancelled else self.answer(call, options)
        turn = self.turns.get(session_id)
        if turn is not None:
            turn.permissions.append(PermissionRecord(str(call.get("toolCallId")), str(call.get("title", "")),
                                                     [o.option_id for o in options],
                                                     "selected" if chosen else "cancelled", chosen))  # fmt: skip
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))

    def _path(self, path: str) -> Path:
        if self.root is None:
            raise RequestError.method_not_found("fs")
        if not os.path.isabs(path):
            raise RequestError.invalid_params({"path": path, "details": "the path must be absolute"})
        resolved = Path(path).resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise RequestError.invalid_params({"path": path, "details": f"outside the workspace {self.root}"})
        return resolved

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **kw: Any) -> ReadTextFileResponse:  # fmt: skip
        target = self._path(path)
        self.fs_calls.append(("read", path))
        if not target.is_file():
            raise RequestError.resource_not_found(path)
        text = target.read_text(encoding="utf-8", errors="replace")
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max(0, (line or 1) - 1)
            text = "".join(lines[start : None if limit is None else start + limit])
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kw: Any
    ) -> WriteTextFileResponse:
        target = self._path(path)
        self.fs_calls.append(("write", path))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return WriteTextFileResponse()

    # ------------------------------------------------------------------ terminals

    def _terminal(self, terminal_id: str) -> _Terminal:
        term = self._terminals.get(terminal_id)
        if term is None:
            raise RequestError.invalid_params({"terminalId": terminal_id, "details": "unknown terminal"})
        return term

    async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                              env: list[EnvVariable] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None, **kw: Any) -> CreateTerminalResponse:  # fmt: skip
        if not self.terminal_enabled:
            raise RequestError.method_not_found("terminal/create")
        where = self._path(cwd) if cwd else self.root
        environ = dict(os.environ)
        environ.update({e.name: e.value for e in env or []})
        argv = [command, *(args or [])] if args or " " not in command else ["bash", "-c", command]
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, cwd=str(where), env=environ, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True)  # fmt: skip
        except OSError as exc:
            raise RequestError.invalid_params(
                {"command": command, "details": str(exc.strerror or exc)}
            ) from None
        self._next_terminal += 1
        terminal_id = f"term-{self._next_terminal}"
        term = _Terminal(process, limit=output_byte_limit or OUTPUT_LIMIT)
        term.reader = asyncio.ensure_future(self._pump(term))
        self._terminals[terminal_id] = term
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def _pump(self, term: _Terminal) -> None:
        assert term.process.stdout is not None
        while chunk := await term.process.stdout.read(65536):
            term.output += chunk
            if len(term.output) > term.limit:
                del term.output[: len(term.output) - term.limit]
                term.truncated = True

    def _exit_status(self, term: _Terminal) -> TerminalExitStatus | None:
        code = term.process.returncode
        if code is None:
            return None
        if code < 0:
            return TerminalExitStatus(exit_code=None, signal=signal.Signals(-code).name)
        return TerminalExitStatus(exit_code=code, signal=None)

    async def terminal_output(self, session_id: str, terminal_id: str, **kw: Any) -> TerminalOutputResponse:
        term = self._terminal(terminal_id)
        if term.process.returncode is not None and term.reader is not None:
            await term.reader
        return TerminalOutputResponse(output=term.output.decode("utf-8", "replace"), truncated=term.truncated,
                                      exit_status=self._exit_status(term))  # fmt: skip

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kw: Any
    ) -> WaitForTerminalExitResponse:
        term = self._terminal(terminal_id)
        await term.process.wait()
        if term.reader is not None:
            await term.reader
        status = self._exit_status(term)
        return WaitForTerminalExitResponse(exit_code=status.exit_code if status else None,
                                           signal=status.signal if status else None)  # fmt: skip

    async def kill_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> KillTerminalResponse:
        _kill(self._terminal(terminal_id).process)
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> ReleaseTerminalResponse:
        term = self._terminals.pop(terminal_id, None)
        if term is not None:
            await _end(term)
        return ReleaseTerminalResponse()

    async def close(self) -> None:
        """End every terminal still running, and reap it: a process killed and left to the garbage collector
        outlives the event loop that would close its pipes (Python warns when it is collected)."""
        terms = [self._terminals.pop(terminal_id) for terminal_id in list(self._terminals)]
        await asyncio.gather(*(_end(term) for term in terms))

    async def create_elicitation(self, message: str, mode: Any, **kw: Any) -> Any:
        raise RequestError.method_not_found("elicitation/create")

    async def complete_elicitation(self, elicitation_id: str, **kw: Any) -> None:
        return None

    async def ext_method(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """An extension request (the SDK strips the leading `_`): answered as scripted, else -32601."""
        name = f"_{method}"
        queue = self.extension_answers.get(name)
        record = self._extension(name, params, "request")
        if not queue:
            record["answer"] = {"error": "method not found"}
            raise RequestError.method_not_found(name)
        answer = dict(queue.pop(0) if len(queue) > 1 else queue[0])
        record["answer"] = answer
        return answer

    async def ext_notification(self, method: str, params: Mapping[str, Any]) -> None:
        self._extension(f"_{method}", params, "notification")

    def _extension(self, method: str, params: Mapping[str, Any], kind: str) -> dict[str, Any]:
        """Record an extension message, also in every turn in flight (it names no session)."""
        record: dict[str, Any] = {"method": method, "params": dict(params), "kind": kind}
        self.extensions.append(record)
        for turn in self.turns.values():
            turn.extensions.append(record)
        return record


async def _end(term: _Terminal) -> None:
    """Kill a terminal's process group and wait for the process (a second at most: SIGKILL is not refused)."""
    _kill(term.process)
    if term.reader is not None:
        term.reader.cancel()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(term.process.wait(), 1.0)


def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
