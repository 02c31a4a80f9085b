"""Two texts side by side with the words that differ marked: what the scenario has and what the run saw.

A screenshot is compared cell by cell (:mod:`workbench.terminal.screen_diff`); a text
such as a prompt has no grid, so it is compared word by word (a word, a run of blanks
or one punctuation mark is a token), as a person reads it: a word changed, added or
left out is marked on the side that has it. Each side is a list of ``[text, changed]``
pieces the page turns into spans.
"""

from __future__ import annotations

import difflib
import re

MAX_CHARS = 10_000  # a side longer than this is cut (the page says how much more there was)
_TOKENS = re.compile(r"\w+|\s+|[^\w\s]")

Piece = list[str | bool]


def _cut(text: str) -> tuple[str, int]:
    return (text, 0) if len(text) <= MAX_CHARS else (text[:MAX_CHARS], len(text) - MAX_CHARS)


def _pieces(tokens: list[str], marks: list[bool]) -> list[Piece]:
    out: list[Piece] = []
    for token, changed in zip(tokens, marks, strict=True):
        if out and out[-1][1] == changed:
            out[-1][0] = str(out[-1][0]) + token
        else:
            out.append([token, changed])
    return out


def side_by_side(expected: str, actual: str) -> dict[str, object]:
    """``{"expected": pieces, "actual": pieces, "cut": [chars cut from each side]}``."""
    (a_text, a_cut), (b_text, b_cut) = _cut(expected), _cut(actual)
    a, b = _TOKENS.findall(a_text), _TOKENS.findall(b_text)
    a_marks, b_marks = [True] * len(a), [True] * len(b)
    for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        a_marks[block.a : block.a + block.size] = [False] * block.size
        b_marks[block.b : block.b + block.size] = [False] * block.size
    for tokens, marks in ((a, a_marks), (b, b_marks)):  # a blank between two changed words is changed too
        for n, token in enumerate(tokens):
            if token.isspace() and 0 < n < len(tokens) - 1 and marks[n - 1] and marks[n + 1]:
                marks[n] = True
    return {"expected": _pieces(a, a_marks), "actual": _pieces(b, b_marks), "cut": [a_cut, b_cut]}
