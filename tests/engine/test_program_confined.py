"""The program under test is confined like the scenario's shell commands (#26.1).

A program that tries to write beside its workspace (a sibling folder) or into the user's HOME cannot, at
each level this machine has (bubblewrap, and Landlock with bubblewrap set aside), while it can still
write its workspace, the run's private HOME and its TMPDIR. Both ways a program starts are covered: a
scenario's ``command`` (fork and exec, through the engine) and the forked mock agent (no exec).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import types
import uuid
from pathlib import Path

import pytest

from workbench.engine import fork
from workbench.workspace import sandbox
from workbench.workspace.sandbox import ProgramSandbox

confined = pytest.mark.skipif(
    sandbox.level() == "none", reason="this machine has neither bubblewrap nor Landlock"
)


def _try(paths: dict[str, str]) -> str:
    """A shell script that tries to write each path and says which it could: `wrote NAME` / `refused NAME`."""
    return "; ".join(
        f'( echo x > "{path}" ) 2>/dev/null && echo "wrote {name}" || echo "refused {name}"'
        for name, path in paths.items()
    )


@confined
def test_a_scenario_command_writes_only_its_workspace_home_and_tmpdir(
    tmp_path: Path, each_level: str
) -> None:
    sibling, user_home = tmp_path / "sibling", tmp_path / "user-home"
    sibling.mkdir()
    user_home.mkdir()
    script = _try({"workspace": "inside.txt", "home": "$HOME/h.txt", "tmpdir": "$TMPDIR/t.txt",
                   "sibling": f"{sibling}/s.txt", "user-home": f"{user_home}/.bashrc"})  # fmt: skip
    script += f'; chmod 700 "{sibling}" 2>/dev/null && echo "chmod sibling"; echo "all tried"'
    (tmp_path / "s.yaml").write_text(
        f"name: escape\ncommand: [sh, -c, {script!r}]\ntimeline:\n  - waitFor: {{text: all tried}}\n"
    )
    env = {**os.environ, "HOME": str(user_home)}
    done = subprocess.run([sys.executable, "-m", "workbench", "run", "s.yaml", "--out", "out", "--keep"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    screen = "\n".join(p.read_text() for p in (tmp_path / "out").rglob("terminal.cast"))
    for name in ("workspace", "home", "tmpdir"):
        assert f"wrote {name}" in screen
    for name in ("sibling", "user-home"):
        assert f"refused {name}" in screen
    assert list(sibling.iterdir()) == [] and list(user_home.iterdir()) == []
    if each_level == "bubblewrap":  # Landlock does not cover chmod (the README says so)
        assert "chmod sibling" not in screen and sibling.stat().st_mode & 0o777 != 0o700


@confined
def test_the_forked_mock_agent_is_confined_before_it_runs(
    tmp_path: Path, each_level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mock agent is forked, not exec'd: it confines itself in the child, before its ``main`` runs."""
    workspace, run_dir, sibling = tmp_path / "ws", tmp_path / "run", tmp_path / "sibling"
    for folder in (workspace, run_dir / "home", sibling):
        folder.mkdir(parents=True)
    targets = {"workspace": workspace / "w", "home": run_dir / "home" / "h", "sibling": sibling / "s",
               "run-dir": run_dir / "r"}  # fmt: skip

    def main(args: list[str]) -> int:
        outcome = []
        for name, path in targets.items():
            try:
                path.write_text("x")
                outcome.append(f"wrote {name}")
            except OSError:
                outcome.append(f"refused {name}")
        (workspace / "outcome").write_text("\n".join(outcome))
        return 0

    monkeypatch.setattr(fork, "warm", lambda: types.SimpleNamespace(main=main))
    confined = ProgramSandbox(workspace, run_dir, {"PATH": os.environ["PATH"]})

    async def play() -> int:
        with confined.sandbox as box:
            session = await fork.fork_session([], env=confined.env, cwd=str(workspace), width=80, height=24,
                                              recorder=None, confine=box.confine_self)  # fmt: skip
        try:
            return await session.wait_exit(60)
        finally:
            await session.terminate()

    try:
        assert asyncio.run(play()) == 0
    finally:
        confined.remove()
    outcome = (workspace / "outcome").read_text().splitlines()
    assert outcome == ["wrote workspace", "wrote home", "refused sibling", "refused run-dir"]
    assert not (sibling / "s").exists() and not (run_dir / "r").exists()
    assert not confined.scratch.exists()


def test_an_unconfined_machine_is_named_as_such() -> None:
    """Where neither level works, `-v` and the report say the program under test is not confined."""
    assert "program under test are NOT confined" in sandbox.LEVELS["none"]


@confined
def test_the_forked_mock_agents_commands_write_only_their_workspace_home_and_tmpdir(
    tmp_path: Path, each_level: str
) -> None:
    """The confined mock agent's own commands (`runCmd`) may write only their own set, not all the agent may:
    at the bubblewrap level through Landlock on top of the agent's namespace (/dev/shm is the namespace's
    private tmpfs, never the machine's, as under bwrap), at the Landlock level through Landlock as any command. The agent's scratch folder (the parent of
    the command's TMPDIR) and its crash folder are the agent's, not the command's."""
    user_home, outside = tmp_path / "user-home", tmp_path / "outside"
    user_home.mkdir()
    outside.mkdir(mode=0o755)
    probe = f"wb-test-{uuid.uuid4().hex}"
    script = _try({"workspace": "inside.txt", "home": "$HOME/h.txt", "tmpdir": "$TMPDIR/t.txt",
                   "agent-scratch": "$(dirname $TMPDIR)/a.txt", "crashes": "$WORKBENCH_CRASH_DIR/c.txt",
                   "tmp": f"/tmp/{probe}", "user-home": f"{user_home}/.bashrc", "shm": f"/dev/shm/{probe}",
                   "null": "/dev/null"})  # fmt: skip
    script += f'; chmod 700 "{outside}" 2>/dev/null && echo "chmod outside"; echo "all tried"'
    said = ["wrote workspace", "wrote home", "wrote tmpdir", "refused agent-scratch", "refused crashes",
            "refused tmp", "refused user-home", "wrote shm", "wrote null"]  # fmt: skip
    if each_level == "landlock":  # Landlock does not cover chmod (the README says so); no private /dev/shm
        said[said.index("wrote shm")] = "refused shm"
        said.append("chmod outside")
    result = "\n".join([*said, "all tried"])
    (tmp_path / "s.yaml").write_text(
        f"name: escape\ntimeline:\n  - runCmd: {{cmd: {json.dumps(script)}, result: {json.dumps(result)}}}\n"
    )
    env = {**os.environ, "HOME": str(user_home)}
    try:
        done = subprocess.run([sys.executable, "-m", "workbench", "run", "s.yaml", "--out", "out"], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert not Path(f"/tmp/{probe}").exists() and not Path(f"/dev/shm/{probe}").exists()
    finally:
        Path(f"/dev/shm/{probe}").unlink(missing_ok=True)
        Path(f"/tmp/{probe}").unlink(missing_ok=True)
    assert list(user_home.iterdir()) == []
    if each_level == "bubblewrap":
        assert outside.stat().st_mode & 0o777 == 0o755
