"""The control channel works whatever TMPDIR is: its socket lives in a short private folder."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import SCENARIOS
from workbench.agent.control import SUN_PATH_MAX, AgentLink, EngineLink, private_socket_path


@pytest.fixture
def long_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A TMPDIR far past the AF_UNIX limit (macOS and CI runners have long ones)."""
    folder = tmp_path / ("long-temp-folder-" + "x" * 120)
    folder.mkdir()
    assert len(str(folder)) > SUN_PATH_MAX
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_long_tmpdir_falls_back_to_a_short_private_folder(long_tmpdir: Path) -> None:
    folder, path = private_socket_path()
    try:
        assert len(os.fsencode(path)) <= SUN_PATH_MAX
        assert not folder.startswith(str(long_tmpdir))
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700  # private: only this user may connect
    finally:
        os.rmdir(folder)


def test_a_short_tmpdir_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    short = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    try:
        monkeypatch.setattr(tempfile, "tempdir", str(short))
        folder, _path = private_socket_path()
        assert Path(folder).parent == short
        os.rmdir(folder)
    finally:
        os.rmdir(short)


def test_engine_and_agent_talk_and_the_folder_goes(long_tmpdir: Path) -> None:
    async def main() -> tuple[dict[str, object], str]:
        link = EngineLink()
        await link.start()
        agent = await asyncio.to_thread(AgentLink, link.path)
        agent.send({"op": "hello", "pid": 1, "written": 0})
        hello = await link.wait_connected(timeout=10)
        await link.close()
        agent.close()
        return hello, link.path

    hello, path = asyncio.run(main())
    assert hello["op"] == "hello"
    assert not os.path.exists(os.path.dirname(path))


def test_a_run_passes_with_a_long_tmpdir(long_tmpdir: Path, tmp_path: Path) -> None:
    env = dict(os.environ, TMPDIR=str(long_tmpdir))
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", str(SCENARIOS / "hello-agent.yaml"), "--out", str(tmp_path / "o"),
         "--goldens", str(tmp_path / "g")],
        capture_output=True, text=True, check=False, timeout=120, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert "AF_UNIX" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(long_tmpdir.iterdir()) == []  # no workspace or control folder left behind
