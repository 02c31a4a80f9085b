"""A key given twice in a TOML file (Claudeless rules) is named, at its own place; tomllib's own words
were `Cannot overwrite a value` at the end of the line."""

from __future__ import annotations

import pytest

from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.source import parse_toml


@pytest.mark.parametrize(
    ("text", "line", "col", "key"),
    [
        ('[[responses]]\nresponse = "y"\nresponse = "z"\n', 3, 1, "response"),
        ('name = "x"\n[[responses]]\n  a . "b c" = 1\n  a."b c" = 2\n', 4, 3, 'a."b c"'),
        ("x = 1\n'x' = 2\n", 2, 1, "'x'"),
    ],
)
def test_a_key_given_twice_is_named_at_its_second_place(text: str, line: int, col: int, key: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_toml(text, "rules.toml")
    (d,) = caught.value.diagnostics
    assert (d.pos.line, d.pos.col) == (line, col)
    assert d.message == f"Failed to parse TOML: duplicate key `{key}`: a key is given once in its table"


def test_other_toml_errors_keep_tomllib_s_words() -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_toml("[t]\nx = 1\n[t]\n", "rules.toml")
    assert caught.value.diagnostics[0].message.startswith("Failed to parse TOML: Cannot declare")
