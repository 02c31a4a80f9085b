"""Work that grows with a request's size, done in another process when the body is large.

Decoding 32 MB of JSON, cleaning a 32 MB prompt of reminders, splitting it into
words: each is one call into C that holds the interpreter lock for hundreds of
milliseconds, so a worker *thread* still stalls every other client's request on
the event loop. A body over :data:`PROCESS_BYTES` is therefore understood (decoded,
parsed for its API, its prompts and fingerprint computed, its side-request kind
found) in a worker process; the loop only waits for the result.
"""

from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import re
import signal
import sys
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from workbench.httpguard import strict_json

from .conversation import ChatRequest
from .sse import dumps
from .structured import SideRequest, side_request
from .wire import BUILT_IN, Wire, WireError

PROCESS_BYTES = 1024 * 1024
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_PR_SET_PDEATHSIG = 1


def decode(raw: bytes) -> Any:
    """The JSON body; a lone surrogate (valid JSON, invalid Unicode) is refused as the real APIs do."""
    body = strict_json(raw)
    if _SURROGATE.search(raw):
        try:
            dumps(body).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("the body holds a lone UTF-16 surrogate, which is not valid Unicode") from None
    return body


def understand(wire: Wire, body: Any, params: Mapping[str, str]) -> tuple[ChatRequest, SideRequest | None]:
    """The request parsed, with everything that grows with its size computed (see ChatRequest.understood)."""
    chat = wire.parse(body, params).understood()
    return chat, side_request(chat)


def understand_raw(
    style: str, raw: bytes, params: Mapping[str, str]
) -> tuple[ChatRequest, SideRequest | None]:
    """:func:`understand` from the raw body (in the worker process); WireError for a body that is not JSON."""
    wire = next(w for w in BUILT_IN if w.style == style)
    try:
        body = decode(raw)
    except RecursionError:
        raise WireError("the request body is nested too deeply") from None
    except ValueError as exc:
        raise WireError(f"the request body is not valid JSON: {exc}") from None
    return understand(wire, body, params)


def understand_from(
    style: str, source: str, params: Mapping[str, str]
) -> tuple[ChatRequest, SideRequest | None]:
    """:func:`understand_raw` of the body the server left in ``source`` (its memory file, /proc/PID/fd/N)."""
    with open(source, "rb") as body:
        raw = body.read()
    return understand_raw(style, raw, params)


async def understood(
    pool: ProcessPoolExecutor, style: str, raw: bytes, params: Mapping[str, str]
) -> tuple[ChatRequest, SideRequest | None]:
    """The large body ``raw`` understood in a worker of ``pool``.

    The body goes through a memory file (Linux ``memfd``) that the worker opens, written from a thread:
    ``os.write`` copies without the interpreter lock, where pickling 32 MB onto the pool's queue held it
    for tens of milliseconds, stalling the event loop. Nothing is left behind: the file is anonymous."""
    loop = asyncio.get_running_loop()
    if not hasattr(os, "memfd_create"):
        return await loop.run_in_executor(pool, understand_raw, style, raw, dict(params))
    fd = os.memfd_create("wb-body", os.MFD_CLOEXEC)
    try:
        await asyncio.to_thread(_write_all, fd, raw)
        source = f"/proc/{os.getpid()}/fd/{fd}"
        return await loop.run_in_executor(pool, understand_from, style, source, dict(params))
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def offloadable(wire: Wire) -> bool:
    """Whether the worker process knows ``wire`` (a built-in style; a test's own wire, or a style an extension
    registered, stays in-process: the worker is spawned and imports only this package)."""
    return any(w is wire for w in BUILT_IN)


def _end_with_the_server() -> None:
    """A worker's initializer: it gets SIGKILL when the thread that started it ends (Linux's
    PR_SET_PDEATHSIG), so a server that is killed, or exits without shutting the pool down, leaves
    no worker behind."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:  # the server was gone before the line above
        os._exit(0)


def new_pool() -> ProcessPoolExecutor:
    """Worker processes for one server (started on first use, with ``spawn``: the server's loop and threads
    are not forked). The server shuts them down when it stops, so none outlives it, in its own process
    either (a test process, or the app, starts and stops many servers)."""
    return ProcessPoolExecutor(
        max_workers=2, mp_context=multiprocessing.get_context("spawn"), initializer=_end_with_the_server
    )
