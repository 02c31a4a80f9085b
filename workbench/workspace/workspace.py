"""The workspace: a fresh folder per run where the agent's tools and the user's edits happen.

It is created from the scenario's ``repo`` section (``init`` with real git and a
fixed identity and date, ``branch``, ``dir`` copied from the scenario folder,
``files`` as text or bytes), confined (no path a scenario names leads out of it),
and removed after the run unless ``--keep`` or a failure asks to keep it.
"""

from __future__ import annotations

import fnmatch
import json
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from workbench.scenario import model as m
from workbench.scenario.diagnostics import Pos, ScenarioError
from workbench.scenario.paths import resolve_inside

from .git import GitError, git, is_repo

Snapshot = Mapping[str, tuple[int, int]]


class WorkspaceError(RuntimeError):
    """A path escape, a failed patch, a failed git command: fails the scenario, writes nothing."""


@dataclass(frozen=True)
class Check:
    ok: bool
    message: str


def confine(root: Path, rel: str, what: str, *, base_name: str = "the workspace") -> Path:
    """``rel`` under ``root``, following symlinks; an absolute path or an escape raises WorkspaceError."""
    if not rel or "\x00" in rel:
        raise WorkspaceError(f"{what}: `{rel}` is not a usable path")
    pure = PurePosixPath(rel)
    if pure.is_absolute():
        raise WorkspaceError(f"{what}: `{rel}` is absolute; paths must be relative to {base_name}")
    real_root = root.resolve()
    target = (real_root / pure).resolve()
    if target != real_root and real_root not in target.parents:
        raise WorkspaceError(f"{what}: `{rel}` leads outside {base_name}")
    return target


class Workspace:
    def __init__(self, path: Path, *, owned: bool, keep: bool = False) -> None:
        self.path = path
        self._owned = owned
        self._keep = keep
        self._closed = False

    # ------------------------------------------------------------------ life

    @classmethod
    def create(cls, scenario_dir: Path, repo: m.Repo | None, keep: bool = False) -> Workspace:
        path = Path(tempfile.mkdtemp(prefix="wb-ws-")).resolve()
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
        if repo.dir:
            try:
                source = resolve_inside(scenario_dir, repo.dir, repo.pos or Pos(""), "`repo.dir`")
            except ScenarioError as exc:
                raise WorkspaceError(str(exc.diagnostics[0].message)) from None
            shutil.copytree(source, self.path, dirs_exist_ok=True, symlinks=True)
        for file in repo.files:
            target = self.resolve(file.path, what="`repo.files` path")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(file.contents)
        if repo.init:
            try:
                if not is_repo(self.path):
                    git(self.path, "init", "-q", "-b", repo.branch or "main")
                elif repo.branch:
                    git(self.path, "checkout", "-q", "-B", repo.branch)
                git(self.path, "add", "-A")
                git(self.path, "commit", "-q", "--allow-empty", "-m", "Initial commit")
            except GitError as exc:
                raise WorkspaceError(str(exc)) from None

    def keep_for_failure(self) -> None:
        self._keep = True

    def close(self) -> Path | None:
        """Remove the folder unless it is to be kept; return the kept path. Idempotent."""
        if self._closed:
            return self.path if self._keep and self._owned else None
        self._closed = True
        if not self._owned:
            return None
        if self._keep:
            return self.path
        shutil.rmtree(self.path, ignore_errors=True)
        return None

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ paths

    def resolve(self, rel: str, what: str = "path") -> Path:
        return confine(self.path, rel, what)

    @staticmethod
    def resolve_scenario_path(scenario_dir: Path, rel: str, what: str) -> Path:
        return confine(scenario_dir, rel, what, base_name="the scenario folder")

    # ------------------------------------------------------------------ changes

    def snapshot(self) -> Snapshot:
        """Size and mtime of every file outside ``.git``: cheap enough to take after every step."""
        out: dict[str, tuple[int, int]] = {}
        root = str(self.path)
        for path in self.path.rglob("*"):
            rel = str(path)[len(root) + 1 :]
            if rel.split("/", 1)[0] in (".git", ".workbench"):  # git's own files; the mock agent's shell logs
                continue
            try:
                st = path.lstat()
            except OSError:
                continue
            if not path.is_dir():
                out[rel] = (st.st_size, st.st_mtime_ns)
        return out

    @staticmethod
    def changed_files(before: Snapshot, after: Snapshot) -> list[dict[str, str]]:
        changes = [{"path": p, "change": "added"} for p in after.keys() - before.keys()]
        changes += [{"path": p, "change": "deleted"} for p in before.keys() - after.keys()]
        changes += [
            {"path": p, "change": "modified"} for p in after.keys() & before.keys() if after[p] != before[p]
        ]
        return sorted(changes, key=lambda c: c["path"])

    def apply_patch(self, patch: Path) -> None:
        """Apply a unified diff with `git apply` (also outside a repository)."""
        if not patch.is_file():
            raise WorkspaceError(f"patch `{patch}` not found")
        try:
            git(self.path, "apply", "--whitespace=nowarn", str(patch.resolve()))
        except GitError as exc:
            raise WorkspaceError(f"patch `{patch.name}` does not apply: {exc}") from None

    def commit(self, message: str) -> None:
        try:
            if not is_repo(self.path):
                git(self.path, "init", "-q", "-b", "main")
            git(self.path, "add", "-A")
            git(self.path, "commit", "-q", "--allow-empty", "-m", message)
        except GitError as exc:
            raise WorkspaceError(str(exc)) from None

    # ------------------------------------------------------------------ checks

    def check_fs_exists(self, rel: str) -> Check:
        try:
            ok = self.resolve(rel, "fs.exists").exists()
        except WorkspaceError as exc:
            return Check(False, str(exc))
        return Check(ok, f"`{rel}` {'exists' if ok else 'does not exist'}")

    def check_fs_not_exists(self, rel: str) -> Check:
        try:
            exists = self.resolve(rel, "fs.notExists").exists()
        except WorkspaceError as exc:
            return Check(False, str(exc))
        return Check(not exists, f"`{rel}` {'exists' if exists else 'does not exist'}")

    def check_json_file(self, rel: str, pointer: str, equals: Any) -> Check:
        try:
            path = self.resolve(rel, "json.file path")
            value = json_pointer(json.loads(path.read_text(encoding="utf-8")), pointer)
        except (WorkspaceError, OSError, ValueError, LookupError) as exc:
            return Check(False, f"`{rel}` {pointer}: {exc}")
        ok = value == equals
        return Check(
            ok,
            f"`{rel}` {pointer} is {json.dumps(value)}" + ("" if ok else f", expected {json.dumps(equals)}"),
        )

    def check_git_commit_message_contains(self, text: str) -> Check:
        done = git(self.path, "log", "-1", "--format=%B", check=False)
        if done.returncode != 0:
            return Check(False, f"no commit to check for {text!r}: {done.stderr.strip()}")
        message = done.stdout.strip()
        return Check(text in message, f"the last commit message {message!r} contains {text!r}")

    def check_artifacts(self, patterns: Iterable[str]) -> Check:
        files = [p for p in self.snapshot()]
        missing = [pat for pat in patterns if not any(_glob_match(f, pat) for f in files)]
        if missing:
            return Check(False, "no file matches " + ", ".join(f"`{p}`" for p in missing))
        return Check(True, "every artifact pattern matches")


def _glob_match(path: str, pattern: str) -> bool:
    """Glob relative to the workspace root, with `**/` for zero or more folders.

    A pattern without a slash matches at the top level only; one with a slash (and no `**`)
    matches exactly that many path segments from the root.
    """
    if "**" in pattern:
        # `**/` is either nothing or `*/` (fnmatch's `*` crosses `/`); expand every combination
        variants = {pattern}
        while any("**/" in v for v in variants):
            variants = {w for v in variants for w in (v.replace("**/", "*/", 1), v.replace("**/", "", 1))}
        return any(fnmatch.fnmatchcase(path, v) for v in variants)
    if "/" in pattern:
        pure, pure_pattern = PurePosixPath(path), PurePosixPath(pattern)
        return len(pure.parts) == len(pure_pattern.parts) and pure.match(pattern)
    return "/" not in path and fnmatch.fnmatch(path, pattern)


def json_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901: ``/a/0/b``; ``~1`` is `/`, ``~0`` is `~`."""
    if pointer in ("", "/"):
        return document if pointer == "" else document.get("") if isinstance(document, dict) else document
    value = document
    for raw in pointer.lstrip("/").split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list):
            if not token.isdigit() or int(token) >= len(value):
                raise LookupError(f"no item {token!r} in a list of {len(value)}")
            value = value[int(token)]
        elif isinstance(value, dict):
            if token not in value:
                raise LookupError(f"no key {token!r}")
            value = value[token]
        else:
            raise LookupError(f"cannot look up {token!r} in {json.dumps(value)}")
    return value
