"""A seed folder (`repo.dir`) that cannot seed a workspace is placed at its `dir` field, file:line:col:
refused while the scenario is read when the folder itself is wrong (a file, a named pipe, a symlink loop),
and failed there when what it holds is (a named pipe, a link that loops), never on the scenario's line 1
nor as an internal error."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_process import workbench
from tests.conftest import write

SEEDED = "name: seeded\nrepo:\n  init: true\n  dir: seed\ntimeline:\n  - assistant: [[10, hi]]\n"
DIR_FIELD = "s.yaml:4:8"  # the value of `dir:`


def failures(tmp_path: Path) -> tuple[int, list[str]]:
    done = workbench("run", "s.yaml", cwd=tmp_path, timeout=60)
    assert "Traceback" not in done.stdout + done.stderr and "internal error" not in done.stdout, done.stdout
    return done.returncode, [line for line in done.stdout.splitlines() if line.startswith("s.yaml:")]


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda seed: seed.write_text("a file\n"), "`repo.dir` `seed` is not a folder"),
        (lambda seed: os.mkfifo(seed), "`repo.dir` `seed` is not a folder"),
        (lambda seed: seed.symlink_to(seed), "`repo.dir` `seed` is a symlink loop"),
    ],
    ids=["a file", "a named pipe", "a symlink loop"],
)
def test_a_seed_folder_that_is_no_folder_is_refused_at_its_field(
    make: Callable[[Path], object], says: str, tmp_path: Path
) -> None:
    write(tmp_path, "s.yaml", SEEDED)
    make(tmp_path / "seed")
    code, lines = failures(tmp_path)
    assert code == 2
    assert len(lines) == 1 and lines[0].startswith(f"{DIR_FIELD}: validation: {says}"), lines


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda seed: os.mkfifo(seed / "pipe"), "holds what is no file: pipe (a named pipe)"),
        (
            lambda seed: (seed / "l").symlink_to("l"),
            "holds symlinks that lead outside it: l (a symlink loop)",
        ),
    ],
    ids=["a named pipe", "a symlink loop"],
)
def test_a_seed_folder_holding_what_cannot_be_copied_fails_at_its_field(
    make: Callable[[Path], object], says: str, tmp_path: Path
) -> None:
    write(tmp_path, "s.yaml", SEEDED)
    (tmp_path / "seed").mkdir()
    make(tmp_path / "seed")
    code, lines = failures(tmp_path)
    assert code == 1
    assert len(lines) == 1 and lines[0].startswith(f"{DIR_FIELD}: process: `repo.dir`: `seed` {says}"), lines
