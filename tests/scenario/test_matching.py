"""Claudeless regexes (Rust `regex` syntax) are matched by Python's `re` after a faithful rewrite."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.conftest import write
from workbench.scenario import model as m
from workbench.scenario.diagnostics import Reporter
from workbench.scenario.loader import load_scenario
from workbench.scenario.matching import Untranslatable, matches, python_regex


@pytest.mark.parametrize(
    ("pattern", "hit", "miss"),
    [
        (r"fix\z", "please fix", "fix it"),
        (r"(?<w>fix)", "a fix", "fox"),
        (r"^\p{L}+$", "héllo", "he11o"),
        (r"^\P{L}+$", "123 !", "a1"),
        (r"^\p{Nd}+$", "٣4", "4a"),
        (r"^[[:digit:]]+$", "2024", "２０"),  # POSIX classes are ASCII in Rust
        (r"a(?i)b", "aB", "Ab"),  # a flag in mid-pattern runs to the end of its group
        (r"(a(?i)b)c", "aBc", "aBC"),
        (r"(?i-s:x.)y", "X\ty", "x\ny"),
        (r"(?u)café", "café", "cafe"),
    ],
)
def test_rust_spellings_match_what_they_mean(pattern: str, hit: str, miss: str) -> None:
    rule = m.Pattern("regex", pattern)
    assert matches(rule, hit) and not matches(rule, miss)


def test_what_python_cannot_express_is_a_warning_at_the_pattern_and_never_matches(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.toml",
        '[[responses]]\npattern = { type = "regex", pattern = "\\\\p{Greek}" }\nresponse = "x"\n',
    )
    reporter = Reporter()
    scenario = load_scenario(path, reporter=reporter, env={})
    [warning] = reporter.warnings
    assert (warning.pos.line, warning.pos.col) == (2, 39) and "never matches" in warning.message
    assert scenario.rules is not None and not matches(scenario.rules.rules[0].pattern, "αβγ")
    for pattern in ("[\\p{L}]", "(?U)a+", "[a[b]]"):
        with pytest.raises(Untranslatable):
            python_regex(pattern)


plain = st.text(alphabet="ab.*+?|^$(){}0123,", max_size=20)


@given(plain)
@example("(?)")  # found by Hypothesis: the empty flag group was dropped, so an invalid pattern matched all
@example("a(?)b")
def test_a_pattern_without_rust_only_syntax_is_unchanged(pattern: str) -> None:
    assert python_regex(pattern) == pattern


@given(st.text(alphabet="ab.*+?|^$(){}[]:\\-pPzLi<>=!&~", max_size=24))
@example("[]|||]")  # found by Hypothesis: Python warns "Possible set union"
@example("[a&&b]")
@example("[^--a]")
def test_the_rewrite_never_fails_any_other_way(pattern: str) -> None:
    try:
        rewritten = python_regex(pattern)
    except Untranslatable:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # Python's own remarks on the text as written
        try:
            re.compile(pattern)
        except re.error:
            return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # what the matcher compiles never warns
        re.compile(rewritten)
    if "\\" not in pattern and "(?" not in pattern and "[" not in pattern:
        assert rewritten == pattern


def test_set_operations_in_a_class_are_refused_and_a_doubled_bar_stays_literal() -> None:
    for pattern in ("[a-z&&[aeiou]]", "[a-z&&b]", "[0-9--4]", "[a-g~~b-h]"):
        with pytest.raises(Untranslatable):
            python_regex(pattern)
    rewritten = python_regex("[a||b]+")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert re.fullmatch(rewritten, "a|b|") and not re.fullmatch(rewritten, "c")
