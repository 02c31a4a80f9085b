"""A tab in YAML's indentation: libyaml says "found character that cannot start any token", which does not
name the tab; the diagnostic does, at its place, with the way out."""

from __future__ import annotations

import pytest

from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.source import parse_yaml


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        ("name: t\ntimeline:\n\t- screenshot: a\n", 3, 1),
        ("name: t\r\ntimeline:\r\n\t- screenshot: a\r\n", 3, 1),
        ("name: é😀\rtimeline:\r\t- screenshot: a\r", 3, 1),
        ("name: t\ntimeline:\n  - assert:\n      fs:\n\texists: [a]\n", 5, 1),
        ("a:\n  - b\n  \t- c\n", 3, 3),
    ],
)
def test_a_tab_in_yaml_s_indentation_is_named_as_a_tab_at_its_place(text: str, line: int, col: int) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_yaml(text, "s.yaml")
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.pos.line, diagnostic.pos.col) == (line, col), diagnostic
    assert diagnostic.message.endswith(
        "the character there is a tab: YAML indents with spaces only, so replace it with spaces"
    )
