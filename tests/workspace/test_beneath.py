"""Writes cannot be raced out of the workspace: a folder swapped for a symlink after the check is refused."""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from pathlib import Path

import pytest

from workbench.agent.tools import ShellRegistry, execute_tool, perform_edit
from workbench.workspace import Workspace, WorkspaceError
from workbench.workspace.beneath import kernel_confines, open_beneath, read_beneath, write_beneath


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "d").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return folder


def test_writes_and_reads_stay_beneath(root: Path, tmp_path: Path) -> None:
    write_beneath(root, "a/b/c.txt", b"hi")
    assert (root / "a/b/c.txt").read_bytes() == b"hi"
    write_beneath(root, "a/b/c.txt", b"!", append=True)
    assert read_beneath(root, "a/b/c.txt") == b"hi!"
    assert oct((root / "a/b/c.txt").stat().st_mode & 0o777) == oct(0o666 & ~_umask())


@pytest.mark.parametrize("rel", ["out/x.txt", "out-file", "d/../../outside/x", "/etc/passwd", ""])
def test_escapes_are_refused(root: Path, tmp_path: Path, rel: str) -> None:
    (root / "out").symlink_to(tmp_path / "outside", target_is_directory=True)
    (root / "out-file").symlink_to(tmp_path / "outside" / "x")
    with pytest.raises(WorkspaceError):
        write_beneath(root, rel, b"x")
    assert list((tmp_path / "outside").iterdir()) == []


def test_a_symlink_that_stays_inside_is_followed_where_the_kernel_can_check_it(root: Path) -> None:
    (root / "inner").symlink_to("d", target_is_directory=True)  # relative: absolute links never stay beneath
    (root / "d" / "sub").mkdir()
    (root / "d" / "sub" / "up").symlink_to("../../d", target_is_directory=True)
    if kernel_confines():
        write_beneath(root, "inner/x.txt", b"x")
        assert (root / "d/x.txt").read_bytes() == b"x"
        write_beneath(root, "d/sub/up/y.txt", b"y")
        assert (root / "d/y.txt").read_bytes() == b"y"
    else:
        with pytest.raises(WorkspaceError):
            write_beneath(root, "inner/x.txt", b"x")


def test_open_beneath_makes_folders_one_at_a_time(root: Path) -> None:
    fd = open_beneath(root, "new/deeper/f", os.O_WRONLY | os.O_CREAT, make_parents=True)
    os.close(fd)
    assert (root / "new/deeper/f").is_file()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


ATTEMPTS = 3000
NOTEBOOK = (
    '{"cells": [{"cell_type": "code", "metadata": {}, "source": "", "outputs": [], "execution_count": null}], '
    '"metadata": {}, "nbformat": 4, "nbformat_minor": 4}'
)
_libc = ctypes.CDLL(None, use_errno=True)


def exchange(a: Path, b: Path) -> None:
    """Swap two names atomically (renameat2 RENAME_EXCHANGE): `a` always exists, as one or the other."""
    at_fdcwd, rename_exchange = -100, 2
    if _libc.renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def test_a_racing_symlink_swap_never_lets_a_write_out(root: Path, tmp_path: Path) -> None:
    """A thread keeps swapping `d` between a real folder and a symlink to `outside` while tools write `d/x`."""
    outside = tmp_path / "outside"
    stop = threading.Event()
    swaps = 0

    (root / "evil").symlink_to(outside, target_is_directory=True)

    def swapper() -> None:
        nonlocal swaps
        while not stop.is_set():
            exchange(root / "d", root / "evil")  # `d` is a folder, then a symlink out, then a folder...
            swaps += 1

    (root / "d" / "n.ipynb").write_text(NOTEBOOK)
    ws = Workspace.attach(root)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # let the swapper run between the check and the write as often as it can
    shells = ShellRegistry()
    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    wrote = 0
    try:
        for i in range(ATTEMPTS):
            tool = ("writeFile", "appendFile", "editFile", "notebookEdit")[i % 4]
            args = {"path": "d/x.txt", "content": "x\n"}
            if tool == "editFile":
                args = {"path": "d/new.txt", "old_string": "", "new_string": "y\n"}
            elif tool == "notebookEdit":
                args = {"notebook_path": "d/n.ipynb", "cell_id": "0", "new_source": "print(1)"}
            outcome = execute_tool(tool, args, ws, shells=shells)
            wrote += outcome.status == "ok"
            if i % 4 == 0:
                perform_edit(ws, "d/edit.txt", 1, 1 if i else 0)  # one line replaced: the file stays small
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)
        shells.close()
    assert sorted(p.name for p in outside.iterdir()) == []  # zero escapes
    assert swaps > 0 and wrote > 0  # the race really ran, and writes inside still work
