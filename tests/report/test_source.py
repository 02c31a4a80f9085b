"""The report's source highlighter: each line complete HTML, token kinds as classes, text unchanged."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from workbench.report.source import highlight


def test_keys_strings_numbers_literals_and_comments_of_yaml_json_and_toml() -> None:
    assert highlight('  - userInputs: [[0, "echo #hi"]]  # typed') == (
        '  - <span class="k">userInputs</span>: [[<span class="n">0</span>, <span class="s">"echo #hi"</span>]]'
        '  <span class="c"># typed</span>'
    )
    assert highlight('"name": "x", "n": 12') == (
        '<span class="k">"name"</span>: <span class="s">"x"</span>, <span class="k">"n"</span>: <span class="n">12</span>'
    )
    assert highlight("[[rules]]") == '<span class="t">[[rules]]</span>'
    assert highlight("ok = true") == '<span class="k">ok</span> = <span class="l">true</span>'
    assert highlight("say: I'll go, url http://a#b") == '<span class="k">say</span>: I\'ll go, url http://a#b'


@given(st.text())
def test_the_text_of_any_line_is_kept_and_escaped(line: str) -> None:
    out = highlight(line)
    assert html.unescape(re.sub(r"</?span[^>]*>", "", out)) == line
    assert "<" not in re.sub(r"</?span[^>]*>", "", out)
