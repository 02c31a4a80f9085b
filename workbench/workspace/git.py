"""Real git with a fixed identity and date, so commits (and their hashes) are deterministic.

No user or system configuration reaches it (``GIT_CONFIG_GLOBAL=/dev/null``,
``GIT_CONFIG_NOSYSTEM``), commits are never signed and run no hooks, and git
never looks above the folder it runs in for a repository
(``GIT_CEILING_DIRECTORIES``): a workspace that is not a repository must not
borrow one from a parent folder, or `git apply` would skip "outside" paths and
`git log` would read someone else's history.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

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
}
# settings that would make a commit differ from machine to machine, or run code
COMMIT_OPTIONS = ("-c", "commit.gpgsign=false", "-c", f"core.hooksPath={os.devnull}")


class GitError(RuntimeError):
    """A git command failed; the message carries git's own words."""


def git_env(cwd: Path) -> dict[str, str]:
    env = {**os.environ, **IDENTITY}
    env["GIT_CEILING_DIRECTORIES"] = str(Path(cwd).resolve().parent)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):  # e.g. when run from a git hook
        env.pop(name, None)
    return env


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git args`` in ``cwd``; raise GitError (with git's stderr) when it fails and ``check``."""
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=git_env(cwd), capture_output=True, text=True, check=False
    )
    if check and done.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed: {(done.stderr or done.stdout).strip()}")
    return done


def commit_all(cwd: Path, message: str) -> None:
    """`git add -A` and commit (an empty commit too) with the fixed identity and date."""
    git(cwd, "add", "-A")
    git(cwd, *COMMIT_OPTIONS, "commit", "-q", "--allow-empty", "--no-verify", "-m", message)


def is_repo(path: Path) -> bool:
    return (path / ".git").exists()
