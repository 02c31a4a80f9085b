"""Path confinement: no path a scenario names leads out of the workspace or the scenario folder.

A path is refused when it is empty, absolute, climbs out with `..`, or resolves
(following symlinks, including ones the scenario or the agent created) to a
place outside its root. The check happens before anything is read or written,
so an escape fails the scenario and touches nothing.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from workbench.scenario.diagnostics import Pos, ScenarioError
from workbench.scenario.paths import OUTSIDE_WHY, resolve_inside


class WorkspaceError(RuntimeError):
    """A path escape, a failed patch, a failed git command: fails the scenario, writes nothing.

    ``pos`` is the scenario field it is about, when one is (a seed folder's `repo.dir`), so that the
    failure is placed there and not on the scenario's first line."""

    def __init__(self, message: str, pos: Pos | None = None) -> None:
        super().__init__(message)
        self.pos = pos


def confine(root: Path, rel: str, what: str, *, base_name: str = "the workspace") -> Path:
    """``rel`` under ``root``, following symlinks; an escape raises WorkspaceError.

    A path is relative to ``root`` unless it starts with ``/`` (the format's rule): an absolute
    path is accepted when it lies inside ``root``, and refused with the reason otherwise (what
    may *read* anywhere uses :func:`confine_read`)."""
    allowed = f"paths must be relative to {base_name} and stay inside it"
    if not isinstance(rel, str):
        raise WorkspaceError(f"{what}: {rel!r} is not a path; {allowed}")
    if not rel or "\x00" in rel:
        raise WorkspaceError(f"{what}: `{rel}` is not a usable path (empty or with a NUL byte); {allowed}")
    pure = PurePosixPath(rel)
    if pure.is_absolute():
        real_root = root.resolve()
        try:
            target = Path(rel).resolve()
        except (OSError, RuntimeError) as exc:
            raise WorkspaceError(f"{what}: `{rel}` cannot be resolved ({exc})") from None
        if target == real_root or real_root in target.parents:
            return target
        raise WorkspaceError(f"{what}: `{rel}` is outside {base_name}, and {OUTSIDE_WHY}")
    real_root = root.resolve()
    try:
        target = (real_root / pure).resolve()
    except OSError as exc:  # a link that changed while it was read, a loop: not a usable path either
        raise WorkspaceError(f"{what}: `{rel}` cannot be resolved ({exc.strerror}); {allowed}") from None
    if target != real_root and real_root not in target.parents:
        how = "through `..`" if ".." in pure.parts else "through a symlink"
        raise WorkspaceError(f"{what}: `{rel}` leads outside {base_name} ({how}); {allowed}")
    return target


def confine_read(root: Path, rel: str, what: str) -> Path:
    """A path to *read*: an absolute one is taken as it is (reading outside the workspace is allowed,
    as the format says); a relative one is confined to ``root`` like any other."""
    if isinstance(rel, str) and rel.startswith("/") and "\x00" not in rel:
        return Path(rel)
    return confine(root, rel, what)


def confine_scenario_path(scenario_dir: Path, rel: str, what: str, pos: Pos | None = None) -> Path:
    """A file the scenario ships (a patch, a seed folder), confined to the scenario folder."""
    try:
        return resolve_inside(scenario_dir, rel, pos or Pos(""), what, must_exist=False)
    except ScenarioError as exc:
        raise WorkspaceError(exc.diagnostics[0].message, pos) from None


def outside_links(folder: Path) -> list[str]:
    """Symlinks under ``folder`` whose targets are outside it or that loop (relative names, a loop
    said to be one), without following any."""
    root = folder.resolve()
    found = []
    for dirpath, dirnames, filenames in os.walk(root):  # os.walk does not follow symlinked folders
        for name in (*dirnames, *filenames):
            path = Path(dirpath) / name
            if path.is_symlink():
                try:
                    target = path.resolve()
                except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a loop, 3.13 OSError
                    found.append(f"{path.relative_to(root)} (a symlink loop)")
                    continue
                if target != root and root not in target.parents:
                    found.append(str(path.relative_to(root)))
    return sorted(found)


def special_files(folder: Path) -> list[str]:
    """What under ``folder`` is neither a file, a folder nor a symlink (relative names, each with what it is):
    a named pipe, a socket, a device. A copy cannot take them (a named pipe would be read until a writer
    came)."""
    root = folder.resolve()
    found = []
    for dirpath, _dirnames, filenames in os.walk(root):  # the folders: os.walk lists what is in them
        for name in filenames:
            path = Path(dirpath) / name
            mode = path.lstat().st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
                kind = (
                    "a named pipe"
                    if stat.S_ISFIFO(mode)
                    else "a socket"
                    if stat.S_ISSOCK(mode)
                    else "a device"
                )
                found.append(f"{path.relative_to(root)} ({kind})")
    return sorted(found)
