"""What a step did to the files: a unified diff of each file it changed, for the trace.

The workspace snapshot (:meth:`Workspace.snapshot`) says which files a step
added, modified or deleted; this keeps the text of the files last seen, so each
change can be shown as a diff in the app's step inspector and the HTML report.
The texts are read once at the start and then only for the files a step
changed, so a step that changes nothing costs nothing.

A file that is not UTF-8 text, or larger than :data:`MAX_BYTES`, is named with
a one-line note instead of a diff; a diff longer than :data:`MAX_LINES` is cut
with a note saying how many lines were left out. Reads go through
:func:`open_beneath`, so a symlink planted by the program never leads outside.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from .beneath import open_beneath
from .confine import WorkspaceError

MAX_BYTES = 256 * 1024  # larger files are named, not diffed
MAX_LINES = 400  # of one file's diff
MAX_FILES = 2000  # files read at the start; a workspace larger than this is diffed from its first change on

NOT_TEXT = "(binary or not UTF-8: no text diff)"
TOO_LARGE = f"(larger than {MAX_BYTES // 1024} KiB: no text diff)"


class FileTexts:
    """The last seen text of the workspace's files, and the diffs of what changed since."""

    def __init__(self, root: Path, paths: Iterable[str]) -> None:
        self.root = root
        self._texts: dict[str, str | None] = {}
        for n, path in enumerate(sorted(paths)):
            if n >= MAX_FILES:
                break
            self._texts[path] = self._read(path)

    def _read(self, path: str) -> str | None:
        """The file's text; None when it is absent, not text, or too large (the note says which)."""
        try:  # non-blocking and regular files only: a FIFO the program made must not hang the run
            fd = open_beneath(self.root, path, os.O_RDONLY | os.O_NONBLOCK)
        except (OSError, WorkspaceError):
            return None
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return NOT_TEXT
            try:
                data = f.read(MAX_BYTES + 1)
            except OSError:
                return None
        if len(data) > MAX_BYTES:
            return TOO_LARGE
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return NOT_TEXT

    def diffs(self, changes: Iterable[Mapping[str, str]]) -> dict[str, str]:
        """``{path: unified diff}`` for each change of :meth:`Workspace.changed_files`; texts move on."""
        out: dict[str, str] = {}
        for change in changes:
            path = change["path"]
            before = self._texts.get(path) if change["change"] != "added" else None
            after = self._read(path) if change["change"] != "deleted" else None
            self._texts[path] = after
            if after is None and change["change"] != "deleted":
                self._texts.pop(path, None)
            out[path] = unified(path, before, after)
        return out


def unified(path: str, before: str | None, after: str | None) -> str:
    """The unified diff from ``before`` to ``after`` (None: absent), or the note that stands for it."""
    for note in (NOT_TEXT, TOO_LARGE):
        if note in (before, after):
            return note
    old = (before or "").splitlines(keepends=True)
    new = (after or "").splitlines(keepends=True)
    import difflib  # only when a step changed a text file

    lines = list(difflib.unified_diff(old, new, "/dev/null" if before is None else f"a/{path}",
                                      "/dev/null" if after is None else f"b/{path}", n=3))  # fmt: skip
    lines = [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]
    text = "".join(lines)
    rows = text.splitlines(keepends=True)
    if len(rows) > MAX_LINES:
        text = "".join(rows[:MAX_LINES]) + f"... {len(rows) - MAX_LINES} more diff lines left out\n"
    return text
