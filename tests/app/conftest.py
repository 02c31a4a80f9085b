"""Helpers for the app's Pilot tests: a private copy of the examples, and waiting without sleeping blindly.

pytest-asyncio is not installed, so each test is a plain function that runs its
coroutine with ``asyncio.run``. Every test works in its own tmp folder (the
current directory too, since actual screenshots go to ./target/tmp/workbench).
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SCENARIOS

SIZE = (200, 50)


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(SCENARIOS, tmp_path / "scenarios")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WORKBENCH_KEYMAP", str(tmp_path / "no-keymap.toml"))
    return tmp_path


def make_app(path: Path | None, work: Path, **kwargs: Any) -> Any:
    from workbench.app.app import WorkbenchApp

    return WorkbenchApp(path, goldens_dir=work / "goldens", out_dir=work / "runs", **kwargs)


def run(coro: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(coro())  # type: ignore[arg-type]


async def wait_until(
    pilot: Any, condition: Callable[[], bool], timeout: float = 30.0, what: str = ""
) -> None:
    """Let the app work until ``condition()`` holds; fail after ``timeout`` seconds of wall time."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.05)


async def settle(pilot: Any) -> None:
    """Wait for pending validation workers and let the screen refresh (the file watcher never ends)."""
    pending = [w for w in pilot.app.workers if w.group != "watch"]
    if pending:  # an empty list would mean "every worker" to Textual
        await pilot.app.workers.wait_for_complete(pending)
    await pilot.pause(0.05)
