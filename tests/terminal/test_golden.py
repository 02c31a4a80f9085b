"""Goldens: paths of docs/design.md §6, the CI and update flows, and readable diffs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.terminal import GoldenStore, Shot, compare_text

from .helpers import ours


def shot_of(text: str, width: int = 20, height: int = 3) -> Shot:
    return ours(text, width=width, height=height).snapshot()


def store(tmp_path: Path, *, ci: bool = False, update: bool = False) -> GoldenStore:
    return GoldenStore(
        tmp_path / "screenshots", "demo", "80x24", ci=ci, update=update, actual_dir=tmp_path / "target"
    )


def test_a_missing_golden_is_written_outside_ci_and_reported_new(tmp_path: Path) -> None:
    outcome = store(tmp_path).check("start", shot_of("$ \x1b[32mhello\x1b[0m"))
    assert outcome.status == "new"
    assert outcome.golden_path == tmp_path / "screenshots/demo/80x24/start.golden"
    assert outcome.actual_path == tmp_path / "target/demo/80x24/screenshots/start.golden"
    assert outcome.golden_path.read_text() == shot_of("$ \x1b[32mhello\x1b[0m").text()
    sidecar = json.loads((tmp_path / "screenshots/demo/80x24/start.style.json").read_text())
    assert sidecar["rows"][0] == [{"col": 2, "len": 5, "fg": "green", "bg": "default"}]
    assert outcome.actual_path.read_text() == outcome.golden_path.read_text()
    assert (tmp_path / "target/demo/80x24/screenshots/start.style.json").exists()


def test_a_golden_without_colours_has_no_sidecar(tmp_path: Path) -> None:
    outcome = store(tmp_path).check("plain", shot_of("no colour"))
    assert outcome.status == "new"
    assert not outcome.golden_path.with_name("plain.style.json").exists()


def test_in_ci_a_missing_golden_is_a_failure_and_nothing_is_written(tmp_path: Path) -> None:
    outcome = store(tmp_path, ci=True, update=True).check("start", shot_of("x"))
    assert outcome.status == "missing" and outcome.failed
    assert not outcome.golden_path.exists()
    assert outcome.actual_path.exists()  # the actual capture is always written


def test_match_ignores_trailing_spaces(tmp_path: Path) -> None:
    golden = tmp_path / "screenshots/demo/80x24/s.golden"
    golden.parent.mkdir(parents=True)
    golden.write_text("$ ls\nfile\n")  # trimmed rows, as an editor might save them (a trailing newline too)
    outcome = store(tmp_path, ci=True).check("s", shot_of("$ ls\r\nfile"))
    assert outcome.status == "match" and outcome.diff is None


def test_mismatch_keeps_the_golden_and_shows_a_diff(tmp_path: Path) -> None:
    first = store(tmp_path).check("s", shot_of("$ ls\r\nREADME.md setup.py"))
    before = first.golden_path.read_text()
    outcome = store(tmp_path).check("s", shot_of("$ ls\r\nREADME.md setup.cfg"))
    assert outcome.status == "mismatch" and outcome.failed
    assert first.golden_path.read_text() == before
    assert outcome.diff is not None and "2 |README.md setup.py" in outcome.diff
    assert outcome.actual_path.read_text().startswith("$ ls")
    assert "setup.cfg" in outcome.actual_path.read_text()


def test_update_rewrites_a_mismatching_golden_but_never_in_ci(tmp_path: Path) -> None:
    store(tmp_path).check("s", shot_of("old"))
    in_ci = store(tmp_path, ci=True, update=True).check("s", shot_of("new"))
    assert in_ci.status == "mismatch"
    outcome = store(tmp_path, update=True).check("s", shot_of("new"))
    assert outcome.status == "updated" and outcome.diff is not None
    assert outcome.golden_path.read_text().startswith("new")
    assert store(tmp_path, ci=True).check("s", shot_of("new")).status == "match"


def test_writes_are_atomic_and_leave_no_temp_files(tmp_path: Path) -> None:
    for i in range(5):
        store(tmp_path, update=True).check("s", shot_of(f"v{i}"))
    leftovers = [p for p in tmp_path.rglob("*") if p.name.startswith(".") or p.suffix == ".tmp"]
    assert leftovers == []


def test_accept_writes_the_golden_and_drops_a_stale_sidecar(tmp_path: Path) -> None:
    store(tmp_path).check("s", shot_of("\x1b[31mred"))
    path = store(tmp_path, ci=True).accept("s", shot_of("plain"))
    assert path.read_text().startswith("plain")
    assert not path.with_name("s.style.json").exists()


def test_the_default_actual_root_is_target_tmp_workbench(tmp_path: Path) -> None:
    golden = GoldenStore(tmp_path, "sc", "p", ci=True, update=False)
    assert golden.actual_path("l") == Path("target/tmp/workbench/sc/p/screenshots/l.golden")


def test_compare_text_diff_shows_rows_and_changed_columns() -> None:
    expected = "\n".join(["header", "same", "$ ls", "README.md setup.py", "same again", "tail"])
    actual = "\n".join(["header", "same", "$ ls", "README.md setup.cfg", "same again", "tail"])
    diff = compare_text(expected, actual)
    assert diff is not None
    lines = diff.split("\n")
    assert lines[0] == "..."
    assert lines[1] == "    3 |$ ls"
    assert lines[2] == "-   4 |README.md setup.py"
    assert lines[3] == "+   4 |README.md setup.cfg"
    assert lines[4] == " " * 7 + " " * 16 + "^^^  (columns 17-19)"
    assert lines[5] == "    5 |same again"
    assert "header" not in diff and "tail" not in diff  # only the changed rows and a little context


def test_compare_text_reports_row_count_and_wide_character_columns() -> None:
    assert compare_text("a  \nb", "a\nb   ") is None
    diff = compare_text("\u4e2dx", "\u4e2dy\nextra")
    assert diff is not None
    assert diff.startswith("the golden has 1 row, the screen 2: a golden is the whole screen, a line per row")
    assert "  ^  (column 3)" in diff  # the wide character takes columns 1-2


KILL_DURING_ACCEPT = """
import os, signal, sys
from pathlib import Path
from tests.terminal.test_golden import shot_of, store
calls = 0
real = os.replace
def replace(src, dst):
    global calls
    calls += 1
    if calls > int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)  # a kill -9 between two renames
    real(src, dst)
os.replace = replace
store(Path(sys.argv[1])).accept("s", shot_of("\\x1b[32mnew green"))
"""


def pair_on_disk(tmp_path: Path) -> tuple[str, str | None]:
    golden = tmp_path / "screenshots/demo/80x24/s.golden"
    sidecar = golden.with_name("s.style.json")
    return golden.read_text(), sidecar.read_text() if sidecar.exists() else None


@pytest.mark.parametrize("renames_before_the_kill", [0, 1, 2, 3])
def test_a_kill_while_writing_leaves_the_golden_and_its_sidecar_both_old_or_both_new(
    tmp_path: Path, renames_before_the_kill: int
) -> None:
    store(tmp_path).accept("s", shot_of("\x1b[31mold red"))
    old = pair_on_disk(tmp_path)
    store(tmp_path / "new").accept("s", shot_of("\x1b[32mnew green"))
    new = pair_on_disk(tmp_path / "new")
    subprocess.run([sys.executable, "-c", KILL_DURING_ACCEPT, str(tmp_path), str(renames_before_the_kill)],
                   cwd=Path(__file__).parents[2], check=False, timeout=60)  # fmt: skip
    pair = store(tmp_path).read("s")  # a reader finishes what the killed writer had committed to
    assert pair in (old, new)
    assert pair_on_disk(tmp_path) == pair
    assert sorted(p.name for p in (tmp_path / "screenshots/demo/80x24").iterdir()) == [
        "s.golden",
        "s.style.json",
    ]
