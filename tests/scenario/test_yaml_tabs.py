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


@pytest.mark.parametrize(
    ("text", "line", "col", "code"),
    [
        ('name: t\ntimeline:\n  - log: "a\x1bb"\n', 3, 12, "001B"),
        ('name: é😀\ntimeline:\n  - log: "aé\x00"\n', 3, 13, "0000"),  # libyaml counts UTF-8 bytes
        ("name: t\r\ntimeline:\r\n  - log: x\x7f\r\n", 3, 11, "007F"),
        ("\x07name: t\n", 1, 1, "0007"),
    ],
)
def test_a_character_yaml_does_not_allow_is_named_at_its_line_and_column(
    text: str, line: int, col: int, code: str
) -> None:
    """It was placed at 1:1 with PyYAML's words "in <unicode string>, position N" (libyaml's N in bytes)."""
    with pytest.raises(ScenarioError) as caught:
        parse_yaml(text, "s.yaml")
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.pos.line, diagnostic.pos.col) == (line, col), diagnostic
    assert f"the file holds the character U+{code}, which YAML does not allow" in diagnostic.message
    assert f'"\\u{code.lower()}"' in diagnostic.message and "position" not in diagnostic.message
