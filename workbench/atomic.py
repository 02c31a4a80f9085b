"""Writing a file whole or not at all: goldens, reports and the app's saves all go through here.

:func:`write_group_atomic` does the same for files that belong together (a golden and its style
sidecar): a reader that goes through :func:`read_group` sees all of them old or all new, even
after a kill between two renames.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path``: a temp file beside it, fsync, rename, fsync the folder.

    A reader never sees half a file, and a kill at any moment leaves either the old or
    the new one. An existing file keeps its permissions; a new one gets the usual
    ``0666 & ~umask`` (0644 under umask 022), not the 0600 of a private temp file.

    What is there and is no regular file (``/dev/stdout``, ``/dev/null``, a named pipe a CI step
    reads) is written into, not replaced: a rename would put a file where the device or the pipe
    was (as root, for every program on the machine) and the reader would get nothing.
    """
    path = Path(path)
    if _is_special(path):
        with open(path, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _write_temp(path, text)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def _is_special(path: Path) -> bool:
    """Whether ``path`` leads (through any symlinks) to something that is neither a file nor a folder."""
    try:
        mode = path.stat().st_mode
    except OSError:  # not there (or not reachable): a new file is made, or the write says why not
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_temp(path: Path, text: str, suffix: str = ".tmp", durable: bool = True) -> Path:
    """``text`` in a temp file beside ``path`` (synced if ``durable``), with the mode ``path`` has (or a new
    file would get)."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, _new_file_mode() if mode is None else mode)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def _fsync_folder(folder: Path) -> None:
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


PENDING_SUFFIX = ".pending"
GROUP_TEMP_SUFFIX = ".group.tmp"


def write_group_atomic(files: Mapping[Path, str | None], *, durable: bool = True) -> None:
    """Write (a text) or remove (None) files of one folder so that :func:`read_group` sees all old or all new.

    Every new text goes to a synced temp file first; then a journal naming the renames and removals is
    written atomically (the commit point), the renames and removals are done, and the journal is removed.
    A kill before the journal leaves the old files (and hidden temp files, removed on the next
    :func:`settle`); a kill after it leaves a journal that the next reader or writer carries out.

    ``durable`` (the default) also has each file and the folder synced to the disk, so a power cut keeps
    them too; a run's own captures, written again by the next run, skip it (five syncs of about 2 ms each
    per screenshot: a tenth of a 30 s scenario's run at ``--speed max``).
    """
    paths = [Path(p) for p in files]
    folder = paths[0].parent
    if any(p.parent != folder for p in paths):
        raise ValueError("write_group_atomic writes files of one folder")
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder, fcntl.LOCK_EX):
        _finish_pending(folder)
        temps: dict[str, str] = {}
        try:
            for path, text in files.items():
                if text is not None:
                    temps[_write_temp(Path(path), text, GROUP_TEMP_SUFFIX, durable).name] = Path(path).name
            journal = folder / f".{paths[0].name}{PENDING_SUFFIX}"
            removals = [Path(p).name for p, text in files.items() if text is None]
            plan = json.dumps({"replace": temps, "remove": removals})
            os.replace(_write_temp(journal, plan, GROUP_TEMP_SUFFIX, durable), journal)
        except BaseException:
            for name in temps:
                (folder / name).unlink(missing_ok=True)
            raise
        _carry_out(folder, journal, durable)


def read_group(paths: Sequence[Path]) -> list[str | None]:
    """The texts of files written together by :func:`write_group_atomic` (None for a missing one)."""
    paths = [Path(p) for p in paths]
    folder = paths[0].parent
    if not folder.is_dir():
        return [None] * len(paths)
    settle(folder)
    with _locked(folder, fcntl.LOCK_SH):
        return [_read_or_none(p) for p in paths]


def settle(folder: Path) -> None:
    """Carry out what a killed :func:`write_group_atomic` committed to in ``folder``; drop what it had not."""
    if not Path(folder).is_dir():
        return
    with _locked(Path(folder), fcntl.LOCK_EX):
        _finish_pending(Path(folder))


def _finish_pending(folder: Path) -> None:
    for journal in folder.glob(f".*{PENDING_SUFFIX}"):
        _carry_out(folder, journal)
    for temp in folder.glob(f".*{GROUP_TEMP_SUFFIX}"):  # written before a kill, never committed to
        temp.unlink(missing_ok=True)


def _carry_out(folder: Path, journal: Path, durable: bool = True) -> None:
    try:
        plan = json.loads(journal.read_text(encoding="utf-8"))
        replace, remove = dict(plan["replace"]), list(plan["remove"])
    except (OSError, ValueError, KeyError, TypeError):
        journal.unlink(missing_ok=True)  # not ours, or unreadable: nothing to carry out
        return
    for temp, name in replace.items():
        if (folder / temp).exists():
            os.replace(folder / temp, folder / name)
    for name in remove:
        (folder / name).unlink(missing_ok=True)
    if durable:
        _fsync_folder(folder)
    journal.unlink(missing_ok=True)
    if durable:
        _fsync_folder(folder)


class NotAFileError(OSError):
    """What :func:`read_group` found where a file belongs: a folder, a named pipe, a device."""


def _read_or_none(path: Path) -> str | None:
    """The file's text, None if there is none. Opened without waiting (a named pipe, as a committed golden
    may be, or its symlink to one, waited for a writer forever, deaf to Ctrl-C inside the event loop), and
    refused (:class:`NotAFileError`) unless it is a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    try:
        mode = os.fstat(fd).st_mode
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode) else "a device"
        raise NotAFileError(f"{path} is {kind}, not a file")
    with open(fd, "rb") as stream:
        return stream.read().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@contextlib.contextmanager
def _locked(folder: Path, how: int) -> Iterator[None]:
    """An advisory lock on the folder itself (no lock file is left among the user's files)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, how)
        yield
    finally:
        os.close(fd)


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
