"""Search tools: `grep` (ripgrep's options, in Python), `listDir`, and `find`/`Glob`.

Output is deterministic: paths relative to the workspace, sorted by path (not by
modification time, which would differ from run to run). ``.git`` is never
searched, symlinked folders are not entered, and a symlinked file that points
outside the workspace is not read.

``grep`` follows Claude Code's Grep tool (ripgrep underneath): ``output_mode``
``files_with_matches`` (default), ``content`` or ``count``; ``-i``, ``-n``,
``-A``/``-B``/``-C``; ``glob`` (a pattern without `/` matches file names at any
depth, `{a,b}` and `**` work) and ``type`` (``py``, ``js``, ``rust``...);
``head_limit`` keeps the first lines of the output; ``multiline`` lets a match
span lines (`.` matches a newline). In ``content`` mode a matching line is
``path:N:text``, a context line ``path-N-text``, and ``--`` separates groups, as
ripgrep prints them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from workbench.scenario.user_regex import PatternTooSlow, UserRegex
from workbench.workspace import Workspace
from workbench.workspace.globs import glob_match, name_match

from .base import Json, ToolContext, ToolError, ToolOutcome, arg, flag_arg, int_arg, path_arg, text_arg

NO_MATCHES = "No matches found"
TYPES = {
    "py": ("*.py", "*.pyi"), "python": ("*.py", "*.pyi"), "js": ("*.js", "*.mjs", "*.cjs", "*.jsx"),
    "ts": ("*.ts", "*.tsx", "*.mts", "*.cts"), "rust": ("*.rs",), "rs": ("*.rs",), "go": ("*.go",),
    "java": ("*.java",), "c": ("*.c", "*.h"), "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"),
    "md": ("*.md", "*.markdown"), "markdown": ("*.md", "*.markdown"), "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"), "toml": ("*.toml",), "txt": ("*.txt",), "sh": ("*.sh", "*.bash"),
    "html": ("*.html", "*.htm"), "css": ("*.css",), "ruby": ("*.rb",), "rb": ("*.rb",),
}  # fmt: skip


def walk_files(root: Path, ws: Workspace) -> Iterator[Path]:
    """Files under ``root`` (or ``root`` itself), sorted; skips `.git` and links that lead out."""
    if not root.is_dir():
        if root.is_file():
            yield root
        return
    inside = ws.path.resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if d != ".git" and not os.path.islink(os.path.join(dirpath, d))
        )
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.is_symlink():
                target = path.resolve()
                if inside not in target.parents or not target.is_file():
                    continue
            yield path


def _rel(path: Path, ws: Workspace) -> str:
    return str(path.relative_to(ws.path))


# --------------------------------------------------------------------------- grep


def _wanted(rel: str, name: str, glob: str | None, ftype: str | None) -> bool:
    if glob and not (name_match(name, glob) if "/" not in glob else glob_match(rel, glob.removeprefix("./"))):
        return False
    return not ftype or any(name_match(name, g) for g in TYPES.get(ftype, (f"*.{ftype}",)))


def _matched_lines(text: str, regex: UserRegex, multiline: bool) -> list[int]:
    """Indexes of the lines a match touches (every line a multiline match spans)."""
    if not multiline:
        return [i for i, line in enumerate(text.splitlines()) if regex.search(line)]
    hit: set[int] = set()
    for found in regex.finditer(text):
        first = text.count("\n", 0, found.start())
        last = first + text.count("\n", found.start(), max(found.start(), found.end() - 1))
        hit.update(range(first, last + 1))
    return sorted(hit)


def _content_lines(
    rel: str, lines: list[str], hits: list[int], before: int, after: int, numbered: bool
) -> list[list[str]]:
    """Groups of output lines for one file: matches with `:`, context with `-`."""
    hit_set = set(hits)
    shown = sorted({j for i in hits for j in range(max(0, i - before), min(len(lines), i + after + 1))})
    groups: list[list[str]] = []
    previous = -2
    for j in shown:
        if j != previous + 1:
            groups.append([])
        sep = ":" if j in hit_set else "-"
        groups[-1].append(f"{rel}{sep}{j + 1}{sep}{lines[j]}" if numbered else f"{rel}{sep}{lines[j]}")
        previous = j
    return groups


def grep(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    pattern = text_arg(args, "pattern")
    multiline = flag_arg(args, "multiline", "-U")
    flags = re.MULTILINE | (re.IGNORECASE if flag_arg(args, "-i", "i", "ignore_case") else 0)
    try:
        re.compile(pattern, flags | (re.DOTALL if multiline else 0))
    except re.error as exc:
        raise ToolError(f"invalid pattern: {exc}") from None
    regex = UserRegex(pattern, "the `pattern`", None, flags | (re.DOTALL if multiline else 0))
    rel_root, root = path_arg(args, ctx, "path", default=".")
    if not root.exists():
        raise ToolError(f"no such file or folder: {rel_root}")
    glob = str(arg(args, "glob")) if arg(args, "glob") else None
    ftype = str(arg(args, "type")) if arg(args, "type") else None
    mode = str(arg(args, "output_mode", default="files_with_matches"))
    if mode not in ("files_with_matches", "content", "count"):
        raise ToolError(f"output_mode `{mode}` is not one of files_with_matches, content, count")
    numbered = flag_arg(args, "-n", "n", "line_numbers")
    context = int_arg(args, "-C", "C", "context", default=0) or 0
    before = int_arg(args, "-B", "B", default=context) or 0
    after = int_arg(args, "-A", "A", default=context) or 0
    out: list[str] = []
    files = 0
    for path in walk_files(root, ctx.workspace):
        rel = _rel(path, ctx.workspace)
        if not _wanted(rel, path.name, glob, ftype):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary or unreadable: ripgrep skips it too
        try:  # a file the program under test wrote: a pattern too slow for it fails the call
            hits = _matched_lines(text, regex, multiline)
        except PatternTooSlow as exc:
            raise ToolError(f"{exc} (in {rel})") from None
        if not hits:
            continue
        files += 1
        if mode == "files_with_matches":
            out.append(rel)
        elif mode == "count":
            out.append(f"{rel}:{len(hits)}")
        else:
            for group in _content_lines(rel, text.splitlines(), hits, before, after, numbered):
                if out and (before or after):
                    out.append("--")
                out.extend(group)
    head = int_arg(args, "head_limit")
    if head is not None and head > 0:
        out = out[:head]
    return ToolOutcome(
        "ok", "\n".join(out) if out else NO_MATCHES, details={"matches": len(out), "files": files}
    )


# --------------------------------------------------------------------------- listDir, find


def _listed(entry: str, pattern: str | None, ignore: list[str]) -> bool:
    path = entry.rstrip("/")
    name = path.rsplit("/", 1)[-1]
    if any(name_match(name, g) for g in ignore):
        return False
    if not pattern:
        return True
    return glob_match(path, pattern) if "/" in pattern else name_match(name, pattern)


def list_dir(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    rel, root = path_arg(args, ctx, "path", default=".")
    if not root.is_dir():
        raise ToolError(f"not a folder: {rel}")
    pattern = str(arg(args, "pattern")) if arg(args, "pattern") else None
    ignore = arg(args, "ignore", default=[])
    ignore = [ignore] if isinstance(ignore, str) else ignore
    if not isinstance(ignore, list):
        raise ToolError("`ignore` must be a list of globs")
    if flag_arg(args, "recursive"):
        entries = [str(p.relative_to(root)) for p in walk_files(root, ctx.workspace)]
    else:
        entries = sorted(p.name + ("/" if p.is_dir() else "") for p in root.iterdir() if p.name != ".git")
    listed = [e for e in entries if _listed(e, pattern, [str(g) for g in ignore])]
    return ToolOutcome("ok", "\n".join(listed), details={"count": len(listed)})


def find(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    """`find -name` (a file-name pattern at any depth) or Claude Code's `Glob` (a path pattern)."""
    rel_root, root = path_arg(args, ctx, "path", default=".")
    if not root.is_dir():
        raise ToolError(f"not a folder: {rel_root}")
    name = arg(args, "name")
    path_glob = None if name is not None else arg(args, "pattern")
    kind = str(arg(args, "type", default="")).lower()[:1]  # f/file, d/directory
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        folders = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]  # walk skips links
        entries = ([] if kind == "f" else folders) + ([] if kind == "d" else filenames)
        for entry in entries:
            path = Path(dirpath) / entry
            if path_glob is not None:
                ok = glob_match(str(path.relative_to(root)), str(path_glob).removeprefix("./"))
            else:
                ok = name_match(entry, str(name if name is not None else "*"))
            if ok:
                found.append(_rel(path, ctx.workspace))
    return ToolOutcome("ok", "\n".join(sorted(found)), details={"count": len(found)})
