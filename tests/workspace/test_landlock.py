"""Shell commands write only inside the workspace where the kernel has Landlock; elsewhere they still run."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import write
from workbench.agent.tools import ShellRegistry, execute_tool
from workbench.workspace import Workspace, landlock, sandbox
from workbench.workspace.landlock import WriteSandbox, default_writable

needs_landlock = pytest.mark.skipif(not landlock.available(), reason="this kernel has no Landlock")


@pytest.fixture(autouse=True)
def landlock_alone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """These tests are about the Landlock level: bubblewrap, where installed, is set aside (tests/workspace/
    test_sandbox.py covers it)."""
    monkeypatch.setenv(sandbox.DISABLE_VAR, "1")
    sandbox._bwrap.cache_clear()
    yield
    sandbox._bwrap.cache_clear()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep\n")
    return folder


def run(ws: Workspace, shells: ShellRegistry, cmd: str) -> str:
    outcome = execute_tool("runCmd", {"cmd": cmd}, ws, shells=shells)
    return str(outcome.result)


@needs_landlock
def test_run_cmd_cannot_write_outside_but_works_inside(
    ws: Workspace, shells: ShellRegistry, outside: Path
) -> None:
    assert "Permission denied" in run(ws, shells, f"echo x > {outside}/new.txt")
    bash = execute_tool(
        "Bash", {"command": f"echo x > {outside}/bash.txt"}, ws, shells=shells
    )  # Claudeless live
    assert "Permission denied" in str(bash.result)
    assert "Permission denied" in run(ws, shells, f"rm {outside}/keep.txt")
    assert "Permission denied" in run(ws, shells, f"mkdir {outside}/d")
    assert "Permission denied" in run(ws, shells, f"mv {outside}/keep.txt {ws.path}/stolen.txt")
    assert "Permission denied" in run(
        ws, shells, f"setsid sh -c 'echo x > {outside}/child.txt' 2>&1"
    )  # inherited
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert run(ws, shells, "mkdir -p a/b && echo hi > a/b/c.txt && cat a/b/c.txt") == "hi\n"
    assert run(ws, shells, "echo quiet > /dev/null; cat /etc/hostname > /dev/null; echo ok") == "ok\n"
    assert (
        run(ws, shells, "f=$(mktemp) && echo t > $f && cat $f && rm $f") == "t\n"
    )  # scratch files still work


@needs_landlock
def test_only_the_started_process_is_confined_not_this_one(ws: Workspace, outside: Path) -> None:
    with WriteSandbox(default_writable(ws.path, ws.path)) as sandbox:
        done = sandbox.run(lambda: subprocess.run(["sh", "-c", f"echo x > {outside}/a"], capture_output=True))
    assert done.returncode != 0 and not (outside / "a").exists()
    (outside / "b").write_text("this process still writes where it likes\n")


@needs_landlock
def test_the_engine_lets_commands_write_the_runs_home(
    ws: Workspace, shells: ShellRegistry, outside: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "run-home"
    home.mkdir()
    monkeypatch.setenv(landlock.WRITABLE_VAR, str(home))
    assert run(ws, shells, f"echo cache > {home}/.cache && cat {home}/.cache") == "cache\n"
    assert "Permission denied" in run(ws, shells, f"echo x > {outside}/new.txt")


@needs_landlock
def test_a_background_shell_is_confined_too(ws: Workspace, shells: ShellRegistry, outside: Path) -> None:
    outcome = execute_tool("runCmd", {"cmd": f"echo x > {outside}/bg.txt; echo done",
                                      "run_in_background": True}, ws, shells=shells)  # fmt: skip
    shell = outcome.details["shell"]
    seen = ""
    deadline = time.monotonic() + 30
    while "done" not in seen and time.monotonic() < deadline:  # bashOutput returns what is new each time
        seen += str(execute_tool("bashOutput", {"bash_id": shell}, ws, shells=shells).result)
        time.sleep(0.02)
    assert "Permission denied" in seen and "done" in seen
    assert not (outside / "bg.txt").exists()


@needs_landlock
def test_user_command_is_confined(tmp_path: Path, outside: Path) -> None:
    write(tmp_path, "s.yaml", f"""\
name: user-command-outside
timeline:
  - userCommand:
      cmd: "echo x > {outside}/user.txt"
      expect:
        exitCode: 0
""")  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", "s.yaml", "--out", "out"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Permission denied" in done.stdout
    assert not (outside / "user.txt").exists()


def test_without_landlock_commands_run_unconfined(
    ws: Workspace, shells: ShellRegistry, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(landlock, "abi_version", lambda: 0)
    sandbox = WriteSandbox(default_writable(ws.path, ws.path))
    assert not sandbox.active and sandbox.run(lambda: 42) == 42
    assert run(ws, shells, f"echo x > {outside}/new.txt && echo wrote") == "wrote\n"
    assert (outside / "new.txt").exists()


@needs_landlock
def test_under_the_engine_commands_write_the_workspace_and_the_runs_home_only(
    tmp_path: Path, outside: Path
) -> None:
    write(tmp_path, "s.yaml", f"""\
name: home-is-writable
timeline:
  - runCmd: {{cmd: "echo hi > $HOME/x && cat $HOME/x", result: hi}}
  - runCmd: {{cmd: "echo x > {outside}/agent.txt", status: error}}
""")  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", "s.yaml", "--out", "out"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (outside / "agent.txt").exists()
