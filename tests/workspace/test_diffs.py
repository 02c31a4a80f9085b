"""Each step's file diffs for the trace (workbench/workspace/diffs.py), read from a real folder."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from workbench.workspace import Workspace
from workbench.workspace.diffs import MAX_BYTES, MAX_LINES, NOT_TEXT, TOO_LARGE, FileTexts


def _changes(root: Path, texts: FileTexts, step: Callable[[], object]) -> dict[str, str]:
    """What ``step`` does to the files under ``root``, as the runner sees it between two snapshots."""
    workspace = Workspace.attach(root)
    before = workspace.snapshot()
    step()
    return texts.diffs(Workspace.changed_files(before, workspace.snapshot()))


def test_added_modified_and_deleted_files_are_unified_diffs(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("one\ntwo\n")
    (tmp_path / "gone.txt").write_text("bye\n")
    texts = FileTexts(tmp_path, ["keep.txt", "gone.txt"])

    def step() -> None:
        (tmp_path / "keep.txt").write_text("one\nTWO\n")
        (tmp_path / "gone.txt").unlink()
        (tmp_path / "new").mkdir()
        (tmp_path / "new" / "n.py").write_text("print(1)")

    diffs = _changes(tmp_path, texts, step)
    assert diffs["keep.txt"] == "--- a/keep.txt\n+++ b/keep.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
    assert diffs["gone.txt"] == "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    assert diffs["new/n.py"] == (
        "--- /dev/null\n+++ b/new/n.py\n@@ -0,0 +1 @@\n+print(1)\n\\ No newline at end of file\n"
    )
    # the texts moved on: the next change is diffed against what this step left
    diffs = _changes(tmp_path, texts, lambda: (tmp_path / "new" / "n.py").write_text("print(2)\n"))
    assert "-print(1)\n\\ No newline at end of file\n+print(2)\n" in diffs["new/n.py"]


def test_binary_large_and_long_changes_are_named_not_dumped(tmp_path: Path) -> None:
    texts = FileTexts(tmp_path, [])

    def step() -> None:
        (tmp_path / "blob.bin").write_bytes(b"\xff\xfe\x00binary")
        (tmp_path / "big.txt").write_text("x" * (MAX_BYTES + 10))
        (tmp_path / "long.txt").write_text("".join(f"{n}\n" for n in range(MAX_LINES * 2)))

    diffs = _changes(tmp_path, texts, step)
    assert diffs["blob.bin"] == NOT_TEXT and diffs["big.txt"] == TOO_LARGE
    lines = diffs["long.txt"].splitlines()
    assert len(lines) == MAX_LINES + 1 and lines[-1].endswith("more diff lines left out")


def test_a_fifo_or_a_symlink_out_never_blocks_or_leaks(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("outside\n")
    texts = FileTexts(root, [])

    def step() -> None:
        os.mkfifo(root / "pipe")
        (root / "link.txt").symlink_to(secret)

    diffs = _changes(root, texts, step)
    assert "outside" not in "".join(diffs.values())
    assert diffs.get("pipe", NOT_TEXT) in (NOT_TEXT, "")
