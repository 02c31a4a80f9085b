"""JSON scenarios: the values `json` reads, at the places they are written.

JSON is read twice: by :mod:`json` for its values and as YAML for positions. YAML 1.1 reads some JSON
differently (`1e3` is a string there) and libyaml refuses the surrogate escapes `json.dumps` writes for
an emoji (`\\ud83d\\ude00`); neither may cost a value or a diagnostic's place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.cli_process import workbench
from tests.conftest import write
from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.fields import to_plain
from workbench.scenario.source import PList, PMap, parse_json

KEYS = st.text(max_size=6)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
DOCS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=10,
)


def offset(text: str, line: int, col: int) -> int:
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    return starts[line - 1] + col - 1


def check_places(node: Any, text: str, ascii_only: bool) -> None:
    if isinstance(node, PMap):
        for key, value in node.items():
            at = node.at_key(key)
            assert text[offset(text, at.line, at.col) :].startswith(json.dumps(key, ensure_ascii=ascii_only))
            check_places(value, text, ascii_only)
    elif isinstance(node, PList):
        for value in node:
            check_places(value, text, ascii_only)


@settings(max_examples=150)
@given(
    doc=st.dictionaries(KEYS, DOCS, max_size=4), ascii_only=st.booleans(), indent=st.sampled_from([None, 1])
)
@example(doc={"😀": "\U0001f600", "b": {"c": 1e3}}, ascii_only=True, indent=1)
@example(doc={"a": "\\ud800", "\ud7ff": 1e-7}, ascii_only=True, indent=None)
@example(doc={"\x7f": None}, ascii_only=False, indent=None)  # YAML refuses DEL, JSON takes it
@example(doc={"\x85": None}, ascii_only=False, indent=None)  # a line break (NEL) to YAML 1.1
@example(doc={"a\u2028b": [1, {"\u2029": 2}]}, ascii_only=False, indent=1)
def test_a_json_document_keeps_json_s_values_and_every_key_s_place(
    doc: dict[str, Any], ascii_only: bool, indent: int | None
) -> None:
    text = json.dumps(doc, ensure_ascii=ascii_only, indent=indent)
    parsed = parse_json(text, "s.json")
    assert to_plain(parsed) == json.loads(text)
    check_places(parsed, text, ascii_only)


@pytest.mark.parametrize(
    ("text", "col"),
    [
        ('{"a": "\\ud800"}', 8),
        ('{"a": "x\\udc00\\ud800"}', 9),
        ('{"a": "\\\\\\ud83d"}', 10),
        ('{"a": "\\ud83d\\u0041"}', 8),
    ],
)
def test_half_a_surrogate_pair_is_an_error_at_its_place(text: str, col: int) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_json(text, "s.json")
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.pos.line, diagnostic.pos.col) == (1, col), diagnostic
    assert "half of a UTF-16 surrogate pair" in diagnostic.message


def test_a_json_scenario_with_an_escaped_emoji_gets_its_diagnostics_at_their_lines(tmp_path: Path) -> None:
    doc = {
        "name": "emoji",
        "timeline": [{"log": "done \U0001f600"}, {"advanceMs": 1e3}, {"screenshto": "end"}],
    }
    write(tmp_path, "emoji.json", json.dumps(doc, indent=2))  # as json.dumps writes it: `\ud83d\ude00`
    done = workbench("validate", "emoji.json", cwd=tmp_path)
    assert done.returncode == 2
    assert "emoji.json:11:7: error: unknown event `screenshto`; did you mean `screenshot`?" in done.stderr
    assert done.stderr.count("error:") == 1, done.stderr  # `1e3` is JSON's 1000

    write(tmp_path, "half.json", '{"name": "half", "timeline": [{"log": "\\ud800"}]}')
    done = workbench("run", "--ci", "half.json", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "half.json:1:40: validation: `\\ud800` is half of a UTF-16 surrogate pair" in done.stdout
