"""Helpers shared by the terminal tests: screens fed directly, stock pyte, and sessions that always end."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TypeVar

import pyte

from workbench.terminal import AsciicastRecorder, PtySession, Screen

T = TypeVar("T")
PYTHON = sys.executable  # an absolute interpreter: no pyenv shim (a bash script) in the way
TIMEOUT = 20.0  # generous: waits end as soon as their condition holds


def ours(text: str, width: int = 20, height: int = 4, scrollback: int = 1000) -> Screen:
    screen = Screen(width, height, scrollback=scrollback)
    screen.feed(text)
    return screen


def stock(text: str, width: int = 20, height: int = 4) -> pyte.Screen:
    screen = pyte.Screen(width, height)
    pyte.Stream(screen).feed(text)
    return screen


def rows(screen: Screen | PtySession) -> list[str]:
    shown = screen.screen if isinstance(screen, PtySession) else screen
    return [row.rstrip() for row in shown.text_rows()]


def stock_rows(screen: pyte.Screen) -> list[str]:
    return [row.rstrip() for row in screen.display]


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


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (a zombie has ended; only its status waits to be read)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def run(factory: Callable[[], Awaitable[T]]) -> T:
    async def main() -> T:
        return await factory()

    return asyncio.run(main())
