"""Typed access to parsed mappings, with diagnostics that say what was expected.

Loaders read fields through these helpers so that a wrong type anywhere becomes
``file:line:col: error: `key` must be <type>, got <type>`` rather than an
exception from deep inside the model.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .diagnostics import Pos, Reporter, ScenarioError, did_you_mean
from .source import PList, PMap

_TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    type(None): "null",
    PMap: "a mapping",
    PList: "a list",
}


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, PMap | dict):
        return "a mapping"
    if isinstance(value, PList | list):
        return "a list"
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def wrong_type(pos: Pos, what: str, expected: str, value: Any) -> ScenarioError:
    return ScenarioError.at(pos, f"{what} must be {expected}, got {type_name(value)}")


def expect_map(value: Any, pos: Pos, what: str) -> PMap:
    if not isinstance(value, PMap):
        raise wrong_type(pos, what, "a mapping", value)
    return value


def expect_list(value: Any, pos: Pos, what: str) -> PList:
    if not isinstance(value, PList):
        raise wrong_type(pos, what, "a list", value)
    return value


def as_str(value: Any, pos: Pos, what: str, *, allow_scalars: bool = False) -> str:
    if isinstance(value, str):
        return value
    if allow_scalars and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise wrong_type(pos, what, "a string", value)


MAX_INT = 2**53 - 1
"""The largest integer a scenario may hold: above it JSON readers and float time lose precision."""


def as_int(value: Any, pos: Pos, what: str, *, minimum: int | None = 0, maximum: int = MAX_INT) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise wrong_type(
                pos, what, "an integer" if minimum is None else f"an integer >= {minimum}", value
            )
    if minimum is not None and value < minimum:
        raise ScenarioError.at(pos, f"{what} must be >= {minimum}, got {_shown(value)}")
    if value > maximum or (minimum is None and value < -maximum):
        raise ScenarioError.at(pos, f"{what} must be at most {maximum:,} in size, got {_shown(value)}")
    return int(value)


def _shown(value: int) -> str:
    """An integer for a message: a 4,000-digit one is described, not printed."""
    text = str(value)
    return text if len(text) <= 24 else f"a {len(text.lstrip('-'))}-digit number"


def as_bool(value: Any, pos: Pos, what: str) -> bool:
    if not isinstance(value, bool):
        raise wrong_type(pos, what, "true or false", value)
    return value


def as_str_list(value: Any, pos: Pos, what: str) -> tuple[str, ...]:
    """A list of strings; a single string is accepted as a one-item list."""
    if isinstance(value, str):
        return (value,)
    seq = expect_list(value, pos, what)
    return tuple(as_str(v, p, f"{what} item", allow_scalars=True) for v, p in seq.items_with_pos())


def choice(value: Any, pos: Pos, what: str, allowed: Iterable[str]) -> str:
    allowed = tuple(allowed)
    text = as_str(value, pos, what)
    if text not in allowed:
        raise ScenarioError.at(
            pos, f"{what} `{text}` is not allowed; {did_you_mean(text, allowed, 'expected one of')}"
        )
    return text


def to_plain(value: Any) -> Any:
    """Strip position containers, for payloads handed through to runners."""
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    return value


def warn_unknown(
    m: PMap, known: Iterable[str], where: str, reporter: Reporter, *, top_level: bool = False
) -> None:
    """Agent Harbor is forward compatible: unknown keys are ignored with a warning.

    Each names the nearest known key when one is close. Inside a known
    structure (``top_level`` False) a strict reporter makes them errors.
    """
    known = tuple(known)
    for key in m:
        if key not in known:
            reporter.unknown(
                m.at_key(key),
                f"unknown key `{key}` in {where}",
                did_you_mean(key, known, "known keys:"),
                top_level=top_level,
            )


def require(m: PMap, key: str, what: str) -> Any:
    if key not in m:
        raise ScenarioError.at(m.pos, f"{what} needs `{key}`")
    return m[key]
