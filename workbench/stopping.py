"""Serving until told to stop: what every long-running server command waits on.

A server started from a shell (`workbench serve llm`, `workbench serve rest`)
serves until Ctrl-C or SIGTERM and then shuts down in order (pending work
cancelled, sessions checked, sockets closed). Waiting on the signals as an
event, rather than letting them raise inside the event loop, is what lets its
``finally`` run with the loop still whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal


async def until_stopped() -> None:
    """Return once this process receives SIGINT or SIGTERM (where the loop can watch signals)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
