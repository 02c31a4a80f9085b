"""Globs: every pattern compiles (or is refused with a message), and classes mean what fnmatch says."""

from __future__ import annotations

import fnmatch
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from workbench.workspace.globs import MAX_BRACE_DEPTH, GlobError, glob_match, glob_regex, name_match

SPECIAL = "[]!^-*?{},/\\ab."


@settings(max_examples=2000)
@given(pattern=st.text(alphabet=SPECIAL, max_size=24) | st.text(max_size=12))
@example(pattern="[]")
@example(pattern="[!]")
@example(pattern="[]a]")
@example(pattern="[^]")
@example(pattern="[z-a]")
@example(pattern="[!z-a]")
@example(pattern="[\\]")
@example(pattern="{[,]}")
@example(pattern="{" * (MAX_BRACE_DEPTH + 5))
@example(pattern="{" * (MAX_BRACE_DEPTH + 5) + "}" * (MAX_BRACE_DEPTH + 5))
def test_every_pattern_compiles_or_is_refused_with_a_message(pattern: str) -> None:
    try:
        regex = glob_regex(pattern)
    except GlobError as exc:
        assert pattern in str(exc)
        return
    assert isinstance(regex, re.Pattern)
    glob_match("a/b.c", pattern)  # and matching never raises


@settings(max_examples=2000)
@given(pattern=st.text(alphabet="ab![]*?.", max_size=10), name=st.text(alphabet="ab![].", max_size=6))
@example(pattern="[]", name="[]")
@example(pattern="[!]", name="[!]")
@example(pattern="[]a]", name="]")
@example(pattern="[!]a]", name="b")
def test_names_match_as_fnmatch_says(pattern: str, name: str) -> None:
    assert name_match(name, pattern) == fnmatch.fnmatchcase(name, pattern)


@pytest.mark.parametrize(
    ("pattern", "text", "ok"),
    [
        ("[]", "[]", True),  # no closing bracket after the first `]`: both are literal
        ("[!]", "[!]", True),
        ("[]a]", "]", True),  # a `]` first in a class is a member
        ("[]a]", "a", True),
        ("[]a]", "b", False),
        ("[!]a]", "b", True),
        ("[!]a]", "]", False),
        ("[z-a]", "b", False),  # a reversed range matches nothing
        ("[!z-a]", "b", True),
        ("[a-c]", "b", True),
        ("[a-]", "-", True),  # a `-` last is a member
        ("[^a]", "b", True),  # `^` negates as `!` does (ripgrep's globs)
        ("a[/]b", "a/b", False),  # a class never matches a folder separator
        ("a[!x]b", "a/b", False),
        ("[\\]", "\\", True),  # a backslash in a class is itself
    ],
)
def test_classes(pattern: str, text: str, ok: bool) -> None:
    assert glob_match(text, pattern) is ok


def test_braces_too_deep_are_refused_by_name() -> None:
    deep = "{a," * (MAX_BRACE_DEPTH + 1) + "b" + "}" * (MAX_BRACE_DEPTH + 1)
    with pytest.raises(GlobError, match="braces nested more than"):
        glob_regex(deep)
    shallow = "{a," * MAX_BRACE_DEPTH + "b" + "}" * MAX_BRACE_DEPTH
    assert glob_match("b", shallow)
