"""`agentEdits`: a real edit with the scripted line counts, checked with a real diff.

The edit is deterministic: remove the file's last ``lines_removed`` lines, then
append ``lines_added`` lines ``// edited by agent (line k)``. The numbers ``k``
continue after the highest one already in the file, so no appended line equals
a line that was there (not even after earlier edits of the same file), and a
line diff must count exactly the scripted numbers. A missing file is created
when lines are added. A missing final newline is completed; that is not a
changed line.
"""

from __future__ import annotations

import re

from workbench.workspace import Workspace, WorkspaceError

MARK = "// edited by agent (line {})"
_MARK = re.compile(r"// edited by agent \(line (\d+)\)")


def perform_edit(ws: Workspace, rel: str, lines_added: int, lines_removed: int) -> str | None:
    """Do the edit; None when a line diff agrees with the counts, else what went wrong."""
    if lines_added < 0 or lines_removed < 0:
        return f"line counts must not be negative (+{lines_added} -{lines_removed})"
    try:
        path = ws.resolve(rel, what="`agentEdits.path`")
    except WorkspaceError as exc:
        return str(exc)
    if path.is_dir():
        return f"`{rel}` is a folder"
    try:
        before = ws.read_text(path).splitlines() if path.exists() else []
    except (OSError, UnicodeDecodeError, WorkspaceError) as exc:
        return f"cannot read `{rel}` as text: {exc}"
    if lines_removed > len(before):
        return f"cannot remove {lines_removed} lines: the file has {len(before)}"
    if not path.exists() and lines_added == 0:
        return None  # nothing to do, and nothing to create
    start = max((int(m.group(1)) for line in before if (m := _MARK.search(line))), default=0) + 1
    after = before[: len(before) - lines_removed] + [MARK.format(start + k) for k in range(lines_added)]
    try:
        ws.write(path, "".join(line + "\n" for line in after))
        added, removed = line_diff(before, ws.read_text(path).splitlines())
    except (OSError, WorkspaceError) as exc:  # e.g. a symlink swapped in since the check
        return f"cannot edit `{rel}`: {exc}"
    if (added, removed) != (lines_added, lines_removed):
        return f"the edit added {added} and removed {removed} lines, expected +{lines_added} -{lines_removed}"
    return None


def line_diff(before: list[str], after: list[str]) -> tuple[int, int]:
    """Lines added and removed between two versions, by difflib's matcher (no junk heuristics)."""
    added = removed = 0
    import difflib  # here, not at the import: the mock agent's modules are imported before every run

    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed
