"""Files as editors save them: a UTF-8 byte order mark before a scenario is no text (YAML skips it, and
so must JSON and TOML), and a UTF-16 file is named as one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_process import workbench
from tests.conftest import write
from workbench.timeline.prepare import prepare

BAD = {
    "s.yaml": "name: s\ntimeline:\n  - log: x\n  - fly: 1\n",
    "s.json": '{"name": "s",\n "timeline": [{"log": "x"},\n  {"fly": 1}]}',
    "s.toml": '[[responses]]\npattern = { type = "contains", text = "x" }\nrespons = "y"\n',
}


def places(path: Path) -> list[tuple[int, int, str]]:
    return [(d.pos.line, d.pos.col, d.message) for d in prepare(path).diagnostics]


@pytest.mark.parametrize("name", sorted(BAD))
@pytest.mark.parametrize("bom", ["\ufeff", "\ufeff\n"])
def test_a_byte_order_mark_changes_nothing_a_file_says_or_where(tmp_path: Path, name: str, bom: str) -> None:
    plain = write(tmp_path / "plain", name, BAD[name])
    marked = tmp_path / "marked" / name
    marked.parent.mkdir()
    marked.write_bytes(bom.encode() + BAD[name].encode())
    expected = places(plain)
    assert expected, "each file has one mistake"
    shift = bom.count("\n")
    assert places(marked) == [(line + shift, col, message) for line, col, message in expected]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_a_utf16_or_utf32_file_is_named_as_one(tmp_path: Path, encoding: str) -> None:
    text = BAD["s.yaml"]
    path = tmp_path / "s.yaml"
    path.write_bytes(
        ("\ufeff" + text).encode(encoding) if encoding.endswith("-be") else text.encode(encoding)
    )
    ((line, col, message),) = places(path)
    assert (line, col) == (1, 1)
    wide = encoding[:6].upper()
    assert message == f"the file is {wide} (it starts with that byte order mark): save it as UTF-8"


def test_a_json_scenario_saved_with_a_bom_runs(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b'\xef\xbb\xbf{"name": "bom", "timeline": [{"log": "hello"}]}')
    done = workbench("run", "--ci", "bom.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASSED  bom" in done.stdout
