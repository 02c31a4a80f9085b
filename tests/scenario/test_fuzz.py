"""Property: whatever a mutated scenario looks like, loading and compiling it either
succeeds or raises our diagnostic error - never any other exception."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SCENARIOS
from tests.docpaths import get, paths, replace
from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import load_scenario
from workbench.timeline import compile_schedule

SOURCES = {p.name: p.read_text() for p in sorted(SCENARIOS.glob("*")) if p.suffix in (".yaml", ".json")}

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.sampled_from([-1, 0, 1, 2**40]), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12), st.sampled_from(["..", "/etc/passwd", "../x", "a/b", "<Enter>", "$fast", "-1"]),
)  # fmt: skip
edge_values = st.sampled_from(
    [-1, 0, 1, 2**40, "", "x", None, True, [], {}, "../x", "/abs", [[1, "a"]], {"a": 1}]
)
nested = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
values = st.one_of(edge_values, nested)
# Snippets of the input classes benchmarks/fuzz.py found breaking parsers (each has its own test in
# test_loader_limits.py): deep nesting, a 4,301-digit integer, bad tags, an alias to itself.
ATTACKS = ["[" * 150, "{a: " * 120, "- " * 120, "1" * 4301, "!!bool maybe", "!!int\n", "&r [*r]", "<<: *a\n"]


def load_and_compile(path: Path) -> None:
    try:
        compile_schedule(load_scenario(path, env={}))
    except ScenarioError as exc:
        assert exc.diagnostics, "a ScenarioError must carry diagnostics"
        for d in exc.diagnostics:
            assert d.pos.line >= 1 and d.pos.col >= 1 and d.message


@settings(
    max_examples=400,
    suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture],
)
@given(name=st.sampled_from(sorted(SOURCES)), data=st.data())
def test_structural_mutations_raise_only_diagnostics(
    tmp_path_factory: Any, name: str, data: st.DataObject
) -> None:
    source = SOURCES[name]
    doc = json.loads(source) if name.endswith(".json") else yaml.safe_load(source)
    for _ in range(data.draw(st.integers(1, 3))):
        places = paths(doc)
        leaves = [p for p in places if not isinstance(get(doc, p), dict | list)] or places
        target = data.draw(st.sampled_from(leaves) if data.draw(st.booleans()) else st.sampled_from(places))
        doc = replace(doc, target, data.draw(values))
    folder = tmp_path_factory.mktemp("m")
    (folder / "_data").mkdir()
    for extra in (SCENARIOS / "_data").iterdir():
        (folder / "_data" / extra.name).write_bytes(extra.read_bytes())
    path = folder / name
    path.write_text(
        json.dumps(doc, default=str) if name.endswith(".json") else yaml.safe_dump(doc, allow_unicode=True)
    )
    load_and_compile(path)


@settings(
    max_examples=400,
    suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture],
)
@given(name=st.sampled_from(sorted(SOURCES)), data=st.data())
def test_text_mutations_raise_only_diagnostics(tmp_path_factory: Any, name: str, data: st.DataObject) -> None:
    text = SOURCES[name]
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        kind = data.draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if kind == "delete":
            text = text[:at] + text[at + data.draw(st.integers(1, 20)) :]
        elif kind == "insert":
            text = (
                text[:at]
                + data.draw(
                    st.sampled_from(
                        [
                            "[",
                            "]",
                            "{",
                            ":",
                            "- ",
                            "\t",
                            "'",
                            '"',
                            "\n  ",
                            "&a",
                            "*a",
                            "!!int ",
                            "0x",
                            *ATTACKS,
                        ]
                    )
                )
                + text[at:]
            )
        else:
            end = min(len(text), at + data.draw(st.integers(1, 60)))
            text = text[:end] + text[at:end] + text[end:]
    folder = tmp_path_factory.mktemp("t")
    (folder / "_data").mkdir()
    for extra in (SCENARIOS / "_data").iterdir():
        (folder / "_data" / extra.name).write_bytes(extra.read_bytes())
    path = folder / name
    path.write_text(text)
    load_and_compile(path)


def test_a_name_too_long_for_the_file_system_is_a_diagnostic(tmp_path: Path) -> None:
    """Found by the text mutations above (not replayable with ``@example``: they draw from ``st.data()``).

    4,301 digits inserted into `terminalRef`'s path made ``stat`` fail with ENAMETOOLONG, an ``OSError``.
    """
    text = SOURCES["every-event.yaml"]
    at = text.index("_data/profile")
    (tmp_path / "_data").mkdir()
    for extra in (SCENARIOS / "_data").iterdir():
        (tmp_path / "_data" / extra.name).write_bytes(extra.read_bytes())
    path = tmp_path / "every-event.yaml"
    path.write_text(text[:at] + "1" * 4301 + text[at:])
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path, env={})
    (diagnostic,) = caught.value.diagnostics
    line = text[:at].count("\n") + 1
    assert (diagnostic.pos.line, diagnostic.pos.col) == (line, len("terminalRef: ") + 1)
    assert "`terminalRef` cannot be looked up: File name too long" in diagnostic.message
