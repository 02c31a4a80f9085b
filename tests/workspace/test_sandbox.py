"""What the sandbox closes beyond Landlock's writes: /dev/shm, and (under bubblewrap) chmod and file times.

The commands run through the mock agent's `runCmd`, as a scenario's would; files outside are in the test's
own folder, and /dev/shm names are unique to the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.agent.tools import ShellRegistry, execute_tool
from workbench.workspace import Workspace, landlock, sandbox

confined = pytest.mark.skipif(
    sandbox.level() == "none", reason="this machine has neither bubblewrap nor Landlock"
)
bubblewrap = pytest.mark.skipif(
    sandbox.level() != "bubblewrap", reason="bubblewrap is not installed or cannot make namespaces here"
)


def run(ws: Workspace, shells: ShellRegistry, cmd: str) -> str:
    return str(execute_tool("runCmd", {"cmd": cmd}, ws, shells=shells).result)


@confined
def test_a_file_written_to_dev_shm_does_not_outlive_the_command(
    ws: Workspace, shells: ShellRegistry, each_level: str
) -> None:
    name = f"/dev/shm/wb-test-{uuid.uuid4().hex}"
    try:
        run(ws, shells, f"echo x > {name} 2>/dev/null; echo done")
        assert not os.path.exists(name)
    finally:
        Path(name).unlink(missing_ok=True)


@bubblewrap
def test_chmod_and_file_times_outside_the_workspace_are_refused(
    ws: Workspace, shells: ShellRegistry, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    before = outside.stat()
    said = run(ws, shells, f"chmod 600 {outside}; touch -d 2000-01-01 {outside}; chmod 700 {tmp_path}")
    assert "Read-only file system" in said
    after = outside.stat()
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)
    assert tmp_path.stat().st_mode == (tmp_path.stat().st_mode)  # unchanged folder mode, re-read
    inside = run(
        ws, shells, "echo hi > a.txt && chmod 600 a.txt && touch -d 2000-01-01 a.txt && stat -c %a a.txt"
    )
    assert inside == "600\n" and (ws.path / "a.txt").read_text() == "hi\n"
    shm = run(ws, shells, "echo private > /dev/shm/x && cat /dev/shm/x")
    assert shm == "private\n"  # a private /dev/shm works for the command itself


def test_the_level_names_what_it_does() -> None:
    assert sandbox.level() in sandbox.LEVELS
    assert sandbox.LEVELS[sandbox.level()].startswith(
        sandbox.level() if sandbox.level() != "landlock" else "Landlock"
    )


@pytest.fixture
def probed_afresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The level's probes forgotten, before and after: each test below probes as a new process would."""

    def forget() -> None:
        sandbox._bwrap.cache_clear()
        sandbox._namespaces.cache_clear()

    forget()
    yield
    forget()


def started_probes() -> list[subprocess.Popen[bytes] | int]:
    return [*sandbox._early_bwrap.values(), *sandbox._early_namespaces]


def waited_for(probe: subprocess.Popen[bytes] | int) -> bool:
    if isinstance(probe, int):
        try:
            os.waitpid(probe, os.WNOHANG)
        except ChildProcessError:
            return True  # already collected
        return False
    return probe.returncode is not None


def test_the_probes_started_early_find_the_same_level_and_are_waited_for(probed_afresh: None) -> None:
    expected = sandbox.level()
    sandbox._bwrap.cache_clear()
    sandbox._namespaces.cache_clear()
    sandbox.start_probes()
    started = started_probes()
    if expected == "bubblewrap":
        assert len(started) == 2  # bwrap, and the child making namespaces
    assert sandbox.level() == expected
    assert not started_probes() and all(waited_for(p) for p in started)
    sandbox.start_probes()  # the level is known: nothing more to start
    assert not started_probes()


def test_probes_the_level_does_not_need_are_waited_for_too(
    probed_afresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox.start_probes()
    started = started_probes()
    monkeypatch.setenv(sandbox.DISABLE_VAR, "1")  # bubblewrap set aside after they started
    assert sandbox.level() == ("landlock" if landlock.available() else "none")
    assert not started_probes() and all(waited_for(p) for p in started)


def test_a_run_says_which_level_it_used(tmp_path: Path) -> None:
    """`workbench run -v` prints the level and the JSON report records it."""
    (tmp_path / "s.yaml").write_text("name: s\ntimeline:\n  - log: hi\n")
    done = subprocess.run([sys.executable, "-m", "workbench", "run", "-v", "s.yaml", "--out", "out", "--report",
                           "r.json"], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"workbench: sandbox: {sandbox.LEVELS[sandbox.level()]}" in done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["sandbox"] == sandbox.level()


@bubblewrap
def test_a_process_confined_by_the_namespace_confines_its_commands_with_landlock(tmp_path: Path) -> None:
    """The mark is the process's own state, set by `namespace.confine_self`: this process still wraps
    commands in bwrap; the confined child starts them as they are, under Landlock, which keeps them out of
    the child's other writable folders."""
    from workbench.workspace import namespace

    own, agents = tmp_path / "own", tmp_path / "agents"
    own.mkdir()
    agents.mkdir()
    assert not namespace.confined()
    assert sandbox.Sandbox([own]).wrap(["true"])[0].endswith("bwrap")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            namespace.confine_self([own, agents, Path("/dev")])
            with sandbox.Sandbox([own, Path("/dev")]) as box:
                argv = box.wrap(["sh", "-c", f"echo x > {own}/o; echo x > {agents}/a; echo x > /dev/null"])
                done = box.run(lambda: subprocess.run(argv, capture_output=True, text=True, check=False))
            os.write(write, json.dumps([namespace.confined(), argv[0], done.stderr]).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read) as said:
        marked, program, stderr = json.loads(said.read())
    assert os.waitstatus_to_exitcode(status) == 0
    assert marked and program == "sh" and "Permission denied" in stderr
    assert (own / "o").read_text() == "x\n" and not (agents / "a").exists()
