"""Real git with a fixed identity and date, so commits (and their hashes) are deterministic."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "Workbench",
    "GIT_AUTHOR_EMAIL": "workbench@example.invalid",
    "GIT_COMMITTER_NAME": "Workbench",
    "GIT_COMMITTER_EMAIL": "workbench@example.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
}


class GitError(RuntimeError):
    pass


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **IDENTITY}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed: {(done.stderr or done.stdout).strip()}")
    return done


def is_repo(path: Path) -> bool:
    return (path / ".git").exists()
