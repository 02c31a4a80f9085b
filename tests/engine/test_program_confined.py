"""The program under test is confined like the scenario's shell commands (#26.1).

A program that tries to write beside its workspace (a sibling folder) or into the user's HOME cannot, at
each level this machine has (bubblewrap, and Landlock with bubblewrap set aside), while it can still
write its workspace, the run's private HOME and its TMPDIR. Both ways a program starts are covered: a
scenario's ``command`` (fork and exec, through the engine) and the forked mock agent (no exec).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import types
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
