"""Masks blank out volatile text so goldens stay stable while the rest is compared exactly."""

from __future__ import annotations

from workbench.scenario.user_regex import UserRegex
from workbench.terminal.masks import mask_row, mask_shot
from workbench.terminal.shot import Shot


def test_each_match_becomes_one_star_and_the_row_keeps_its_width() -> None:
    patterns = [UserRegex(r"\d+(\.\d+)?s", "a mask"), UserRegex(r"v\d+\.\d+\.\d+", "a mask")]
    assert mask_row("Cooked for 12.5s  (v2.1.197)", patterns, 32) == "Cooked for *  (*)".ljust(32)
    assert mask_row("Cooked for 3s  (v2.1.9)", patterns, 32) == "Cooked for *  (*)".ljust(32)
    assert mask_row("x" * 40, [UserRegex("y", "a mask")], 32) == "x" * 32


def test_mask_shot_changes_only_the_text_rows() -> None:
    shot = Shot(width=10, height=2, rows=("took 15ms".ljust(10), "same".ljust(10)), cursor=(1, 4))
    masked = mask_shot(shot, [UserRegex(r"\d+ms", "a mask")])
    assert masked.rows == ("took *".ljust(10), "same".ljust(10))
    assert masked.cursor == shot.cursor and masked.width == 10
    assert mask_shot(shot, []) is shot
