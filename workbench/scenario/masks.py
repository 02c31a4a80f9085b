"""What a mask (a regular expression for volatile screen text, `masks:` or `--mask`) may be.

Each match of a mask becomes one ``*`` (:mod:`workbench.terminal.masks`). A
pattern that matches no characters at all (``''``, ``\\d*``) matches between
every two characters of every row, and the screen turns into ``* * * *``:
checked where masks are given, so it is refused there, not found in a diff.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import zip_longest

from .model import Scenario
from .user_regex import UserRegex


def scenario_masks(scenario: Scenario) -> tuple[UserRegex, ...]:
    """The scenario's `masks`, each with the place it is written."""
    return tuple(
        UserRegex(pattern, "`masks` item", pos)
        for pattern, pos in zip_longest(scenario.masks, scenario.mask_places[: len(scenario.masks)])
    )


def option_masks(masks: Sequence[str]) -> tuple[UserRegex, ...]:
    """The masks of ``--mask`` options."""
    return tuple(UserRegex(pattern, "--mask") for pattern in masks)


def mask_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a mask, or None."""
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        return f"{pattern!r} is not a valid regular expression: {exc}"
    if compiled.search("") is not None:
        return (
            f"`{pattern}` matches the empty string, so it would put a `*` between every two characters; "
            "give a pattern that matches at least one character (`+` rather than `*`)"
        )
    return None
