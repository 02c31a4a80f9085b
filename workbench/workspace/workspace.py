"""The workspace: a fresh folder per run where the agent's tools and the user's edits happen.

It is created from the scenario's ``repo`` section: ``dir`` copied from the
scenario folder, ``files`` written (their contents are bytes: text or base64 in
the scenario), then, with ``init``, a real git repository on ``branch`` (default
``main``) with everything in an initial commit made with a fixed identity and
date, so two runs of a scenario have the same commit hashes. ``branch`` without
``init`` does nothing (there is no repository to put it in).

Every path the scenario names is confined (see :mod:`.confine`): ``repo.dir``
to the scenario folder, with no symlink inside it pointing out, and
``repo.files`` to the workspace. Paths are checked before anything is written,
and a failed creation removes the folder, so an escape writes nothing anywhere.

The folder is removed when the run ends, unless ``keep`` (``--keep``) or
:meth:`Workspace.keep_for_failure` asks to keep it; :meth:`Workspace.close`
then returns the path so the runner can print where it is.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from workbench import tempfolders
from workbench.scenario import model as m
from workbench.scenario.diagnostics import Pos
from workbench.scenario.outcomes import CheckOutcome

from .beneath import read_beneath, write_beneath
from .confine import (
    WorkspaceError,
    confine,
    confine_read,
    confine_scenario_path,
    outside_links,
    special_files,
)
from .git import GitError, commit_all, git, is_repo
from .globs import GlobError, glob_match
from .jsonpointer import json_pointer

Snapshot = Mapping[str, tuple[int, ...]]
"""Opaque to callers: relative path -> (size, mtime_ns, inode) of every file outside `.git`."""


class Workspace:
    """One run's folder. Own it with :meth:`create`; borrow an existing one with :meth:`attach`."""

    def __init__(self, path: Path, *, owned: bool, keep: bool = False) -> None:
        self.path = path
        self._owned = owned
        self._keep = keep
        self._closed = False

    def __repr__(self) -> str:
        return f"Workspace({str(self.path)!r}, owned={self._owned}, keep={self._keep})"

    # ------------------------------------------------------------------ life

    @classmethod
    def create(cls, scenario_dir: Path, repo: m.Repo | None, keep: bool = False) -> Workspace:
        """A fresh temp folder (``wb-ws-*``, see :mod:`workbench.tempfolders`) seeded from ``repo``; WorkspaceError if that fails."""
        path = tempfolders.make("ws").resolve()
        workspace = cls(path, owned=True, keep=keep)
        try:
            workspace._populate(scenario_dir, repo)
        except BaseException:
            shutil.rmtree(path, ignore_errors=True)
            raise
        return workspace

    @classmethod
    def attach(cls, path: Path) -> Workspace:
        """An existing folder (the mock agent's view of the engine's workspace); never removed."""
        return cls(path.resolve(), owned=False)

    def _populate(self, scenario_dir: Path, repo: m.Repo | None) -> None:
        if repo is None:
            return
        source = self._seed_folder(scenario_dir, repo.dir, repo.dir_pos) if repo.dir else None
        for file in repo.files:  # refuse absolute and `..` paths before anything is written
            confine(self.path, file.path, "`repo.files` path")
        if source is not None:
            shutil.copytree(source, self.path, dirs_exist_ok=True, symlinks=True)
        for file in repo.files:
            target = self.resolve(file.path, "`repo.files` path")  # again: the copy may hold symlinks
            self.write(target, file.contents)
        if repo.init:
            try:
                if not is_repo(self.path):
                    git(self.path, "init", "-q", "-b", repo.branch or "main")
                elif repo.branch:
                    git(self.path, "checkout", "-q", "-B", repo.branch)
                if repo.commit:
                    commit_all(self.path, "Initial commit")
            except GitError as exc:
                raise WorkspaceError(str(exc)) from None

    @staticmethod
    def _seed_folder(scenario_dir: Path, rel: str, pos: Pos | None) -> Path:
        """The seed folder, checked again now that it is copied (it may have changed since the scenario was
        read); what is wrong with it is placed at ``pos``, the `dir` field."""
        source = confine_scenario_path(scenario_dir, rel, "`repo.dir`", pos)
        if not source.exists():
            raise WorkspaceError(f"`repo.dir`: `{rel}` not found (looked in {scenario_dir.resolve()})", pos)
        if not source.is_dir():
            raise WorkspaceError(
                f"`repo.dir`: `{rel}` is not a folder (looked in {scenario_dir.resolve()})", pos
            )
        escapes = outside_links(source)
        if escapes:
            raise WorkspaceError(
                f"`repo.dir`: `{rel}` holds symlinks that lead outside it: {', '.join(escapes)}; "
                "a seed folder may only link inside itself",
                pos,
            )
        if specials := special_files(source):
            raise WorkspaceError(
                f"`repo.dir`: `{rel}` holds what is no file: {', '.join(specials)}; a seed folder holds files, "
                "folders and symlinks",
                pos,
            )
        return source

    def keep_for_failure(self) -> None:
        """Keep the folder when the run ends (a failure wants it inspected)."""
        self._keep = True

    @property
    def kept(self) -> bool:
        return self._keep and self._owned

    def close(self) -> Path | None:
        """Remove the folder unless it is to be kept; return the kept path, else None. Idempotent."""
        if not self._closed:
            self._closed = True
            if self._owned and not self._keep:
                shutil.rmtree(self.path, ignore_errors=True)
            elif self._owned:
                self.path = tempfolders.disown(self.path)  # kept on purpose: no later sweep removes it
        return self.path if self.kept else None

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ paths

    def resolve(self, rel: str, what: str = "path") -> Path:
        """``rel`` inside the workspace (symlinks followed); WorkspaceError naming ``what`` if it escapes."""
        return confine(self.path, rel, what)

    def resolve_read(self, rel: str, what: str = "path") -> Path:
        """A path to read: relative ones inside the workspace, absolute ones anywhere (the format's rule)."""
        return confine_read(self.path, rel, what)

    def read_any_text(self, target: Path, encoding: str = "utf-8", errors: str = "strict") -> str:
        """The text of a path :meth:`resolve_read` returned: beneath the workspace's descriptor when it is
        inside, a plain read when the scenario named an absolute path outside it."""
        rel = os.path.relpath(target, self.path)
        if rel != ".." and not rel.startswith("../"):
            return self.read_text(target, encoding, errors)
        return target.read_bytes().decode(encoding, errors)

    def write(self, target: Path, data: bytes | str, *, append: bool = False) -> None:
        """Write (or append) to ``target``, a path :meth:`resolve` returned, creating its folders.

        The write cannot be raced out of the workspace: it opens the path relative
        to the workspace's descriptor and refuses a symlink swapped in since the
        check (see :mod:`.beneath`).
        """
        raw = data.encode("utf-8") if isinstance(data, str) else data
        write_beneath(self.path, self._relative(target), raw, append=append)

    def read_bytes(self, target: Path) -> bytes:
        """The bytes of ``target`` (a path :meth:`resolve` returned), read without leaving the workspace."""
        return read_beneath(self.path, self._relative(target))

    def read_text(self, target: Path, encoding: str = "utf-8", errors: str = "strict") -> str:
        return self.read_bytes(target).decode(encoding, errors)

    def _relative(self, target: Path) -> str:
        rel = os.path.relpath(target, self.path)
        if rel == ".." or rel.startswith("../") or os.path.isabs(rel):
            raise WorkspaceError(f"`{target}` is not inside the workspace")
        return rel

    @staticmethod
    def resolve_scenario_path(scenario_dir: Path, rel: str, what: str) -> Path:
        """A file the scenario ships (e.g. a patch), confined to the scenario folder."""
        return confine_scenario_path(scenario_dir, rel, what)

    # ------------------------------------------------------------------ changes

    def snapshot(self) -> Snapshot:
        """Size, mtime and inode of every file outside `.git`: cheap enough to take after every step."""
        out: dict[str, tuple[int, ...]] = {}
        _scan(str(self.path), "", out)
        return out

    @staticmethod
    def changed_files(before: Snapshot, after: Snapshot) -> list[dict[str, str]]:
        """``[{"path", "change": added|modified|deleted}]`` between two snapshots, sorted by path."""
        changes = [{"path": p, "change": "added"} for p in after.keys() - before.keys()]
        changes += [{"path": p, "change": "deleted"} for p in before.keys() - after.keys()]
        changes += [
            {"path": p, "change": "modified"} for p in after.keys() & before.keys() if after[p] != before[p]
        ]
        return sorted(changes, key=lambda c: c["path"])

    def apply_patch(self, patch: Path) -> None:
        """Apply a unified diff with `git apply` (a repository or not); all or nothing.

        git itself refuses paths outside the workspace and writes through symlinks.
        """
        if not patch.exists():
            raise WorkspaceError(f"patch `{patch}` not found")
        if not patch.is_file():
            kind = "a folder" if patch.is_dir() else "a named pipe" if patch.is_fifo() else "a device"
            raise WorkspaceError(
                f"patch `{patch}` is {kind}, not a file: a patch is a unified diff in a file"
            )
        try:  # the engine's git runs confined to the workspace too (where the kernel can)
            git(self.path, "apply", "--whitespace=nowarn", str(patch.resolve()))
        except GitError as exc:
            raise WorkspaceError(f"patch `{patch.name}` does not apply: {exc}") from None

    def commit(self, message: str) -> None:
        """`git add -A` and commit with the fixed identity and date (making a repository if needed)."""
        try:
            if not is_repo(self.path):
                git(self.path, "init", "-q", "-b", "main")
            commit_all(self.path, message)
        except GitError as exc:
            raise WorkspaceError(str(exc)) from None

    # ------------------------------------------------------------------ checks

    def check_fs_exists(self, rel: str) -> CheckOutcome:
        try:
            ok = self.resolve_read(rel, "fs.exists").exists()
        except WorkspaceError as exc:
            return CheckOutcome(False, str(exc))
        return CheckOutcome(ok, f"`{rel}` {'exists' if ok else 'does not exist'}")

    def check_fs_not_exists(self, rel: str) -> CheckOutcome:
        try:
            exists = self.resolve_read(rel, "fs.notExists").exists()
        except WorkspaceError as exc:
            return CheckOutcome(False, str(exc))
        return CheckOutcome(not exists, f"`{rel}` {'exists' if exists else 'does not exist'}")

    def check_json_file(self, rel: str, pointer: str, equals: Any) -> CheckOutcome:
        """The value at the RFC 6901 ``pointer`` in the JSON file ``rel`` equals ``equals``."""
        try:
            path = self.resolve_read(rel, "json.file path")
            value = json_pointer(json.loads(path.read_text(encoding="utf-8")), pointer)
        except (WorkspaceError, OSError, ValueError, LookupError) as exc:
            return CheckOutcome(False, f"`{rel}` {pointer or '(whole document)'}: {exc}")
        ok = json_equal(value, equals)
        shown = f"`{rel}` {pointer or '(whole document)'} is {json.dumps(value)}"
        return CheckOutcome(ok, shown if ok else f"{shown}, expected {json.dumps(equals)}")

    def check_git_commit_message_contains(self, text: str) -> CheckOutcome:
        """The message of HEAD contains ``text``."""
        if not is_repo(self.path):
            return CheckOutcome(
                False, f"no commit to look for {text!r} in: the workspace is not a git repository"
            )
        done = git(self.path, "log", "-1", "--format=%B", check=False)
        if done.returncode != 0:
            return CheckOutcome(False, f"no commit to look for {text!r} in: {done.stderr.strip()}")
        message = done.stdout.strip()
        found = text in message
        return CheckOutcome(
            found, f"the last commit message {message!r} {'contains' if found else 'lacks'} {text!r}"
        )

    def check_artifacts(self, patterns: Iterable[str]) -> CheckOutcome:
        """Every glob (relative to the workspace, `**` for any folders) matches at least one file."""
        patterns = list(patterns)
        files = list(self.snapshot())
        try:
            missing = [pat for pat in patterns if not any(glob_match(f, _clean(pat)) for f in files)]
        except GlobError as exc:
            return CheckOutcome(False, str(exc))
        if missing:
            return CheckOutcome(False, "no file matches " + ", ".join(f"`{p}`" for p in missing))
        return CheckOutcome(True, f"every artifact pattern matches ({', '.join(f'`{p}`' for p in patterns)})")


def _scan(folder: str, prefix: str, out: dict[str, tuple[int, ...]]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        rel = prefix + entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != ".git":
                    _scan(entry.path, rel + "/", out)
                continue
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        out[rel] = (st.st_size, st.st_mtime_ns, st.st_ino)


def _clean(pattern: str) -> str:
    """`./a/*.txt` is `a/*.txt`."""
    return str(PurePosixPath(pattern)) if pattern.startswith("./") else pattern


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 and 1.0 are the same number, but true is not 1 (as Python's `==` says)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)
