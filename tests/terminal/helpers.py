"""Shared helpers for the terminal tests: a plain environment and sessions that are always ended."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from workbench.terminal import AsciicastRecorder, PtySession

T = TypeVar("T")
PYTHON = sys.executable
TIMEOUT = 20.0  # generous: waits end as soon as their condition holds


def term_env(**extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PS1": "$ ",
    }
    env.update(extra)
    return env


@asynccontextmanager
async def session(
    argv: Sequence[str],
    *,
    width: int = 80,
    height: int = 24,
    cwd: str = "/",
    recorder: AsciicastRecorder | None = None,
    scrollback: int = 1000,
    **env: str,
) -> AsyncIterator[PtySession]:
    s = await PtySession.spawn(
        argv,
        env=term_env(**env),
        cwd=cwd,
        width=width,
        height=height,
        recorder=recorder,
        scrollback=scrollback,
    )
    try:
        yield s
    finally:
        await s.terminate()


def run(factory: Callable[[], Awaitable[T]]) -> T:
    async def main() -> Any:
        return await factory()

    return asyncio.run(main())  # type: ignore[no-any-return]


def rows(s: PtySession) -> list[str]:
    return [row.rstrip() for row in s.screen.text_rows()]
