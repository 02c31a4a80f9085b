"""Real git with a fixed identity and date, so commits (and their hashes) are deterministic.

No user or system configuration reaches it (``GIT_CONFIG_GLOBAL=/dev/null``,
``GIT_CONFIG_NOSYSTEM``), commits are never signed and run no hooks, and git
never looks above the folder it runs in for a repository
(``GIT_CEILING_DIRECTORIES``): a workspace that is not a repository must not
borrow one from a parent folder, or `git apply` would skip "outside" paths and
`git log` would read someone else's history.

The workspace's own ``.git`` is the scenario's to shape (a ``repo.dir`` may ship
one, a ``runCmd`` may run ``git config``), so the engine's git treats it as
hostile: every setting that makes git run a program (filters, fsmonitor, hooks,
pagers, diff and merge drivers, credential helpers, ``core.sshCommand``, gpg...)
is overridden on the command line's level (``GIT_CONFIG_COUNT``), the work tree
is the workspace whatever ``core.worktree`` says, a ``.git`` that leads outside
the workspace is refused, and git itself runs confined to the folder it works in
(:mod:`workbench.workspace.sandbox`), so a way around these rules still cannot
write elsewhere.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from .sandbox import Sandbox

FIXED_DATE = "2024-01-01T00:00:00Z"
IDENTITY = {
    "GIT_AUTHOR_NAME": "Workbench",
    "GIT_AUTHOR_EMAIL": "workbench@example.invalid",
    "GIT_COMMITTER_NAME": "Workbench",
    "GIT_COMMITTER_EMAIL": "workbench@example.invalid",
    "GIT_AUTHOR_DATE": FIXED_DATE,
    "GIT_COMMITTER_DATE": FIXED_DATE,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
}
# settings that would make a commit differ from machine to machine, or run code
COMMIT_OPTIONS = ("-c", "commit.gpgsign=false", "-c", f"core.hooksPath={os.devnull}")

ALWAYS = {
    "core.fsmonitor": "false",
    "core.hooksPath": os.devnull,
    "core.pager": "cat",
    "core.editor": ":",
    "sequence.editor": ":",
    "core.sshCommand": "",
    "core.askPass": "",
    "core.gitProxy": "",
    "credential.helper": "",
    "diff.external": "",
    "commit.gpgSign": "false",
    "tag.gpgSign": "false",
    "log.showSignature": "false",
    "gc.auto": "0",
    "maintenance.auto": "false",
    "submodule.recurse": "false",
    "protocol.allow": "never",
}
"""Overrides for every run: settings that run a program, or start background work, whatever their value."""

RUNS_A_PROGRAM = frozenset(
    {
        "clean",
        "smudge",
        "process",
        "textconv",
        "command",
        "cmd",
        "driver",
        "helper",
        "program",
        "external",
        "sshcommand",
        "askpass",
        "gitproxy",
        "proxycommand",
        "pager",
        "editor",
        "uploadpack",
        "receivepack",
        "tunnel",
        "alternaterefscommand",
        "packobjectshook",
        "defaultkeycommand",
    }
)
"""The last part of config names whose value is a command (``filter.<driver>.clean``, ``diff.<driver>.textconv``,
``credential.<url>.helper``...): driver names are the scenario's choice, so the repository's config is listed
and each such name is overridden with an empty value, which git reads as "none"."""


class GitError(RuntimeError):
    """A git command failed; the message carries git's own words."""


def git_env(cwd: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("GIT_CONFIG_", "GIT_EXTERNAL"))
    }
    env.update(IDENTITY)
    env["GIT_CEILING_DIRECTORIES"] = str(Path(cwd).resolve().parent)
    for name in (
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_CONFIG_PARAMETERS",
    ):  # e.g. from a git hook
        env.pop(name, None)
    return env


def own_git_dir(cwd: Path) -> Path | None:
    """``cwd/.git`` when it is the repository's folder inside ``cwd``; None when there is none.

    A ``.git`` symlink or ``gitdir:`` file leading outside would have the engine's git write into
    another repository: GitError."""
    dot = Path(cwd) / ".git"
    if not os.path.lexists(dot):
        return None
    root = Path(cwd).resolve()
    if dot.is_symlink() or not dot.is_dir():
        target = dot.resolve()
        if dot.is_file() and not dot.is_symlink():
            text = dot.read_text(encoding="utf-8", errors="replace").strip()
            target = (root / text.removeprefix("gitdir:").strip()).resolve()
        if root not in target.parents:
            raise GitError(
                f"`.git` in {cwd} leads outside the workspace (to {target}); the engine's git works only on "
                "a repository inside the workspace"
            )
        return target
    return dot


def _config_overrides(cwd: Path, env: dict[str, str]) -> dict[str, str]:
    """:data:`ALWAYS`, plus an empty value for each program-running name the repository's config sets."""
    overrides = dict(ALWAYS)
    listed = _confined_run(cwd, ["git", "config", "--list", "--name-only", "-z"], env)
    for name in listed.stdout.split("\0"):
        section, _, last = name.rpartition(".")
        if last.lower() in RUNS_A_PROGRAM or section.lower() == "pager":
            overrides[name] = ""
        elif last.lower() == "required" and section.lower().startswith("filter."):
            overrides[name] = "false"
    return overrides


def _confined_run(cwd: Path, argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """git writes only in ``cwd`` (and ``/dev``): whatever a repository's config manages to run is confined too."""
    with Sandbox([Path(cwd), Path("/dev")]) as sandbox:
        return sandbox.run(
            lambda: subprocess.run(
                sandbox.wrap(argv), cwd=cwd, env=env, capture_output=True, text=True, check=False
            )
        )


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git args`` in ``cwd``; raise GitError (with git's stderr) when it fails and ``check``."""
    return _git(cwd, args, _overridden_env(cwd), check)


def _overridden_env(cwd: Path) -> dict[str, str]:
    """The environment of a git command in ``cwd``: its repository, and the config overrides (which
    list the repository's config: one more git process)."""
    env = git_env(cwd)
    git_dir = own_git_dir(cwd)
    if git_dir is not None:
        env["GIT_DIR"], env["GIT_WORK_TREE"] = str(git_dir), str(Path(cwd).resolve())
    overrides = _config_overrides(cwd, env) if git_dir is not None else ALWAYS
    env["GIT_CONFIG_COUNT"] = str(len(overrides))
    for index, (name, value) in enumerate(overrides.items()):
        env[f"GIT_CONFIG_KEY_{index}"], env[f"GIT_CONFIG_VALUE_{index}"] = name, value
    return env


def _git(
    cwd: Path, args: Sequence[str], env: dict[str, str], check: bool
) -> subprocess.CompletedProcess[str]:
    done = _confined_run(cwd, ["git", *args], env)
    if check and done.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed: {(done.stderr or done.stdout).strip()}")
    return done


def commit_all(cwd: Path, message: str) -> None:
    """`git add -A` and commit (an empty commit too) with the fixed identity and date. The config is
    listed once for both: `git add` does not change it."""
    env = _overridden_env(cwd)
    _git(cwd, ["add", "-A"], env, check=True)
    _git(
        cwd, [*COMMIT_OPTIONS, "commit", "-q", "--allow-empty", "--no-verify", "-m", message], env, check=True
    )


def is_repo(path: Path) -> bool:
    return (path / ".git").exists()
