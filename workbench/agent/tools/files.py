"""File tools: `readFile`, `writeFile`, `appendFile`, `editFile` and `sed`.

Every path a tool writes is confined to the workspace before anything is
written; a path that escapes (``..``, an absolute path outside, a symlink out) is
an error that says why and touches nothing. ``readFile`` may read an absolute
path anywhere ("relative to the workspace unless prefixed with /"). Reads and writes then go through the workspace's descriptor
(:meth:`~workbench.workspace.Workspace.write`), so a symlink swapped in after
the check cannot lead them out. Text is UTF-8.

``readFile``'s ``offset`` is a 1-based line number and ``limit`` a line count,
as in Claude Code's Read tool. ``editFile`` replaces an exact string, which
must occur exactly once unless ``replace_all`` (an empty ``old_string``
creates a file that does not exist yet, as Claude Code's Edit does); the
legacy mock agent's ``Edit {path, text}`` appends. ``sed`` is the real GNU sed,
run with ``--sandbox`` so an expression cannot write files (``w``) or run
commands (``e``) outside the workspace.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

from workbench.scenario.vocabulary import ARGUMENTS
from workbench.workspace.landlock import default_writable
from workbench.workspace.sandbox import Sandbox

from .base import (
    Json,
    ToolContext,
    ToolError,
    ToolOutcome,
    arg,
    flag_arg,
    int_arg,
    path_arg,
    read_path_arg,
    text_arg,
)

_SED_TIMEOUT_S = 60


def read_file(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    rel, path = read_path_arg(args, ctx, "path", "file_path")  # an absolute path may be read anywhere
    if path.is_dir():
        raise ToolError(f"{rel} is a folder, not a file (use listDir)")
    if not path.is_file():
        raise ToolError(f"file not found: {rel}")
    encoding = str(arg(args, "encoding", default="utf-8"))
    try:
        text = ctx.workspace.read_any_text(path, encoding=encoding, errors="replace")
    except LookupError:
        raise ToolError(f"unknown `encoding` {encoding!r}") from None
    offset, limit = int_arg(args, "offset"), int_arg(args, "limit")
    if offset is not None or limit is not None:
        lines = text.splitlines(keepends=True)
        start = max(0, (offset or 1) - 1)
        end = len(lines) if limit is None else start + max(0, limit)
        text = "".join(lines[start:end])
    return ToolOutcome("ok", text, details={"lines": len(text.splitlines())})


def write_file(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    rel, path = path_arg(args, ctx, "path", "file_path")
    content = str(arg(args, "content", "text", default=""))
    if path.is_dir():
        raise ToolError(f"cannot write {rel}: it is a folder")
    existed = path.exists()
    ctx.workspace.write(path, content)
    verb = "Updated" if existed else "Created"
    return ToolOutcome("ok", f"{verb} {rel} ({len(content.encode())} bytes)")


def append_file(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    rel, path = path_arg(args, ctx, "path", "file_path")
    content = str(arg(args, "content", "text", default=""))
    ctx.workspace.write(path, content, append=True)
    return ToolOutcome("ok", f"Appended to {rel}")


#: the argument names of ``editFile``'s two strings, in every agent's spelling (the vocabulary's one table)
OLD_STRING = ARGUMENTS["old_string"]
NEW_STRING = ARGUMENTS["new_string"]


def appends(args: Mapping[str, Json]) -> bool:
    """Whether an ``editFile`` call is the legacy mock agent's ``Edit {path, text}``, which appends."""
    return arg(args, *OLD_STRING) is None and isinstance(arg(args, "text", "content"), str)


def edit_text(args: Mapping[str, Json], rel: str, current: str | None) -> tuple[str, ToolOutcome]:
    """The text ``editFile`` makes of a file's ``current`` text (None: no such file), and its outcome.

    Pure, so whoever holds the file (the workspace, an ACP client) applies the same
    rules: ``old_string`` occurs exactly once unless ``replace_all``, an empty one
    creates a file that is empty or absent, and replacing a string by itself is
    refused. ToolError says why an edit is refused.
    """
    old = arg(args, *OLD_STRING)
    new = str(arg(args, *NEW_STRING, default=""))
    if not isinstance(old, str):
        raise ToolError("needs `old_string`")
    if old == new:
        raise ToolError("`old_string` and `new_string` are the same: no change to make")
    if old == "":
        if current:
            raise ToolError(f"`old_string` is empty but {rel} is not: say what to replace")
        return new, ToolOutcome("ok", f"Created {rel}")
    if current is None:
        raise ToolError(f"file not found: {rel}")
    count = current.count(old)
    if count == 0:
        raise ToolError(f"`old_string` not found in {rel}")
    replace_all = flag_arg(args, "replace_all")
    if count > 1 and not replace_all:
        raise ToolError(f"`old_string` occurs {count} times in {rel}; give more context or set replace_all")
    done = count if replace_all else 1
    return current.replace(old, new, done), ToolOutcome(
        "ok", f"Updated {rel} ({done} replacement{'s' if done > 1 else ''})", details={"replacements": done}
    )


def edit_file(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    if appends(args):
        return append_file(args, ctx)
    rel, path = path_arg(args, ctx, "path", "file_path")
    if path.is_dir():
        raise ToolError(f"cannot edit {rel}: it is a folder")
    text, outcome = edit_text(args, rel, ctx.workspace.read_text(path) if path.exists() else None)
    ctx.workspace.write(path, text)
    return outcome


def sed(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    expression = text_arg(args, "expression", "script")
    _rel, path = path_arg(args, ctx, "path", "file_path")
    argv = [
        "sed",
        "--sandbox",  # GNU sed: no `w` file or `e` command, so the expression cannot reach outside
        *(["-n"] if flag_arg(args, "quiet", "silent", "-n") else []),
        *(["-E"] if flag_arg(args, "extended", "-E", "regexp_extended") else []),
        *(["-i"] if flag_arg(args, "inplace", "in_place", "-i") else []),
        "-e",
        expression,
        "--",
        os.path.relpath(path, ctx.workspace.path.resolve()),  # relative: sed's messages name no temp folder
    ]
    try:
        with Sandbox(default_writable(ctx.workspace.path, ctx.shells.scratch())) as sandbox:  # `-i` too
            done = sandbox.call(argv, cwd=ctx.workspace.path, timeout=_SED_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ToolError(f"sed took longer than {_SED_TIMEOUT_S} s") from None
    if done.returncode != 0:
        raise ToolError(done.stderr.strip() or f"sed exited {done.returncode}")
    return ToolOutcome("ok", done.stdout)
