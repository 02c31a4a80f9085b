"""Two texts side by side, word by word: each side is its text again, cut into pieces marked as changed or not."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import example, given
from hypothesis import strategies as st

from workbench.report.text_diff import MAX_CHARS, side_by_side


def joined(pieces: object) -> str:
    assert isinstance(pieces, list)
    return "".join(str(text) for text, _ in pieces)


def test_the_words_each_side_has_that_the_other_has_not_are_marked() -> None:
    diff = side_by_side("Write a haiku", "Please, write a haiku in Python")
    assert diff["expected"] == [["Write", True], [" a haiku", False]]
    assert diff["actual"] == [["Please, write", True], [" a haiku", False], [" in Python", True]]
    assert diff["cut"] == [0, 0]


def test_equal_texts_have_nothing_marked_and_a_long_side_is_cut_where_the_page_says() -> None:
    assert side_by_side("same text", "same text")["actual"] == [["same text", False]]
    long = "word " * (MAX_CHARS // 5 + 100)
    diff = side_by_side("word", long)
    assert len(joined(diff["actual"])) == MAX_CHARS and diff["cut"] == [0, len(long) - MAX_CHARS]


@given(st.text(max_size=200), st.text(max_size=200))
@example("a  b", "a b")
@example("", "x")
def test_each_side_is_its_text_again_in_pieces_that_alternate(expected: str, actual: str) -> None:
    diff = side_by_side(expected, actual)
    assert joined(diff["expected"]) == expected and joined(diff["actual"]) == actual
    for side in ("expected", "actual"):
        pieces = diff[side]
        assert isinstance(pieces, list)
        assert all(text for text, _ in pieces), "no empty piece"
        assert all(a[1] != b[1] for a, b in pairwise(pieces)), "neighbours differ in mark"
    if expected == actual:
        assert diff["actual"] == ([[actual, False]] if actual else [])
