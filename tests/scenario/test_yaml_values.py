"""Any YAML value written where a scenario expects another (a newcomer's `result: !!binary ...`, `cmd: 5`,
`status: .nan`) is a diagnostic at its place, or accepted: loading and compiling never raise."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.conftest import SCENARIOS
from workbench.timeline.prepare import prepare

VALUES = st.sampled_from([
    "0", "-1", "[]", "{}", "null", "true", "'x'", "1e3", "[1, 2]", "{a: 1}", '"\\t"', "~", "''", "!!binary aGk=",
    "2024-01-01", "2024-01-01T10:00:00Z", ".inf", ".nan", "-0", "0x1F", "1_000", "!!set {a}", "!!omap [a: 1]",
    "!!str 5", "!!float 1", "!!int '7'", "!!null ''", "[[1, a], {b: [c]}]", "!!pairs [a: 1]", "=", "<<",
])  # fmt: skip
HELLO = (SCENARIOS / "hello-agent.yaml").read_text(encoding="utf-8").splitlines()
VALUE_LINES = [i for i, line in enumerate(HELLO) if ":" in line and not line.lstrip().startswith("#")]


@settings(
    max_examples=200,
    suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture],
)
@given(line=st.sampled_from(VALUE_LINES), value=VALUES, strict=st.booleans())
@example(
    line=next(i for i, t in enumerate(HELLO) if "result: Hello" in t), value="!!binary aGk=", strict=False
)
def test_any_value_anywhere_in_a_scenario_is_a_diagnostic_or_accepted(
    tmp_path: Path, line: int, value: str, strict: bool
) -> None:
    lines = list(HELLO)
    key, _, _ = lines[line].partition(":")
    lines[line] = f"{key}: {value}"
    path = tmp_path / "hello.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    prepared = prepare(path, strict=strict)  # never raises
    assert prepared.ok or prepared.errors
    for d in prepared.errors:
        assert 1 <= d.pos.line <= len(lines) and d.pos.col >= 1


def test_binary_is_refused_at_its_place(tmp_path: Path) -> None:
    path = tmp_path / "b.yaml"
    path.write_text(
        "name: b\ntimeline:\n  - runCmd:\n      cmd: echo\n      result: !!binary aGk=\n", encoding="utf-8"
    )
    (error,) = prepare(path).errors
    assert (error.pos.line, error.pos.col) == (5, 15)
    assert (
        error.message
        == "a `!!binary` value: a scenario holds text, numbers and booleans; write it as a string"
    )


@pytest.mark.parametrize("value", ["!!binary aGk=", "!!set {a}"])
def test_odd_yaml_values_at_the_top_never_raise(tmp_path: Path, value: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(f"name: {value}\ntimeline:\n  - log: {value}\n", encoding="utf-8")
    prepare(path)
