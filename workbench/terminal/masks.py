"""Masks: volatile text (timings, versions, paths, ids) blanked out of a screenshot before comparison.

Each match of a mask's regular expression, searched row by row, becomes one
``*``; the row is then padded (or cut) back to the screen's width. The text
after a match moves when the match is shorter, the same way on every run, so a
golden written with masks stays stable while the rest of the screen is still
compared exactly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TypeVar

from wcwidth import wcswidth

from workbench.scenario.user_regex import UserRegex

MASK = "*"
T = TypeVar("T")


def mask_row(row: str, patterns: Sequence[UserRegex], width: int) -> str:
    for pattern in patterns:
        row = pattern.sub(MASK, row)
    row = row.rstrip(" ")
    shown = wcswidth(row)
    shown = len(row) if shown < 0 else shown
    while shown > width and row:
        row = row[:-1]
        shown -= 1
    return row + " " * (width - shown)


def mask_shot(shot: T, masks: Sequence[UserRegex]) -> T:
    """``shot`` (a :class:`~.shot.Shot`) with every mask applied to its text rows; a mask that backtracks
    without end raises :class:`~workbench.scenario.user_regex.PatternTooSlow`."""
    if not masks:
        return shot
    rows = tuple(mask_row(row, masks, shot.width) for row in shot.rows)  # type: ignore[attr-defined]
    return dataclasses.replace(shot, rows=rows)  # type: ignore[type-var]
