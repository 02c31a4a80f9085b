"""Inputs that break parsers become diagnostics with a place, never a crash, a hang or a signal.

Each class the fuzz campaign (benchmarks/fuzz.py) found has its test here, with
the size of the input varied so that the class is fixed, not one example.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import try_load
from workbench.scenario.source import ALIAS_BUDGET, MAX_DEPTH, parse_document


def errors_of(tmp_path: Path, name: str, data: str | bytes) -> list[str]:
    """Load ``data`` as the file ``name``; the error diagnostics as ``file:line:col: ...`` text."""
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    result = try_load(path)
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    for d in errors:
        assert d.pos.line >= 1 and d.pos.col >= 1, d
    return [f"{d.pos.line}:{d.pos.col}: {d.message}" for d in errors]


def parse_error(text: str, suffix: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse_document(text, "f" + suffix, suffix)
    return info.value


# --------------------------------------------------------------------------- depth


def nested(kind: str, n: int) -> tuple[str, str]:
    """A file nested ``n`` deep in one of the ways each format allows."""
    return {
        "yaml-flow": (".yaml", "timeline: []\nx: " + "[" * n + "]" * n + "\n"),
        "yaml-flow-map": (".yaml", "timeline: []\nx: " + "{a: " * n + "1" + "}" * n + "\n"),
        "yaml-block": (".yaml", "timeline: []\nx:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(n))),
        "yaml-seq": (".yaml", "- " * n + "x\n"),
        "yaml-args": (
            ".yaml",
            "timeline:\n  - agentToolUse:\n      toolName: runCmd\n      args: "
            + "{a: " * n
            + "1"
            + "}" * n
            + "\n",
        ),
        "json": (".json", '{"timeline": [], "x": ' + "[" * n + "]" * n + "}"),
        "json-args": (
            ".json",
            '{"timeline": [{"agentToolUse": {"toolName": "runCmd", "args": '
            + '{"a": ' * n
            + "1"
            + "}" * n
            + "}}]}",
        ),
        "toml-array": (".toml", "x = " + "[" * n + "]" * n + "\n"),
        "toml-inline": (".toml", "x = " + "{a = " * n + "1" + "}" * n + "\n"),
        "toml-dotted": (".toml", "a" + ".a" * n + " = 1\n"),
        "toml-quoted-dotted": (".toml", '"a"' + '."a"' * n + " = 1\n"),
        "toml-header": (".toml", "[a" + ".a" * n + "]\nb = 1\n"),
    }[kind]


KINDS = [
    "yaml-flow", "yaml-flow-map", "yaml-block", "yaml-seq", "yaml-args", "json", "json-args",
    "toml-array", "toml-inline", "toml-dotted", "toml-quoted-dotted", "toml-header",
]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [MAX_DEPTH + 1, 600, 5000])
def test_deep_nesting_is_a_diagnostic_with_a_place(tmp_path: Path, kind: str, n: int) -> None:
    suffix, text = nested(kind, n)
    errors = errors_of(tmp_path, "deep" + suffix, text)
    assert any(f"nested more than {MAX_DEPTH} levels" in e for e in errors), errors


@pytest.mark.parametrize("kind", ["yaml-flow", "yaml-block", "json", "toml-array", "toml-dotted"])
def test_nesting_within_the_limit_is_not_refused(tmp_path: Path, kind: str) -> None:
    suffix, text = nested(kind, 20)
    assert not any("nested more than" in e for e in errors_of(tmp_path, "ok" + suffix, text))


@pytest.mark.parametrize("n", [500, 5000])  # 5000: past libyaml's own limit of 1,000, which answers first
def test_depth_diagnostic_names_the_first_bracket_too_deep(n: int) -> None:
    exc = parse_error("x: " + "[" * n + "]" * n + "\n", ".yaml")
    assert (exc.diagnostics[0].pos.line, exc.diagnostics[0].pos.col) == (
        1,
        3 + MAX_DEPTH,
    )  # the mapping is level 1


def test_brackets_inside_strings_do_not_count() -> None:
    text = 'x = "' + "[" * 500 + "\"\ny = '" + "{" * 500 + "'\n# " + "[" * 500 + "\n"
    assert parse_document(text, "f.toml", ".toml")["x"] == "[" * 500
    assert parse_document('{"x": "' + "[" * 500 + '"}', "f.json", ".json")["x"] == "[" * 500


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".toml"])
def test_fifty_thousand_deep_does_not_kill_the_process(tmp_path: Path, suffix: str) -> None:
    """libyaml's composer recursed in C: 50,000 levels was a segfault, so run it in a child."""
    text = {
        ".yaml": "x: " + "[" * 50_000 + "]" * 50_000 + "\n",
        ".json": "[" * 50_000 + "]" * 50_000,
        ".toml": "x = " + "[" * 50_000 + "]" * 50_000 + "\n",
    }[suffix]
    path = tmp_path / ("deep" + suffix)
    path.write_text(text)
    code = "import sys; from pathlib import Path; from workbench.scenario.loader import try_load; r = try_load(Path(sys.argv[1])); print(r.diagnostics[0])"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "nested more than" in proc.stdout


# --------------------------------------------------------------------------- long integers


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".toml"])
@pytest.mark.parametrize("digits", [4301, 5000, 20_000])
@pytest.mark.parametrize("sign", ["", "-"])
def test_long_integer_is_a_diagnostic_at_the_number(
    tmp_path: Path, suffix: str, digits: int, sign: str
) -> None:
    number = sign + "9" * digits
    text = {
        ".yaml": f"name: x\ntimeline:\n  - advanceMs: {number}\n",
        ".json": '{"name": "x",\n "timeline": [{"advanceMs": ' + number + "}]}",
        ".toml": f'default_response = "x"\nlimit = {number}\n',
    }[suffix]
    errors = errors_of(tmp_path, "big" + suffix, text)
    assert any(
        e.startswith(("2:", "3:")) and "integer too long" in e and "4,300 digits" in e for e in errors
    ), errors
    assert not any("set_int_max_str_digits" in e for e in errors)


LONG_IN_OTHER_BASES = {
    "binary": "0b" + "1" * 20_000,
    "hex": "0x" + "f" * 4000,
    "hex-underscores": "0x" + "f_" * 3600 + "f",
    "yaml-1.1-octal": "0" + "7" * 7000,
    "sexagesimal": ":".join(["59"] * 3000),
    "negative-sexagesimal": "-1" + ":59" * 3000,
}


@pytest.mark.parametrize("literal", LONG_IN_OTHER_BASES.values(), ids=LONG_IN_OTHER_BASES.keys())
def test_long_integer_in_another_base_is_a_diagnostic_at_the_number(tmp_path: Path, literal: str) -> None:
    """Python reads these without its 4,300-digit limit, so they reached the messages that print numbers."""
    as_value = errors_of(tmp_path, "big.yaml", f"name: x\ntimeline:\n  - advanceMs: {literal}\n")
    assert [e for e in as_value if e.startswith("3:16:") and "integer too long" in e], as_value
    as_key = errors_of(tmp_path, "key.yaml", f"name: x\ntimeline: []\nx:\n  {literal}: 1\n")
    assert [e for e in as_key if e.startswith("4:3:") and "integer too long" in e], as_key


LONG_IN_TOML = {
    "binary": "0b" + "1" * 20_000,
    "hex": "0x" + "f" * 4000,
    "hex-underscores": "0x" + "f_" * 3600 + "f",
    "octal": "0o" + "7" * 7000,
}


@pytest.mark.parametrize("literal", LONG_IN_TOML.values(), ids=LONG_IN_TOML.keys())
def test_long_integer_in_another_base_in_toml_is_a_diagnostic_at_the_number(
    tmp_path: Path, literal: str
) -> None:
    """Claudeless numbers: a time-out, in TOML's bases."""
    errors = errors_of(
        tmp_path, "big.toml", f'default_response = "x"\n[timeouts]\nexit_hint_ms = {literal}\n'
    )
    assert [e for e in errors if e.startswith("3:16:") and "integer too long" in e], errors


def test_numbers_in_other_bases_within_the_limit_still_read() -> None:
    doc = parse_document("a: 0x10\nb: 0b101\nc: 1:30\nd: 0o17\n", "f.yaml", ".yaml")
    assert (doc["a"], doc["b"], doc["c"]) == (16, 5, 90)
    assert parse_document("a = 0xff\nb = 0b11\nc = 0o7\n", "f.toml", ".toml") == {"a": 255, "b": 3, "c": 7}


def test_long_integer_inside_a_string_is_text() -> None:
    assert parse_document('x: "' + "1" * 5000 + '"\n', "f.yaml", ".yaml")["x"] == "1" * 5000


# --------------------------------------------------------------------------- aliases


def bomb(levels: int, width: int) -> str:
    lines = ['a0: &a0 ["lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\ntimeline: []\n"


def expansion(levels: int, width: int) -> int:
    """Values the aliases of :func:`bomb` add: each level repeats the level below ``width`` times."""
    size, total = 2, 0  # a0 is a list holding one string
    for _ in range(levels):
        total += width * size
        size = 1 + width * size
    return total


@given(levels=st.integers(2, 30), width=st.integers(2, 12))
@example(levels=9, width=9)  # billion laughs
@example(levels=4, width=12)
@example(levels=6, width=4)
@settings(max_examples=30)
def test_alias_bombs_are_refused_past_the_budget(levels: int, width: int) -> None:
    try:
        doc = parse_document(bomb(levels, width), "b.yaml", ".yaml")
    except ScenarioError as exc:
        assert expansion(levels, width) > ALIAS_BUDGET
        assert "alias" in exc.diagnostics[0].message and exc.diagnostics[0].pos.line >= 2
    else:
        assert expansion(levels, width) <= ALIAS_BUDGET and len(doc[f"a{levels}"]) == width


def test_ordinary_aliases_and_merges_still_work() -> None:
    doc = parse_document(
        "base: &b {x: 1, y: [1, 2]}\nm:\n  <<: *b\n  y: 3\nl: [*b, *b]\n'<<': text\n", "f.yaml", ".yaml"
    )
    assert doc["m"] == {"x": 1, "y": 3} and doc["l"] == [{"x": 1, "y": [1, 2]}] * 2
    assert doc["<<"] == "text"
    assert doc["l"][0] is not doc["l"][1]  # each alias is a copy a loader may change
    assert doc["m"].at_key("x").line == 1  # merged keys keep the anchor's place


@pytest.mark.parametrize(
    ("text", "message", "where"),
    [
        ("a: &a [*a]\n", "recursive alias", (1, 8)),
        ("a: &a {b: *a}\n", "recursive alias", (1, 11)),
        ("a: *nowhere\n", "undefined alias", (1, 4)),
        ("a: &x 1\nb: {*x : 2}\nc: &m {k: 1}\nd: {*m : 2}\n", "mapping keys must be plain scalars", (4, 5)),
    ],
)
def test_bad_aliases_are_diagnostics(text: str, message: str, where: tuple[int, int]) -> None:
    d = parse_error(text, ".yaml").diagnostics[0]
    assert message in d.message and (d.pos.line, d.pos.col) == where


# --------------------------------------------------------------------------- tags, duplicates, encoding


@pytest.mark.parametrize(
    "tagged",
    ["!!bool maybe", "!!bool ''", "!!int ''", "!!float ''", "!!int x", "!!int 1.5", "!!float y", "!!binary \"***\"", "!!python/object:os.system x", "!foo bar"],
)  # fmt: skip
def test_bad_tagged_scalars_are_diagnostics(tmp_path: Path, tagged: str) -> None:
    errors = errors_of(tmp_path, "t.yaml", f"timeline: []\nname: {tagged}\n")
    assert errors and errors[0].startswith("2:7:"), errors


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("name: !!python/object:os.system x\n", "!!python/object:os.system"),
        ("name: !custom x\n", "!custom"),
        ("repo: !!python/object/apply:os.system {args: [ls]}\n", "!!python/object/apply:os.system"),
        ("repo: !custom\n  init: true\n", "!custom"),
        ("tags: !custom [a]\n", "!custom"),
    ],
)
def test_a_tag_no_scenario_can_hold_is_named_as_written_on_a_value_a_mapping_or_a_list(
    tmp_path: Path, text: str, tag: str
) -> None:
    """`!custom x` said "invalid custom value: could not determine a constructor for the tag '!custom'"
    (Python's words), and on a mapping or a list the tag was dropped without a word."""
    errors = errors_of(tmp_path, "t.yaml", text + "timeline: []\n")
    assert errors == [f"1:{text.index('!') + 1}: the YAML tag `{tag}` is not allowed: a scenario holds plain "
                      "values (text, numbers, booleans, lists and mappings); remove the tag"]  # fmt: skip
    assert (
        errors_of(tmp_path, "ok.yaml", "name: !!str x\nrepo: !!map {init: true}\ntimeline: !!seq []\n") == []
    )


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("d.yaml", "name: a\ntimeline: []\nname: b\n", 3),
        ("d.yaml", "timeline:\n  - advanceMs: 1\n    advanceMs: 2\n", 3),
        ("d.json", '{"name": "a",\n "timeline": [],\n "name": "b"}', 3),
        ("d.toml", 'default_response = "a"\ndefault_response = "b"\n', 2),
    ],
)
def test_duplicate_keys_are_diagnostics(tmp_path: Path, name: str, text: str, line: int) -> None:
    errors = errors_of(tmp_path, name, text)
    assert errors and errors[0].startswith(f"{line}:"), errors


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".toml"])
@pytest.mark.parametrize("bad", [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf"])
def test_invalid_utf8_is_a_diagnostic_at_the_byte(tmp_path: Path, suffix: str, bad: bytes) -> None:
    data = b"\n\nname = 'ok " + bad + b"'\n"
    errors = errors_of(tmp_path, "u" + suffix, data)
    assert errors == ["3:12: file is not valid UTF-8"]


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".toml"])
def test_control_characters_are_diagnostics(tmp_path: Path, suffix: str) -> None:
    assert errors_of(tmp_path, "c" + suffix, "name: \x00\x01\n")


def test_a_second_yaml_document_is_a_diagnostic() -> None:
    d = parse_error("name: a\n---\nname: b\n", ".yaml").diagnostics[0]
    assert "single document" in d.message and d.pos.line == 2


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "1" * 200_000 + "\n" + "." * 200,  # a long number beside many dots
        "x = [" + "1.5, " * 50_000 + "]\n",
        "# " + "a." * 100_000 + "\n",
        'x = """' + '"' * 50_000,  # an unterminated multi-line string
    ],
)
def test_the_toml_guard_reads_large_texts_in_one_pass(text: str) -> None:
    """These took minutes when the dotted-key pattern was retried inside a run of digits.

    No timing is asserted: were the scan quadratic again, this test would not end.
    """
    try:
        parse_document(text, "f.toml", ".toml")
    except ScenarioError as exc:
        assert exc.diagnostics[0].pos.line >= 1


@pytest.mark.parametrize(("anchor", "around", "too_deep"), [(60, 50, True), (40, 50, False), (99, 0, False)])
def test_an_alias_counts_the_depth_of_what_it_stands_for(anchor: int, around: int, too_deep: bool) -> None:
    text = f"a: &a {'[' * anchor}{']' * anchor}\nb: {'[' * around}*a{']' * around}\n"
    try:
        parse_document(text, "f.yaml", ".yaml")
    except ScenarioError as exc:
        assert too_deep and "nested more than" in exc.diagnostics[0].message
        assert exc.diagnostics[0].pos.line == 2
    else:
        assert not too_deep


# --------------------------------------------------------------------------- any text

SYNTAX = [*"[]{}():,-'\"&*!|>#.=\\\n\t ", "a", "1", "<<", "!!bool ", "!!int ", "*a", "&a ", "---", '"""']


@given(
    suffix=st.sampled_from([".yaml", ".json", ".toml"]),
    text=st.lists(st.sampled_from(SYNTAX), max_size=300).map("".join),
)
@example(suffix=".yaml", text="x: " + "[" * 50_000 + "]" * 50_000)  # was a segfault in libyaml's composer
@example(suffix=".yaml", text="- " * 5000 + "x")  # RecursionError in the position builder
@example(suffix=".json", text='{"a": ' * 600 + "1" + "}" * 600)  # RecursionError in the position builder
@example(suffix=".toml", text="x = " + "[" * 600 + "]" * 600)  # RecursionError in tomllib
@example(suffix=".toml", text="a" + ".a" * 50_000 + " = 1")  # MemoryError / minutes in tomllib
@example(suffix=".json", text='{"x": ' + "1" * 4301 + "}")  # ValueError: int-string limit
@example(suffix=".toml", text="x = " + "1" * 4301)  # ValueError: int-string limit
@example(suffix=".yaml", text="name: !!bool maybe")  # KeyError in PyYAML's bool constructor
@example(suffix=".yaml", text="!!int ")  # IndexError in PyYAML's int constructor
@example(suffix=".yaml", text=bomb(9, 9))  # billion laughs: memory without end
@example(suffix=".yaml", text="a: &a [*a]")  # recursive alias
@example(suffix=".toml", text='x = """' + "1" * 9000 + "." * 200)  # quadratic scan in the depth guard
@settings(max_examples=300)
def test_any_text_is_a_document_or_placed_diagnostics(suffix: str, text: str) -> None:
    try:
        parse_document(text, "f" + suffix, suffix)
    except ScenarioError as exc:
        assert exc.diagnostics
        assert all(d.pos.line >= 1 and d.pos.col >= 1 and d.message for d in exc.diagnostics)


@pytest.mark.parametrize("digits", [17, 40, 4000])
def test_integers_past_the_safe_range_are_refused_at_the_value(tmp_path: Path, digits: int) -> None:
    """A 4,000-digit time is legal YAML but no time: it would wait forever or lose precision."""
    errors = errors_of(tmp_path, "t.yaml", f"timeline:\n  - advanceMs: {'9' * digits}\n")
    assert len(errors) == 1 and errors[0].startswith("2:16:") and "at most 9,007,199,254,740,991" in errors[0]
    assert len(errors[0]) < 200  # the number is described, not printed


@pytest.mark.parametrize(("key", "value"), [("width", 100_000), ("height", 5000)])
def test_terminal_sizes_are_bounded(tmp_path: Path, key: str, value: int) -> None:
    errors = errors_of(tmp_path, "t.yaml", f"terminal:\n  {key}: {value}\ntimeline: []\n")
    assert errors and errors[0].startswith("2:") and "at most 1,000" in errors[0], errors
