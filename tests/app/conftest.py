"""Helpers for the app's Pilot tests: a private copy of the examples, and waiting without sleeping blindly.

pytest-asyncio is not installed, so each test is a plain function that runs its
coroutine with ``asyncio.run``. Every test works in its own tmp folder (the
current directory too, since actual screenshots go to ./target/tmp/workbench).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SCENARIOS
from workbench.app.core.session import SPEEDS

SIZE = (200, 50)


@pytest.fixture(scope="session")
def example_goldens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The goldens of ``hello-agent`` as ``workbench run`` writes them (the app writes none without an accept)."""
    from workbench.engine.runner import RunOptions, run_scenario

    root = tmp_path_factory.mktemp("example-goldens")
    cwd = Path.cwd()
    os.chdir(root)  # the actual captures go to ./target
    try:
        options = RunOptions(speed=None, goldens_dir=root / "goldens", out_dir=root / "runs")
        result = asyncio.run(run_scenario(SCENARIOS / "hello-agent.yaml", options))
    finally:
        os.chdir(cwd)
    assert result.status == "passed", result.failures
    return root / "goldens"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, example_goldens: Path) -> Path:
    """A private copy of the examples and of their goldens; the current directory."""
    shutil.copytree(SCENARIOS, tmp_path / "scenarios")
    shutil.copytree(example_goldens, tmp_path / "goldens")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WORKBENCH_KEYMAP", str(tmp_path / "no-keymap.toml"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # the theme choice is saved there
    return tmp_path


def long_scenario(path: Path, messages: int, head: tuple[str, ...] = ("name: long",)) -> int:
    """Write a scenario of ``messages`` one-message model steps after ``head``; its number of lines."""
    lines = [*head, "timeline:"]
    for i in range(messages):
        lines += ["  - llmResponse:", "      - assistant:", f"          - [10, 'message {i}']"]
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def make_app(path: Path | None, work: Path, **kwargs: Any) -> Any:
    from workbench.app.app import WorkbenchApp

    return WorkbenchApp(path, goldens_dir=work / "goldens", out_dir=work / "runs", **kwargs)


@contextlib.asynccontextmanager
async def opened(
    path: Path | None, work: Path, size: tuple[int, int] = SIZE, **kwargs: Any
) -> AsyncIterator[Any]:
    """The app on ``path`` at ``size``, validated and drawn: yields its pilot (``pilot.app.main_screen``)."""
    app = make_app(path, work, **kwargs)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        yield pilot


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


async def play_to_end(pilot: Any, key: str = "f5") -> Any:
    """Run the open scenario at max speed with ``key`` (F5 unless remapped) and wait for its result."""
    main = pilot.app.main_screen
    main.session.speed_index = len(SPEEDS) - 1  # max, as F3 pressed until it stops
    main.session._apply_speed()
    await pilot.press(key)
    await wait_until(pilot, lambda: main.result is not None, what="the run to finish")
    return main.result


async def settle(pilot: Any) -> None:
    """Wait for pending validation workers and let the screen refresh (the file watcher never ends)."""
    from textual.worker import WorkerCancelled

    for _ in range(500):  # the first file is listed and validated after the first frame
        if not getattr(pilot.app.screen, "starting", False):
            break
        await pilot.pause(0.01)
    for _ in range(20):  # a validation cancelled by a newer one is replaced: wait for that one too
        pending = [w for w in pilot.app.workers if not w.group.startswith("watch") and not w.is_finished]
        if not pending:  # an empty list would mean "every worker" to Textual
            break
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete(pending)
    await pilot.pause(0.05)


def screen_text(app: Any) -> list[str]:
    """What the terminal window shows now, row by row (the compositor's output, as a user sees it)."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]
