"""Source positions for TOML: :mod:`tomllib` gives values, this scan gives their lines and columns.

tomllib (the standard library's parser) is exact and fast but forgets where
things were. A light line scan of the same text finds every table header
(``[a.b]``, ``[[a]]``) and every ``key = value`` line, resolves them to their
path in the document (array-of-tables indices included, dotted and quoted keys
too), and records the key's and the value's position. The parsed values are then
wrapped into :class:`~.source.PMap` / :class:`~.source.PList` with those positions,
so Claudeless diagnostics point at ``file:line:col`` like the YAML ones.
Items of arrays get the position of the line they start on when the array spans
lines, else the array's own position; keys inside an inline table (``{ a = 1 }``)
get the inline table's position.
"""

from __future__ import annotations

import re
from typing import Any

from .diagnostics import Pos
from .source import PList, PMap

PathKey = tuple[str | int, ...]

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _split_key(text: str) -> list[str] | None:
    """`a."b c".d` -> ["a", "b c", "d"]; None if it is not a key."""
    parts: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            break
        if text[i] in "\"'":
            quote = text[i]
            end = text.find(quote, i + 1)
            while quote == '"' and end > 0 and text[end - 1] == "\\":
                end = text.find(quote, end + 1)
            if end < 0:
                return None
            parts.append(text[i + 1 : end])
            i = end + 1
        else:
            m = _BARE.match(text, i)
            if m is None:
                return None
            parts.append(m.group())
            i = m.end()
        while i < n and text[i] in " \t":
            i += 1
        if i < n:
            if text[i] != ".":
                return None
            i += 1
    return parts or None


def _key_end(line: str) -> int:
    """Index of the `=` that ends a key on this line, outside quotes; -1 if none."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "=":
            return i
        elif ch == "#":
            return -1
    return -1


def _depth_change(value: str, state: dict[str, Any]) -> None:
    """Track open brackets and multi-line strings across lines (outside strings and comments)."""
    i, n = 0, len(value)
    while i < n:
        if state["ml"]:
            end = value.find(state["ml"], i)
            if end < 0:
                return
            i = end + 3
            state["ml"] = ""
            continue
        ch = value[i]
        if value.startswith('"""', i) or value.startswith("'''", i):
            state["ml"] = value[i : i + 3]
            i += 3
            continue
        if ch in "\"'":
            end = value.find(ch, i + 1)
            while ch == '"' and end > 0 and value[end - 1] == "\\":
                end = value.find(ch, end + 1)
            i = n if end < 0 else end + 1
            continue
        if ch == "#":
            return
        if ch in "[{":
            state["depth"] += 1
        elif ch in "]}":
            state["depth"] -= 1
        i += 1


def scan_positions(text: str, file: str) -> dict[PathKey, tuple[Pos, Pos]]:
    """Path -> (key position, value position) for every header and key in ``text``."""
    found: dict[PathKey, tuple[Pos, Pos]] = {}
    arrays: dict[PathKey, int] = {}
    table: PathKey = ()
    state: dict[str, Any] = {"depth": 0, "ml": ""}
    item_path: PathKey | None = None
    item_index = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if state["depth"] > 0 or state["ml"]:
            if item_path is not None and state["depth"] > 0 and not state["ml"]:
                stripped = line.strip()
                if stripped and not stripped.startswith(("#", "]")):
                    col = len(line) - len(line.lstrip()) + 1
                    found.setdefault(
                        (*item_path, item_index), (Pos(file, number, col), Pos(file, number, col))
                    )
                    item_index += 1
            _depth_change(line, state)
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        col = len(line) - len(line.lstrip()) + 1
        if stripped.startswith("[["):
            keys = _split_key(stripped[2 : stripped.find("]]")])
            if keys:
                base = (*_resolve(tuple(keys[:-1]), arrays), keys[-1])
                index = arrays.get(base, -1) + 1
                arrays[base] = index
                table = (*base, index)
                found[table] = (Pos(file, number, col), Pos(file, number, col))
                found.setdefault(base, (Pos(file, number, col), Pos(file, number, col)))
            continue
        if stripped.startswith("["):
            keys = _split_key(stripped[1 : stripped.find("]")])
            if keys:
                table = _resolve(tuple(keys), arrays)
                found[table] = (Pos(file, number, col), Pos(file, number, col))
            continue
        eq = _key_end(line)
        if eq < 0:
            continue
        keys = _split_key(line[:eq])
        if not keys:
            continue
        value_col = eq + 2 + (len(line[eq + 1 :]) - len(line[eq + 1 :].lstrip()))
        path = (*table, *keys)
        found[path] = (Pos(file, number, col), Pos(file, number, value_col))
        value = line[eq + 1 :]
        _depth_change(value, state)
        item_path, item_index = (path, 0) if state["depth"] > 0 else (None, 0)
    return found


def _resolve(keys: tuple[str, ...], arrays: dict[PathKey, int]) -> PathKey:
    """A header path with the current index of each array of tables it passes through."""
    out: list[str | int] = []
    for key in keys:
        out.append(key)
        current = tuple(out)
        if current in arrays:
            out.append(arrays[current])
    return tuple(out)


def attach_positions(plain: dict[str, Any], text: str, file: str) -> PMap:
    positions = scan_positions(text, file)
    root = Pos(file, 1, 1)

    def wrap(value: Any, path: PathKey, pos: Pos) -> Any:
        if isinstance(value, dict):
            out = PMap(pos)
            for key, item in value.items():
                key_pos, value_pos = positions.get((*path, key), (pos, pos))
                out[key] = wrap(item, (*path, key), value_pos)
                out.key_pos[key] = key_pos
                out.value_pos[key] = value_pos
            return out
        if isinstance(value, list):
            seq = PList(pos)
            for i, item in enumerate(value):
                item_pos = positions.get((*path, i), (pos, pos))[1]
                seq.append(wrap(item, (*path, i), item_pos))
                seq.item_pos.append(item_pos)
            return seq
        return value

    result: PMap = wrap(plain, (), root)
    return result
