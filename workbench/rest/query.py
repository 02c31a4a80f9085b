"""The query parameters of the events listing and stream: filters, paging, sort; checked, never guessed.

``type`` and ``level`` take comma-separated names (an unknown one is an error
naming the allowed ones); ``since`` / ``until`` are ISO times, inclusive;
``page`` (from 1) and ``perPage`` (default 50, at most 200) page the listing;
``sort`` is ``asc`` (default) or ``desc``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from workbench.digits import is_digits

from .events import EVENT_TYPES, LEVELS, parse_ts

if TYPE_CHECKING:
    from multidict import MultiMapping  # aiohttp's request.query

PER_PAGE = 50
MAX_PER_PAGE = 200
PARAMS = ("type", "level", "since", "until", "page", "perPage", "sort")


class QueryError(ValueError):
    """A parameter that is not allowed or not valid; the message says what is."""


@dataclass(frozen=True)
class EventQuery:
    types: frozenset[str] | None = None
    levels: frozenset[str] | None = None
    since: datetime | None = None
    until: datetime | None = None
    page: int = 1
    per_page: int = PER_PAGE
    descending: bool = False
    paged: bool = False  # page, perPage or sort was given: the caller wants a listing

    def matches(self, event: Mapping[str, Any]) -> bool:
        if self.types is not None and event.get("type") not in self.types:
            return False
        if self.levels is not None and event.get("level") not in self.levels:
            return False
        if self.since is not None or self.until is not None:
            try:
                when = parse_ts(str(event.get("ts", "")))
            except ValueError:
                return False
            if self.since is not None and when < self.since:
                return False
            if self.until is not None and when > self.until:
                return False
        return True


def parse_query(query: MultiMapping[str]) -> EventQuery:
    unknown = sorted(set(query) - set(PARAMS))
    if unknown:
        raise QueryError(f"unknown parameter `{unknown[0]}`; allowed: {', '.join(PARAMS)}")
    params: dict[str, str] = {}
    for key in set(query):
        values = query.getall(key)
        if key in LISTS:  # `type=a&type=b` is `type=a,b`: how clients send a list
            params[key] = ",".join(values)
        elif len(values) > 1:
            raise QueryError(f"`{key}` is given {len(values)} times; give it once")
        else:
            params[key] = values[0]
    return EventQuery(
        types=_names(params, "type", EVENT_TYPES),
        levels=_names(params, "level", LEVELS),
        since=_time(params, "since"),
        until=_time(params, "until"),
        page=_int(params, "page", 1, None),
        per_page=_int(params, "perPage", PER_PAGE, MAX_PER_PAGE),
        descending=_sort(params) == "desc",
        paged=any(k in params for k in ("page", "perPage", "sort")),
    )


LISTS = ("type", "level")
"""The parameters that take a list (comma-separated, or repeated)."""


def _names(params: Mapping[str, str], key: str, allowed: tuple[str, ...]) -> frozenset[str] | None:
    if key not in params:
        return None
    names = [n.strip() for n in params[key].split(",") if n.strip()]
    if not names:
        raise QueryError(f"`{key}` is empty; give one or more of: {', '.join(allowed)}")
    for name in names:
        if name not in allowed:
            raise QueryError(f"`{key}={name}` is not known; allowed: {', '.join(allowed)}")
    return frozenset(names)


def _time(params: Mapping[str, str], key: str) -> datetime | None:
    if key not in params:
        return None
    try:
        return parse_ts(params[key])
    except ValueError:
        raise QueryError(
            f"`{key}` must be an ISO time such as 2025-01-01T12:00:00Z, got {params[key]!r}"
        ) from None


def _int(params: Mapping[str, str], key: str, default: int, maximum: int | None) -> int:
    if key not in params:
        return default
    text = params[key]
    if not is_digits(text) or int(text) < 1:
        raise QueryError(f"`{key}` must be a whole number from 1, got {text!r}")
    if maximum is not None and int(text) > maximum:
        raise QueryError(f"`{key}` is at most {maximum}, got {text}")
    return int(text)


def _sort(params: Mapping[str, str]) -> str:
    value = params.get("sort", "asc")
    if value not in ("asc", "desc"):
        raise QueryError(f"`sort` is `asc` or `desc`, got {value!r}")
    return value
