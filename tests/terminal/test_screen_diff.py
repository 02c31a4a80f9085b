"""The headless screen comparison the app and the report both draw: spans of changed cells per row."""

from __future__ import annotations

from workbench.terminal.screen_diff import Span, diff_screens


def test_equal_screens_have_no_changed_cells() -> None:
    diff = diff_screens("hello\nworld", "hello\nworld", 8, 3)
    assert diff.same and diff.changed_rows == () and diff.changed_cells == 0
    assert diff.after[0] == (Span("hello   ", False),)
    assert len(diff.before) == len(diff.after) == 3  # the full height, blank rows included


def test_changed_cells_are_marked_on_both_sides_as_runs() -> None:
    diff = diff_screens("$ ls\nfoo bar", "$ ls\nfoo baz", 10, 2)
    assert diff.changed_rows == (1,) and diff.changed_cells == 1
    assert diff.before[1] == (Span("foo ba", False), Span("r", True), Span("   ", False))
    assert diff.after[1] == (Span("foo ba", False), Span("z", True), Span("   ", False))


def test_a_missing_row_counts_every_cell_it_had() -> None:
    diff = diff_screens("", "abc", 3, 1)
    assert diff.changed_cells == 3 and diff.before[0] == (Span("   ", True),)


def test_wide_characters_keep_their_two_cells() -> None:
    diff = diff_screens("日本", "日x", 4, 1)
    # the second character's two cells differ from "x" and a blank
    assert "".join(s.text for s in diff.before[0]) == "日本"
    assert [s.changed for s in diff.after[0]] == [False, True]
    assert diff.changed_cells == 2
