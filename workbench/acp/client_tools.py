"""Tools whose work the ACP client does: ``fs/*`` for files, ``terminal/*`` for commands.

When the client says in ``initialize`` that it reads and writes text files or
runs terminals, an agent must use those methods (the client may hold unsaved
edits, or run commands somewhere else). The scenario agent does, for the tools
that map onto them; everything else, and everything the client does not offer,
runs in the workspace as the mock agent runs it. The outcomes have the same
shape either way, so a scenario's expected ``result`` is checked the same way.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from acp import RequestError
from acp.schema import ClientCapabilities

from workbench.agent.tools import ToolError, ToolOutcome, canonical_name
from workbench.agent.tools.base import arg
from workbench.agent.tools.files import OLD_STRING, appends, edit_text

from .content import absolute

OnTerminal = Callable[[str], Awaitable[None]]


def offered(caps: ClientCapabilities | None, name: str) -> bool:
    """Whether the client's capabilities cover the tool ``name``."""
    if caps is None:
        return False
    fs = caps.fs
    read = bool(fs and fs.read_text_file)
    write = bool(fs and fs.write_text_file)
    tool = canonical_name(name)
    if tool == "readFile":
        return read
    if tool == "writeFile":
        return write
    if tool in ("editFile", "appendFile"):
        return read and write
    if tool == "runCmd":
        return bool(caps.terminal)
    return False


def _path(args: Mapping[str, Any]) -> str:
    value = args.get("path", args.get("file_path"))
    if not isinstance(value, str) or not value:
        raise ValueError("needs `path`")
    return value


async def run_via_client(conn: Any, session_id: str, cwd: str, name: str, args: Mapping[str, Any],
                         on_terminal: OnTerminal) -> ToolOutcome:  # fmt: skip
    """Do the tool's work through the client; errors the client answers become status ``error``."""
    tool = canonical_name(name)
    try:
        outcome = await _run(conn, session_id, cwd, tool, args, on_terminal)
    except RequestError as exc:
        detail = exc.data.get("details") if isinstance(exc.data, dict) else exc.data
        outcome = ToolOutcome("error", f"{exc}" + (f": {detail}" if detail else ""))
    except ValueError as exc:
        outcome = ToolOutcome("error", f"bad arguments for {name}: {exc}")
    outcome.tool = tool
    outcome.details["via"] = "client"
    return outcome


async def _read(
    conn: Any, session_id: str, path: str, line: int | None = None, limit: int | None = None
) -> str:
    response = await conn.read_text_file(session_id=session_id, path=path, line=line, limit=limit)
    return str(response.content)


async def _run(conn: Any, session_id: str, cwd: str, tool: str, args: Mapping[str, Any],
               on_terminal: OnTerminal) -> ToolOutcome:  # fmt: skip
    if tool == "runCmd":
        return await _command(conn, session_id, cwd, args, on_terminal)
    rel = _path(args)
    path = absolute(cwd, rel)
    if tool == "readFile":
        offset, limit = args.get("offset"), args.get("limit")
        text = await _read(
            conn, session_id, path, int(offset) if offset else None, int(limit) if limit else None
        )
        return ToolOutcome("ok", text, details={"lines": len(text.splitlines())})
    if tool == "writeFile":
        content = str(args.get("content", args.get("text", "")))
        await conn.write_text_file(session_id=session_id, path=path, content=content)
        return ToolOutcome("ok", f"Wrote {rel} ({len(content.encode())} bytes)")
    if tool == "appendFile" or appends(args):
        content = await _read(conn, session_id, path) + str(arg(args, "content", "text", default=""))
        await conn.write_text_file(session_id=session_id, path=path, content=content)
        return ToolOutcome("ok", f"Appended to {rel}")
    try:
        current: str | None = await _read(conn, session_id, path)
    except RequestError:
        if arg(args, *OLD_STRING) != "":
            raise  # the client's own reason (not found, not allowed) says more than a guess
        current = None  # an empty `old_string` creates the file
    try:
        text, outcome = edit_text(args, rel, current)
    except ToolError as exc:
        return ToolOutcome("error", str(exc))
    await conn.write_text_file(session_id=session_id, path=path, content=text)
    return outcome


async def _command(
    conn: Any, session_id: str, cwd: str, args: Mapping[str, Any], on_terminal: OnTerminal
) -> ToolOutcome:
    cmd = args.get("cmd", args.get("command"))
    if not isinstance(cmd, str):
        raise ValueError("needs `cmd`")
    where = absolute(cwd, str(args.get("cwd") or "."))
    created = await conn.create_terminal(session_id=session_id, command="bash", args=["-c", cmd],
                                         cwd=os.path.normpath(where))  # fmt: skip
    terminal_id = created.terminal_id
    try:
        await on_terminal(terminal_id)
        exit_status = await conn.wait_for_terminal_exit(session_id=session_id, terminal_id=terminal_id)
        output = await conn.terminal_output(session_id=session_id, terminal_id=terminal_id)
    finally:
        await conn.release_terminal(session_id=session_id, terminal_id=terminal_id)
    code = exit_status.exit_code
    details = {
        "stdout": output.output,
        "stderr": "",
        "exitCode": code,
        "exit_code": code,
        "terminalId": terminal_id,
    }
    return ToolOutcome("ok" if code == 0 else "error", output.output, details=details)
