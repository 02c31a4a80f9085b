"""A guard in front of the SDK's reader: JSON-RPC lines pass, anything else is answered and reported.

The SDK drops a line that is not JSON (logging a traceback) and ignores JSON
that is not a JSON-RPC message, so a peer that writes garbage only ever sees
silence. The guard answers such a line with the error JSON-RPC prescribes
(``-32700`` parse error, ``-32600`` invalid request, ``id`` null unless the
message had one), reports it in one line, and passes every valid line on.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

Report = Callable[[str], None]


async def guard_stream(source: asyncio.StreamReader, target: asyncio.StreamReader, writer: asyncio.StreamWriter,
                       report: Report) -> None:  # fmt: skip
    """Copy JSON-RPC lines from ``source`` to ``target``; answer others on ``writer`` and ``report`` them."""
    from acp import RequestError

    number = 0
    try:
        while line := await source.readline():
            number += 1
            text = line.strip()
            if not text:
                continue
            error: RequestError | None = None
            ident: Any = None
            try:
                message = json.loads(text)
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
            if error is None:
                target.feed_data(line if line.endswith(b"\n") else line + b"\n")
                continue
            details = error.data.get("details") if isinstance(error.data, dict) else str(error)
            report(f"{details}: {text[:120].decode('utf-8', 'replace')!r}")
            frame = {"jsonrpc": "2.0", "id": ident, "error": error.to_error_obj()}
            writer.write((json.dumps(frame) + "\n").encode())
            await writer.drain()
    except (ConnectionError, OSError):
        pass  # the peer went away: the reader's end-of-file below tells the SDK
    finally:
        target.feed_eof()


def guarded(
    source: asyncio.StreamReader, writer: asyncio.StreamWriter, report: Report
) -> tuple[asyncio.StreamReader, asyncio.Task[None]]:
    """A reader that yields only ``source``'s JSON-RPC lines, and the task that feeds it (cancel it at the end)."""
    checked = asyncio.StreamReader(limit=50 * 1024 * 1024)
    return checked, asyncio.ensure_future(guard_stream(source, checked, writer, report))
