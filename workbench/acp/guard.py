"""A guard in front of the SDK's reader: JSON-RPC lines pass, anything else is answered and reported.

The SDK drops a line that is not JSON (logging a traceback) and ignores JSON
that is not a JSON-RPC message, so a peer that writes garbage only ever sees
silence. The guard answers such a line with the error JSON-RPC prescribes
(``-32700`` parse error, ``-32600`` invalid request, ``id`` null unless the
message had one), reports it in one line, and passes every valid line on.

Lines are bounded: one longer than :data:`MAX_LINE_BYTES` is refused
(``-32600``) as it streams past, never held whole, and a message nested deeper
than :data:`MAX_DEPTH` (which would exhaust the decoder's or the SDK's
recursion) is refused too; the agent then reads the next line as usual.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

Report = Callable[[str], None]

MAX_LINE_BYTES = 32 * 1024 * 1024
"""The longest line (one JSON-RPC message) read; a longer one is refused, not read into memory."""
MAX_DEPTH = 200
"""The deepest nesting of arrays and objects in a message (real ones stay below 20)."""


async def _skip_rest_of_line(source: asyncio.StreamReader) -> None:
    """Drop what is left of an over-long line, a buffer's worth at a time, up to its newline."""
    while True:
        try:
            await source.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as exc:
            await source.readexactly(exc.consumed)
        except asyncio.IncompleteReadError:
            return


def _too_deep(message: Any) -> bool:
    """Whether ``message`` nests past :data:`MAX_DEPTH`, found without recursing."""
    stack: list[tuple[Any, int]] = [(message, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return False


async def guard_stream(source: asyncio.StreamReader, target: asyncio.StreamReader, writer: asyncio.StreamWriter,
                       report: Report, max_line: int = MAX_LINE_BYTES) -> None:  # fmt: skip
    """Copy JSON-RPC lines from ``source`` to ``target``; answer others on ``writer`` and ``report`` them.

    ``source``'s own limit bounds a line (make it with ``limit=max_line``); ``max_line`` is what
    the refusal says."""
    from acp import RequestError

    error: RequestError | None

    number = 0
    try:
        while True:
            try:
                line = await source.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:  # the last line, without its newline
                line = exc.partial
                if not line:
                    break
            except asyncio.LimitOverrunError:
                await _skip_rest_of_line(source)
                number += 1
                limit = f"{max_line // (1024 * 1024)} MB" if max_line >= 1024 * 1024 else f"{max_line} bytes"
                error = RequestError.invalid_request(
                    {"details": f"line {number} is longer than {limit}; refused"}
                )
                await _answer(writer, report, error, None, b"")
                continue
            number += 1
            text = line.strip()
            if not text:
                continue
            error = None
            ident: Any = None
            try:
                message = json.loads(text)
            except RecursionError:
                error = RequestError.parse_error({"details": f"line {number} is nested too deeply"})
            except ValueError as exc:
                error = RequestError.parse_error({"details": f"line {number} is not JSON: {exc}"})
            else:
                if (
                    not isinstance(message, dict)
                    or message.get("jsonrpc") != "2.0"
                    or not ("method" in message or "id" in message)
                ):
                    ident = message.get("id") if isinstance(message, dict) else None
                    error = RequestError.invalid_request(
                        {"details": f"line {number} is not a JSON-RPC 2.0 request, notification or response"}
                    )
                elif _too_deep(message):
                    ident = message.get("id")
                    error = RequestError.invalid_request(
                        {"details": f"line {number} is nested too deeply (more than {MAX_DEPTH} levels)"}
                    )
            if error is None:
                target.feed_data(line if line.endswith(b"\n") else line + b"\n")
                continue
            await _answer(writer, report, error, ident, text)
            if not line.endswith(b"\n"):
                break
    except (ConnectionError, OSError):
        pass  # the peer went away: the reader's end-of-file below tells the SDK
    finally:
        target.feed_eof()


async def _answer(writer: asyncio.StreamWriter, report: Report, error: Any, ident: Any, text: bytes) -> None:
    """Send the JSON-RPC error for a refused line and report it in one line."""
    details = error.data.get("details") if isinstance(error.data, dict) else str(error)
    report(f"{details}: {text[:120].decode('utf-8', 'replace')!r}" if text else str(details))
    frame = {"jsonrpc": "2.0", "id": ident, "error": error.to_error_obj()}
    writer.write((json.dumps(frame) + "\n").encode())
    await writer.drain()


def guarded(
    source: asyncio.StreamReader, writer: asyncio.StreamWriter, report: Report
) -> tuple[asyncio.StreamReader, asyncio.Task[None]]:
    """A reader that yields only ``source``'s JSON-RPC lines, and the task that feeds it (cancel it at the end)."""
    checked = asyncio.StreamReader(limit=MAX_LINE_BYTES + 1)
    return checked, asyncio.ensure_future(guard_stream(source, checked, writer, report))
