"""Writing a file whole or not at all: goldens, reports and the app's saves all go through here."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path``: a temp file beside it, fsync, rename, fsync the folder.

    A reader never sees half a file, and a kill at any moment leaves either the old or
    the new one. An existing file keeps its permissions; a new one gets the usual
    ``0666 & ~umask`` (0644 under umask 022), not the 0600 of a private temp file.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _new_file_mode() if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def _new_file_mode() -> int:
    """The mode ``open()`` would give a new file: 0666 less the process's umask.

    Linux shows the umask in /proc; elsewhere it is read by setting it, which is
    not thread-safe, so only as the fallback.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            umask = next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        umask = os.umask(0o022)
        os.umask(umask)
    return 0o666 & ~umask
