"""The engine's git obeys no repository config that runs programs, and runs confined to the workspace.

A scenario controls the workspace's `.git` (a `repo.dir` may ship one, a `runCmd` may run `git config`),
so each reproducer plants a program that would write a marker outside the workspace, then lets the
engine commit: the marker must never appear.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.agent.tools import ShellRegistry, execute_tool
from workbench.scenario import model as m
from workbench.scenario.diagnostics import Pos
from workbench.workspace import Workspace, WorkspaceError, git, landlock

POS = Pos("scenario.yaml", 3, 1)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def planted(outside: Path, name: str) -> str:
    """A shell command that records that it ran, outside the workspace (and passes its input through)."""
    return f"sh -c 'touch {outside}/{name}; cat'"


def quoted(command: str) -> str:
    """``command`` as a git config file value (unquoted, `;` would start a comment)."""
    return '"' + command.replace("\\", "\\\\").replace('"', '\\"') + '"'


def seed_with_git_config(scenario_dir: Path, config: str) -> None:
    """A `repo.dir` that ships its own `.git` (an existing repository) with ``config`` appended."""
    seed = scenario_dir / "seed"
    seed.mkdir(parents=True)
    (seed / "a.txt").write_text("a\n")
    (seed / ".gitattributes").write_text("* filter=evil diff=evil\n")
    git(seed, "init", "-q", "-b", "main")
    with (seed / ".git" / "config").open("a") as file:
        file.write(config)


def run_cmd(ws: Workspace, shells: ShellRegistry, cmd: str) -> str:
    return str(execute_tool("runCmd", {"cmd": cmd}, ws, shells=shells).result)


def test_a_seed_repository_with_a_filter_runs_nothing(temp_root: Path, tmp_path: Path, outside: Path) -> None:
    scenario_dir = tmp_path / "scenario"
    seed_with_git_config(
        scenario_dir,
        f'[filter "evil"]\n\tclean = {quoted(planted(outside, "clean"))}\n\tsmudge = {quoted(planted(outside, "smudge"))}\n'
        f"\tprocess = {quoted(planted(outside, 'process'))}\n\trequired = true\n"
        f'[diff "evil"]\n\ttextconv = {quoted(planted(outside, "textconv"))}\n'
        f"[core]\n\tfsmonitor = {outside}/fsmonitor.sh\n\tpager = {quoted(planted(outside, 'pager'))}\n"
        f"[credential]\n\thelper = {quoted('!' + planted(outside, 'credential'))}\n",
    )
    (outside / "fsmonitor.sh").write_text(f"#!/bin/sh\ntouch {outside}/fsmonitor\n")
    (outside / "fsmonitor.sh").chmod(0o755)
    spec = m.Repo(init=True, branch="feature", dir="seed", files=(), pos=POS)
    with Workspace.create(scenario_dir, spec) as workspace:
        (workspace.path / "b.txt").write_text("b\n")
        workspace.commit("Add b")
        assert git(workspace.path, "log", "--format=%s").stdout.split("\n")[:2] == ["Add b", "Initial commit"]
        assert workspace.check_git_commit_message_contains("Add b").ok
        assert git(workspace.path, "show", "HEAD:b.txt").stdout == "b\n"  # stored as it is, not filtered
    assert sorted(p.name for p in outside.iterdir()) == ["fsmonitor.sh"]


def test_config_a_command_writes_runs_nothing_when_the_engine_commits(
    temp_root: Path, tmp_path: Path, outside: Path, shells: ShellRegistry
) -> None:
    spec = m.Repo(init=True, branch=None, dir=None, files=(m.RepoFile("a.txt", b"a\n", POS),), pos=POS)
    with Workspace.create(tmp_path, spec) as workspace:
        hooks = workspace.path / "hooks"
        hooks.mkdir()
        for hook in ("pre-commit", "post-commit", "commit-msg", "post-checkout", "post-index-change"):
            (hooks / hook).write_text(f"#!/bin/sh\ntouch {outside}/{hook}\n")
            (hooks / hook).chmod(0o755)
        commands = [
            f"git config core.fsmonitor '{planted(outside, 'fsmonitor')}'",
            f"git config core.hooksPath {hooks}",
            f'git config filter.lfs.clean "{planted(outside, "lfs")}"',
            "printf '*.txt filter=lfs\\n*.md filter=more\\n' > .gitattributes",
            f"git config include.path {outside}/included",
            f"git config gpg.program '{planted(outside, 'gpg')}'",
            "git config log.showSignature true",
            "git config gc.auto 1",
        ]
        (outside / "included").write_text(
            f'[filter "more"]\n\tclean = {quoted(planted(outside, "included-clean"))}\n'
        )
        run_cmd(workspace, shells, " && ".join(commands))
        (workspace.path / "b.txt").write_text("b\n")
        (workspace.path / "c.md").write_text("c\n")
        workspace.commit("Add b")
        assert workspace.check_git_commit_message_contains("Add b").ok
    assert sorted(p.name for p in outside.iterdir()) == ["included"]


def test_a_git_folder_that_leads_outside_is_refused(temp_root: Path, tmp_path: Path, outside: Path) -> None:
    """A `.git` symlink, or a `gitdir:` file, would make the engine's git write into another repository."""
    elsewhere = outside / "repo"
    elsewhere.mkdir()
    git(elsewhere, "init", "-q", "-b", "main")
    before = git(elsewhere, "count-objects").stdout
    for how in ("symlink", "gitfile"):
        with Workspace.create(tmp_path, None) as workspace:
            if how == "symlink":
                (workspace.path / ".git").symlink_to(elsewhere / ".git")
            else:
                (workspace.path / ".git").write_text(f"gitdir: {elsewhere / '.git'}\n")
            (workspace.path / "b.txt").write_text("b\n")
            with pytest.raises(WorkspaceError, match=r"`\.git` .*outside the workspace"):
                workspace.commit("Add b")
    assert git(elsewhere, "count-objects").stdout == before
    assert git(elsewhere, "rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode != 0


def test_core_worktree_cannot_point_the_engines_git_elsewhere(
    temp_root: Path, tmp_path: Path, outside: Path, shells: ShellRegistry
) -> None:
    (outside / "secret.txt").write_text("not the workspace's\n")
    spec = m.Repo(init=True, branch=None, dir=None, files=(m.RepoFile("a.txt", b"a\n", POS),), pos=POS)
    with Workspace.create(tmp_path, spec) as workspace:
        run_cmd(workspace, shells, f"git config core.worktree {outside}")
        (workspace.path / "b.txt").write_text("b\n")
        workspace.commit("Add b")
        files = git(workspace.path, "ls-files").stdout.split()
    assert files == ["a.txt", "b.txt"]


@pytest.mark.skipif(not landlock.available(), reason="this kernel has no Landlock")
def test_the_engines_git_itself_runs_confined(tmp_path: Path, outside: Path) -> None:
    """Should some config still run a program, it may not write outside the workspace: a `.git/objects`
    that is a symlink to another folder is written by nothing but git, and git is confined."""
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    objects = ws / ".git" / "objects"
    (outside / "objects").mkdir()
    for sub in objects.iterdir():
        sub.rename(outside / "objects" / sub.name)
    objects.rmdir()
    objects.symlink_to(outside / "objects")
    (ws / "a.txt").write_text("a\n")
    done = git(ws, "add", "a.txt", check=False)
    assert done.returncode != 0
    assert not any(p.is_file() for p in (outside / "objects").rglob("*"))
