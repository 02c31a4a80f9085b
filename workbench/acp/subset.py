"""Subset matching of JSON values: what a scenario says must be in what the other side sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def subset(want: Any, got: Any, where: str) -> str | None:
    """None if everything in ``want`` is in ``got`` with the same value (mappings compared by key)."""
    if isinstance(want, Mapping):
        if not isinstance(got, Mapping):
            return f"`{where}` is {got!r}, expected {dict(want)!r}"
        for key, value in want.items():
            if key in ("meta", "_meta"):
                continue
            if key not in got:
                return f"`{where}.{key}` is missing, expected {value!r}"
            if problem := subset(value, got[key], f"{where}.{key}"):
                return problem
        return None
    return None if want == got else f"`{where}` is {got!r}, expected {want!r}"
