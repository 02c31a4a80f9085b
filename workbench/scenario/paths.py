"""Path confinement: a path a scenario names never leads outside its folder.

Scenario files come from anywhere (a colleague's branch, a corpus); the paths they
name are resolved against the scenario folder (files the scenario ships, such as
patches and media) or the run's workspace (files the agent and user touch). An
absolute path, a `..` that climbs out, or a symlink that points out is an error
at load time, before anything is read or written.
"""

from __future__ import annotations

import posixpath
from pathlib import Path, PurePosixPath

from .diagnostics import Pos, ScenarioError

OUTSIDE_WHY = (
    "only reading a file may leave it; writes, edits, searches and commands stay inside, "
    "so that runs stay isolated and repeatable"
)
"""Why a tool refuses an absolute path outside the workspace (the tool's error and the loader's warning)."""


def check_relative(path: str, pos: Pos, what: str, root: str = "the scenario folder") -> str:
    """Reject absolute paths and `..` escapes; return the normalised relative path."""
    if not isinstance(path, str) or not path.strip():
        raise ScenarioError.at(pos, f"{what} must be a non-empty relative path")
    if "\x00" in path:
        raise ScenarioError.at(pos, f"{what} `{path}` contains a NUL byte")
    if PurePosixPath(path).is_absolute() or (len(path) > 1 and path[1] == ":"):
        raise ScenarioError.at(pos, f"{what} `{path}` is absolute; paths must be relative to {root}")
    norm = posixpath.normpath(path)
    if norm == ".." or norm.startswith("../"):
        raise ScenarioError.at(pos, f"{what} `{path}` escapes {root} (`..`)")
    return norm


def resolve_inside(base: Path, path: str, pos: Pos, what: str, *, must_exist: bool = True) -> Path:
    """Resolve ``path`` under ``base``, following symlinks, and insist it stays there."""
    rel = check_relative(path, pos, what)
    root = base.resolve()
    try:
        target = (root / rel).resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a loop, 3.13 OSError
        raise ScenarioError.at(pos, f"{what} `{path}` is a symlink loop") from None
    if target != root and root not in target.parents:
        raise ScenarioError.at(pos, f"{what} `{path}` leads outside the scenario folder (through a symlink)")
    if must_exist and not _exists(target, pos, what):
        raise ScenarioError.at(pos, f"{what} `{path}` not found (looked in {root})")
    return target


def _exists(target: Path, pos: Pos, what: str) -> bool:
    """``target.exists()``, where a name the file system refuses (too long, a loop) is the scenario's error."""
    try:
        return target.exists()
    except OSError as exc:
        raise ScenarioError.at(pos, f"{what} cannot be looked up: {exc.strerror or exc}") from None
