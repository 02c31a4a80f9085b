"""Screenshots (golden text, style sidecar, ANSI, SVG) and the golden store."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from wcwidth import wcswidth

from workbench.atomic import write_atomic
from workbench.terminal import GoldenStore, Screen, Shot, compare_text
from workbench.terminal.shot import runs_from_json


def shot_of(data: str, width: int = 12, height: int = 4) -> Shot:
    screen = Screen(width, height)
    screen.feed(data)
    return screen.snapshot()


SAMPLE = "\x1b[1;31mred\x1b[0m ok\r\n中x <&>\r\n\x1b[2;4;44mdim\x1b[0m"


def test_text_is_the_golden_format() -> None:
    shot = shot_of(SAMPLE)
    text = shot.text()
    rows = text.split("\n")
    assert len(rows) == 4
    assert all(wcswidth(row) == 12 for row in rows)
    assert not text.endswith("\n")
    assert "\x1b" not in text
    assert rows[0] == "red ok      "
    assert rows[1].rstrip() == "中x <&>"
    assert rows[2].rstrip() == "dim"
    assert rows[3] == " " * 12


def test_empty_screen_text() -> None:
    assert shot_of("", width=3, height=2).text() == "   \n   "


def test_style_json_runs() -> None:
    shot = shot_of(SAMPLE)
    styles = shot.style_json()
    assert styles["version"] == 1
    assert (styles["width"], styles["height"]) == (12, 4)
    assert styles["cursor"] == {"row": 2, "col": 3, "visible": True}
    assert styles["rows"][0] == [{"col": 0, "len": 3, "fg": "red", "bg": "default", "bold": True}]
    assert styles["rows"][1] == []
    assert styles["rows"][2] == [
        {"col": 0, "len": 3, "fg": "default", "bg": "blue", "dim": True, "underscore": True}
    ]
    assert styles["rows"][3] == []
    json.dumps(styles)  # serialisable


def test_style_runs_read_back_from_json_are_the_screens_and_damage_is_dropped() -> None:
    shot = shot_of(SAMPLE + "\r\n\x1b[7;38;5;208;48;2;1;2;3mhot\x1b[0m", height=5)
    rows = json.loads(json.dumps(shot.style_json()))["rows"]
    assert runs_from_json(rows) == shot.styles
    damaged = [[*rows[0], {"col": 9, "len": 0}, {"col": "x", "len": True}, "run", None], "row", *rows[1:]]
    assert runs_from_json(damaged) == (shot.styles[0], (), *shot.styles[1:])
    assert runs_from_json({"rows": rows}) == ()


def test_to_ansi_contains_sgr() -> None:
    ansi = shot_of(SAMPLE).to_ansi()
    assert "\x1b[1;31mred\x1b[0m" in ansi
    assert re.search(r"\x1b\[[0-9;]*44[0-9;]*mdim\x1b\[0m", ansi)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", ansi)
    assert plain == shot_of(SAMPLE).text()
    assert "\x1b" not in shot_of("plain").to_ansi()


def test_to_ansi_truecolor() -> None:
    ansi = shot_of("\x1b[38;2;255;0;128mX").to_ansi()
    assert "38;2;255;0;128" in ansi


def test_to_svg_is_well_formed_and_has_the_text() -> None:
    svg = shot_of(SAMPLE).to_svg()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = "".join(el.text or "" for el in root.iter("{http://www.w3.org/2000/svg}text"))
    for word in ("red", "ok", "中x", "<&>", "dim"):
        assert word in texts
    fills = [el.get("fill") for el in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert "#2472c8" in fills  # the blue background run


# ---------------------------------------------------------------- compare_text


def test_compare_text_equal_is_none() -> None:
    assert compare_text("abc\ndef", "abc\ndef") is None
    assert compare_text("abc   \ndef", "abc\ndef      ") is None


def test_compare_text_diff_is_readable() -> None:
    expected = "line one\nline two\nline three\nline four\nline five"
    actual = "line one\nline TWO\nline three\nline four\nline fivex"
    diff = compare_text(expected, actual)
    assert diff is not None
    lines = diff.split("\n")
    assert "-   2 |line two" in lines
    assert "+   2 |line TWO" in lines
    assert "-   5 |line five" in lines
    assert "+   5 |line fivex" in lines
    caret = lines[lines.index("+   2 |line TWO") + 1]
    # The carets sit under the changed columns (6-8), after the "+   2 |" prefix.
    assert caret.index("^") == len("+   2 |") + 5
    assert caret.count("^") == 3
    assert "(columns 6-8)" in caret
    assert "(column 10)" in lines[lines.index("+   5 |line fivex") + 1]
    assert "  1 |line one" in diff  # context row
    assert "..." not in lines  # rows 1-5 are all shown: no gap


def test_compare_text_marks_gaps_between_distant_changes() -> None:
    expected = "\n".join(f"row {i}" for i in range(1, 11))
    actual = expected.replace("row 2", "row X").replace("row 9", "row Y")
    diff = compare_text(expected, actual)
    assert diff is not None
    lines = diff.split("\n")
    assert lines[0] == "    1 |row 1"
    assert lines.count("...") == 1
    gap = lines.index("...")
    assert "3 |row 3" in lines[gap - 1]
    assert "8 |row 8" in lines[gap + 1]
    assert not any("row 5" in line for line in lines)


def test_compare_text_different_row_counts() -> None:
    diff = compare_text("a\nb", "a\nb\nc")
    assert diff is not None
    assert "the golden has 2 rows, the screen 3: " in diff
    assert "+   3 |c" in diff


# ---------------------------------------------------------------- GoldenStore


def store(tmp_path: Path, *, ci: bool = False, update: bool = False) -> GoldenStore:
    return GoldenStore(
        tmp_path / "goldens", "scn", "prof", ci=ci, update=update, actual_dir=tmp_path / "actual"
    )


def files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file()) if path.exists() else []


def test_new_golden_writes_golden_and_actual(tmp_path: Path) -> None:
    shot = shot_of(SAMPLE)
    outcome = store(tmp_path).check("first", shot)
    assert outcome.status == "new"
    assert outcome.golden_path == tmp_path / "goldens" / "scn" / "prof" / "first.golden"
    assert outcome.golden_path.read_text(encoding="utf-8") == shot.text()
    assert outcome.actual_path == tmp_path / "actual" / "scn" / "prof" / "screenshots" / "first.golden"
    assert outcome.actual_path.read_text(encoding="utf-8") == shot.text()
    sidecar = json.loads(outcome.golden_path.with_suffix(".style.json").read_text(encoding="utf-8"))
    assert sidecar == shot.style_json()


def test_match(tmp_path: Path) -> None:
    shot = shot_of("hello")
    assert store(tmp_path).check("a", shot).status == "new"
    outcome = store(tmp_path, ci=True).check("a", shot)
    assert outcome.status == "match"
    assert outcome.diff is None


def test_mismatch_has_readable_diff_and_keeps_golden(tmp_path: Path) -> None:
    assert store(tmp_path).check("a", shot_of("hello\r\nworld")).status == "new"
    golden = store(tmp_path).golden_path("a")
    before = golden.read_text(encoding="utf-8")
    outcome = store(tmp_path).check("a", shot_of("hello\r\nwXrld"))
    assert outcome.status == "mismatch"
    assert outcome.diff is not None
    assert "-   2 |world" in outcome.diff
    assert "+   2 |wXrld" in outcome.diff
    assert "(column 2)" in outcome.diff
    assert golden.read_text(encoding="utf-8") == before
    assert "wXrld" in outcome.actual_path.read_text(encoding="utf-8")


def test_trailing_spaces_are_ignored(tmp_path: Path) -> None:
    shot = shot_of("hello")
    golden = store(tmp_path).golden_path("a")
    golden.parent.mkdir(parents=True)
    golden.write_text("hello\n\n\n", encoding="utf-8")  # hand-edited: trailing spaces stripped
    assert store(tmp_path, ci=True).check("a", shot).status == "match"


def test_ci_missing_writes_no_golden(tmp_path: Path) -> None:
    outcome = store(tmp_path, ci=True, update=True).check("a", shot_of("hello"))
    assert outcome.status == "missing"
    assert outcome.diff is not None and "no golden" in outcome.diff
    assert files_under(tmp_path / "goldens") == []
    assert outcome.actual_path.exists()


def test_ci_never_rewrites_a_mismatching_golden(tmp_path: Path) -> None:
    store(tmp_path).check("a", shot_of("old"))
    golden = store(tmp_path).golden_path("a")
    before = golden.read_bytes()
    outcome = store(tmp_path, ci=True, update=True).check("a", shot_of("new"))
    assert outcome.status == "mismatch"
    assert golden.read_bytes() == before


def test_update_rewrites_a_mismatching_golden(tmp_path: Path) -> None:
    store(tmp_path).check("a", shot_of("old"))
    outcome = store(tmp_path, update=True).check("a", shot_of("new"))
    assert outcome.status == "updated"
    assert outcome.diff is not None and "new" in outcome.diff
    assert outcome.golden_path.read_text(encoding="utf-8") == shot_of("new").text()
    assert store(tmp_path, ci=True).check("a", shot_of("new")).status == "match"


def test_accept(tmp_path: Path) -> None:
    path = store(tmp_path, ci=True).accept("b", shot_of("accepted"))
    assert path.read_text(encoding="utf-8").startswith("accepted")


def test_writes_are_atomic_and_leave_no_temp_files(tmp_path: Path) -> None:
    s = store(tmp_path, update=True)
    for i, label in enumerate(["a", "b", "a", "c", "a"]):
        s.check(label, shot_of(f"\x1b[31mv{i}"))
    for folder in (
        tmp_path / "goldens" / "scn" / "prof",
        tmp_path / "actual" / "scn" / "prof" / "screenshots",
    ):
        names = sorted(p.name for p in folder.iterdir())
        assert not [n for n in names if n.endswith(".tmp") or n.startswith(".")], names
        assert names == ["a.golden", "a.style.json", "b.golden", "b.style.json", "c.golden", "c.style.json"]


def test_write_atomic_replaces_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "f.txt"
    write_atomic(target, "one")
    write_atomic(target, "two\n中")
    assert target.read_text(encoding="utf-8") == "two\n中"
    assert [p.name for p in target.parent.iterdir()] == ["f.txt"]


def test_write_atomic_failure_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    write_atomic(target, "good")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "bad \udcff surrogate")
    assert target.read_text(encoding="utf-8") == "good"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_write_atomic_gives_a_new_file_the_usual_permissions(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "new.golden", "x")
        os.umask(0o027)
        write_atomic(tmp_path / "other.golden", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "new.golden").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "other.golden").stat().st_mode & 0o777 == 0o640
    (tmp_path / "kept").write_text("x")
    (tmp_path / "kept").chmod(0o600)
    write_atomic(tmp_path / "kept", "y")
    assert (tmp_path / "kept").stat().st_mode & 0o777 == 0o600
