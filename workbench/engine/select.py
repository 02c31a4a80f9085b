"""Which scenarios a run takes: `-k` expressions, `--tags`, and `--shard I/N`.

`-k` works like pytest's: words match as case-insensitive substrings of the
scenario's name or file path, combined with `and`, `or`, `not` and parentheses.
`--tags a,b` keeps scenarios that have at least one of the tags. `--shard I/N`
deals the selected scenarios, sorted by file and name, round-robin into N
shards and keeps shard I (1-based), so a CI matrix covers each exactly once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from workbench.records import frozen

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


class SelectionError(ValueError):
    """A malformed -k expression, tag list or shard spec."""


@frozen
class Shard:
    index: int  # 1-based
    total: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not m:
            raise SelectionError(f"--shard `{text}`: expected I/N, e.g. 1/4")
        index, total = int(m.group(1)), int(m.group(2))
        if total < 1 or not 1 <= index <= total:
            raise SelectionError(f"--shard `{text}`: I must be between 1 and N (N >= 1)")
        return cls(index, total)


def matches_k(expression: str, haystack: str) -> bool:
    """Evaluate a -k expression against ``haystack`` (name and path)."""
    tokens = [t for t in _TOKEN.findall(expression) if t]
    if not tokens:  # `-k "$FILTER"` with FILTER unset: refused, as it would have run every scenario
        raise SelectionError(
            f"-k `{expression}`: an empty expression: give words with and, or, not, such as -k 'git and not slow' "
            "(no -k runs every scenario)"
        )
    text = haystack.lower()
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise SelectionError(f"-k `{expression}`: unexpected end of expression")
        pos += 1
        return str(tokens[pos - 1])

    def parse_or() -> bool:
        value = parse_and()
        while peek() == "or":
            take()
            value = parse_and() or value
        return value

    def parse_and() -> bool:
        value = parse_not()
        while peek() == "and":
            take()
            value = parse_not() and value
        return value

    def parse_not() -> bool:
        if peek() == "not":
            take()
            return not parse_not()
        token = take()
        if token == "(":
            value = parse_or()
            if take() != ")":
                raise SelectionError(f"-k `{expression}`: missing `)`")
            return value
        if token in (")", "and", "or"):
            raise SelectionError(f"-k `{expression}`: unexpected `{token}`")
        return token.lower() in text

    result = parse_or()
    if pos != len(tokens):
        raise SelectionError(f"-k `{expression}`: unexpected `{tokens[pos]}`")
    return result


def parse_tags(text: str | None) -> set[str]:
    return {t.strip() for t in (text or "").split(",") if t.strip()}


T = TypeVar("T")


def take_shard(items: Sequence[T], shard: Shard | None) -> list[T]:
    if shard is None:
        return list(items)
    return [item for i, item in enumerate(items) if i % shard.total == shard.index - 1]
