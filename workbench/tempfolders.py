"""Temporary folders named after the process that owns them, so that a later run can sweep a killed one's.

A run's workspaces (``wb-ws-``) and its commands' scratch folders (``wb-tmp-``)
are removed when the run ends, but SIGKILL (or a crash of the machine) ends a
process before any cleanup. Each such folder is therefore made as
``wb-<kind>-p<pid>s<start>-<random>``: the owner's pid and start time (against
pid reuse). :func:`sweep` removes every folder in the temp folder whose owner
no longer runs; ``workbench run`` calls it when it starts (and says what it
removed) and when it ends (what its own killed children left). A folder kept on
purpose (a failed run's workspace) is renamed without the owner part
(:func:`disown`), so no sweep ever touches it.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

_OWNED = re.compile(r"^wb-([a-z]+)-p(\d+)s(\d+)-")


def _start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (Linux); None when it does not run or is unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    try:
        return int(stat.rpartition(")")[2].split()[19])
    except (IndexError, ValueError):
        return None


def owner_tag() -> str:
    """Of fixed width (pids up to 7 digits, start times up to 12): a workspace path is on agents' screens,
    masked in goldens, and a TUI lays out around its length (Claude Code's banner), so every run's must
    be as long as every other's."""
    pid = os.getpid()
    return f"p{pid:07d}s{_start_time(pid) or 0:012d}"


def make(kind: str, folder: str | None = None) -> Path:
    """A fresh private folder ``wb-<kind>-p<pid>s<start>-*`` in ``folder`` (default: the temp folder);
    the caller removes it."""
    return Path(tempfile.mkdtemp(prefix=f"wb-{kind}-{owner_tag()}-", dir=folder))


def disown(folder: Path) -> Path:
    """Rename an owned folder to ``wb-<kind>-<random>`` (kept on purpose: no sweep removes it); its new path."""
    match = _OWNED.match(folder.name)
    if match is None:
        return folder
    target = folder.with_name(f"wb-{match.group(1)}-{folder.name[match.end() :]}")
    try:
        folder.rename(target)
    except OSError:
        return folder
    return target


def _owner_gone(pid: int, start: int) -> bool:
    if not Path("/proc").is_dir():  # no way to tell a reused pid: only a pid that does not exist is gone
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False
    now = _start_time(pid)
    return now is None or (start != 0 and now != start)


def sweep(*roots: Path) -> list[Path]:
    """Remove the owned folders in ``roots`` (default: the temp folder) whose owner no longer runs; what
    was removed."""
    removed: list[Path] = []
    for folder in dict.fromkeys(roots or (Path(tempfile.gettempdir()),)):
        removed += _sweep_one(folder)
    return removed


def _sweep_one(folder: Path) -> list[Path]:
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _OWNED.match(entry.name)
        if match is None or not _owner_gone(int(match.group(2)), int(match.group(3))):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            continue  # another user's, or being removed by someone else
        removed.append(Path(entry.path))
    return removed
