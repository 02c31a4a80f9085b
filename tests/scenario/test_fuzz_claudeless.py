"""Property: mutated Claudeless scenarios (TOML and JSON) load or raise our diagnostics, nothing else."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SCENARIOS
from tests.scenario.test_fuzz import _get, _paths, _replace, load_and_compile, values

FOLDER = SCENARIOS / "claudeless"
SOURCES = {p.name: p.read_text() for p in sorted(FOLDER.glob("*")) if p.suffix in (".toml", ".json")}
TOML_NOISE = ["[", "]", "[[", "{", "}", "=", '"', "'''", "\n", "#", ".", ",", "\\u", "1979-05-27T07:32:00Z"]


def _folder(tmp_path_factory: Any) -> Path:
    folder: Path = tmp_path_factory.mktemp("c")
    (folder / "_data").mkdir()
    for extra in (FOLDER / "_data").iterdir():
        (folder / "_data" / extra.name).write_bytes(extra.read_bytes())
    return folder


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(SOURCES)), data=st.data())
def test_structural_mutations_raise_only_diagnostics(
    tmp_path_factory: Any, name: str, data: st.DataObject
) -> None:
    source = SOURCES[name]
    doc = json.loads(source) if name.endswith(".json") else tomllib.loads(source)
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(doc)
        leaves = [p for p in paths if not isinstance(_get(doc, p), dict | list)] or paths
        target = data.draw(st.sampled_from(leaves) if data.draw(st.booleans()) else st.sampled_from(paths))
        doc = _replace(doc, target, data.draw(values))
    path = _folder(tmp_path_factory) / (Path(name).stem + ".json")
    path.write_text(json.dumps(doc, default=str))
    load_and_compile(path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
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
    load_and_compile(path)
