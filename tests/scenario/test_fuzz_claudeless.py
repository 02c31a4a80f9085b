"""Property: mutated Claudeless scenarios (TOML and JSON, v1 and v2) load, or raise our
diagnostic error, and nothing else - whatever the structure, the text or the
``CLAUDELESS_*`` environment looks like. A loaded one also renders as a rules table."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SCENARIOS
from tests.docpaths import get, paths, replace
from tests.scenario.test_fuzz import values
from workbench.scenario.diagnostics import Reporter, ScenarioError
from workbench.scenario.loader import load_scenario
from workbench.timeline import compile_schedule
from workbench.timeline.rules_table import rules_table

FOLDER = SCENARIOS / "claudeless"
SOURCES = {p.name: p.read_text() for p in sorted(FOLDER.glob("*")) if p.suffix in (".toml", ".json")}
TOML_NOISE = ["[", "]", "[[", "{", "}", "=", '"', "'''", '"""', "\n", "#", ".", ",", "\\u", "1979-05-27T07:32:00Z",
              "$file", "on", "pattern", "-1", "nan", "\t", "\r\n"]  # fmt: skip
# keys worth dropping in to reach the loader's rarer branches
KEYS = ["pattern", "response", "on", "say", "then", "turns", "$file", "type", "failure", "tools", "tool_calls",
        "input", "max", "max_matches", "expect", "claude", "default", "mode", "approve", "answers", "usage"]  # fmt: skip
ENV_NAMES = ["CLAUDELESS_EXIT_HINT_TIMEOUT_MS", "CLAUDELESS_COMPACT_DELAY_MS", "CLAUDELESS_HOOK_TIMEOUT_MS",
             "CLAUDELESS_MCP_TIMEOUT_MS", "CLAUDELESS_RESPONSE_DELAY_MS"]  # fmt: skip
envs = st.dictionaries(
    st.sampled_from(ENV_NAMES), st.one_of(st.sampled_from(["0", "5", "+7", "-1", " 3", "x", "", "99999999999999999999"]),
                                          st.text(max_size=4)), max_size=3
)  # fmt: skip


def _toml_key(key: str) -> str:
    return key if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key) else json.dumps(key)


def _toml_value(value: Any) -> str | None:
    """An inline TOML rendering of JSON-like data; None for what TOML cannot hold (null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if not (isinstance(value, float) and not math.isfinite(value)) else None
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        items = [v for v in (_toml_value(v) for v in value) if v is not None]
        return "[" + ", ".join(items) + "]"
    if isinstance(value, dict):
        pairs = [(k, _toml_value(v)) for k, v in value.items()]
        return "{ " + ", ".join(f"{_toml_key(k)} = {v}" for k, v in pairs if v is not None) + " }"
    return None


def to_toml(doc: Any) -> str:
    """A TOML document of top-level ``key = inline value`` lines (not a table: invalid TOML, on purpose)."""
    if not isinstance(doc, dict):
        return f"value = {_toml_value(doc)}\n"
    lines = [
        f"{_toml_key(k)} = {v}" for k, v in ((k, _toml_value(v)) for k, v in doc.items()) if v is not None
    ]
    return "\n".join(lines) + "\n"


def _folder(tmp_path_factory: Any) -> Path:
    folder: Path = tmp_path_factory.mktemp("c")
    (folder / "_data").mkdir()
    for extra in (FOLDER / "_data").iterdir():
        (folder / "_data" / extra.name).write_bytes(extra.read_bytes())
    return folder


def load_only_with_diagnostics(path: Path, env: dict[str, str]) -> None:
    """Load; a ScenarioError must carry positioned diagnostics; any other exception fails the test."""
    reporter = Reporter()
    try:
        scenario = load_scenario(path, env=env, reporter=reporter)
    except ScenarioError as exc:
        assert exc.diagnostics, "a ScenarioError must carry diagnostics"
        for d in exc.diagnostics:
            assert d.pos.line >= 1 and d.pos.col >= 1 and d.message
        return
    for d in reporter.diagnostics:
        assert d.pos.line >= 1 and d.pos.col >= 1 and d.message
    compile_schedule(scenario)
    assert rules_table(scenario)


@settings(
    max_examples=300,
    suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture],
)
@given(name=st.sampled_from(sorted(SOURCES)), as_toml=st.booleans(), env=envs, data=st.data())
def test_structural_mutations_raise_only_diagnostics(
    tmp_path_factory: Any, name: str, as_toml: bool, env: dict[str, str], data: st.DataObject
) -> None:
    source = SOURCES[name]
    doc = json.loads(source) if name.endswith(".json") else tomllib.loads(source)
    for _ in range(data.draw(st.integers(1, 3))):
        places = paths(doc)
        leaves = [p for p in places if not isinstance(get(doc, p), dict | list)] or places
        target = data.draw(st.sampled_from(leaves) if data.draw(st.booleans()) else st.sampled_from(places))
        if data.draw(st.booleans()) and isinstance(get(doc, target), dict):
            node = dict(get(doc, target))
            node[data.draw(st.sampled_from(KEYS))] = data.draw(values)
            doc = replace(doc, target, node)
        else:
            doc = replace(doc, target, data.draw(values))
    folder = _folder(tmp_path_factory)
    if as_toml:
        path = folder / (Path(name).stem + ".toml")
        path.write_text(to_toml(doc))
    else:
        path = folder / (Path(name).stem + ".json")
        path.write_text(json.dumps(doc, default=str))
    load_only_with_diagnostics(path, env)


@settings(
    max_examples=300,
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
            text = text[:at] + data.draw(st.sampled_from(TOML_NOISE)) + text[at:]
        else:
            end = min(len(text), at + data.draw(st.integers(1, 60)))
            text = text[:end] + text[at:end] + text[end:]
    path = _folder(tmp_path_factory) / name
    path.write_text(text)
    load_only_with_diagnostics(path, {})


def test_the_toml_writer_round_trips_the_examples() -> None:
    """The structural test's TOML rendering must be faithful, or it would fuzz something else."""
    for name, source in SOURCES.items():
        doc = json.loads(source) if name.endswith(".json") else tomllib.loads(source)
        assert tomllib.loads(to_toml(doc)) == doc, name
