"""Completion in the editor: the names the scenario format allows at the cursor, from its JSON Schema.

A person writing a scenario from scratch knows neither the 47 events nor the
keys of each; the diagnostics say what is wrong only after it is typed. This
module reads where the cursor is from the YAML's indentation (the keys above
it, and the list items between them) and looks that place up in
:func:`workbench.scenario.schema.scenario_schema`, the schema `workbench
schema` writes for other editors: the keys of the mapping there (a timeline
item's are the events), or, after ``key:``, that key's allowed values. No
YAML parse, so a half-written file (the usual state while typing) completes
too. No Textual here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

Schema = dict[str, Any]

_KEY_LINE = re.compile(r"^(\s*)((?:-\s+)*)([A-Za-z_][\w-]*)\s*:(?:\s|$)")
_TYPING_KEY = re.compile(r"^(\s*)((?:-\s+)*)([A-Za-z_][\w-]*)?$")
_TYPING_VALUE = re.compile(r"^(\s*)((?:-\s+)*)([A-Za-z_][\w-]*)\s*:\s+([\w-]*)$")


@dataclass(frozen=True)
class Choice:
    name: str  # what goes into the text
    help: str  # the schema's description, or its type
    takes_block: bool  # a mapping or a list: its value goes on the lines below


@dataclass(frozen=True)
class Completion:
    start: int  # the column where the word being completed starts (it is replaced)
    word: str  # what is typed of it so far
    choices: tuple[Choice, ...]  # those that start with ``word`` (case-insensitively), in the schema's order
    is_key: bool  # a key (``name: `` goes in) rather than a value


@cache
def _root() -> Schema:
    from workbench.scenario.schema import scenario_schema

    return scenario_schema()


def _branches(node: Schema) -> list[Schema]:
    """``node`` and the schemas it combines (oneOf, anyOf, allOf), flattened."""
    out = [node]
    for key in ("oneOf", "anyOf", "allOf"):
        for branch in node.get(key, ()):
            if isinstance(branch, dict):
                out += _branches(branch)
    return out


def _properties(node: Schema) -> dict[str, Schema]:
    found: dict[str, Schema] = {}
    for branch in _branches(node):
        for name, sub in (branch.get("properties") or {}).items():
            found.setdefault(name, sub if isinstance(sub, dict) else {})
    return found


def _items(node: Schema) -> Schema:
    merged: list[Schema] = [b["items"] for b in _branches(node) if isinstance(b.get("items"), dict)]
    return {"anyOf": merged} if len(merged) > 1 else (merged[0] if merged else {})


def _resolve(path: list[str | None]) -> Schema | None:
    """The schema at ``path`` (keys, and None for a list item), or None where the schema says nothing."""
    node: Schema = _root()
    for step in path:
        if step is None:
            node = _items(node)
        else:
            props = _properties(node)
            if step not in props:
                return None
            node = props[step]
        if not node:
            return None
    return node


def _heads(node: Schema) -> set[str]:
    """The keys that are a whole alternative of ``node`` on their own (a timeline item's events): listed first,
    before the keys of the alternative that has many (the typed step's ``type``, ``text``...)."""
    return {name for b in _branches(node) for name in b.get("properties") or {}
            if len(b.get("properties") or {}) == 1}  # fmt: skip


def _takes_block(node: Schema) -> bool:
    types = {b.get("type") for b in _branches(node)}
    return bool(types & {"object", "array"}) and not types & {"string", "integer", "number", "boolean"}


def _help(node: Schema) -> str:
    for branch in _branches(node):
        if branch.get("description"):
            return str(branch["description"])
    kinds = sorted({str(b["type"]) for b in _branches(node) if isinstance(b.get("type"), str)})
    return " or ".join(kinds)


def _path_to(lines: list[str], row: int, indent: int, dashes: int, key_column: int) -> list[str | None]:
    """The keys (and list items, None) that lead to the mapping a key at ``key_column`` of line ``row`` is
    written in, after ``dashes`` list dashes from column ``indent`` (``- name``), read upwards by indentation."""
    path: list[str | None] = [None] * dashes
    limit, in_item = (indent, True) if dashes else (key_column, False)
    for above in range(row - 1, -1, -1):
        if limit == 0 and not in_item:
            break  # the top level
        match = _KEY_LINE.match(lines[above])
        if match is None:  # blank, a comment, a list entry or a scalar: no key to name
            continue
        own_indent, own_dashes, key = len(match.group(1)), match.group(2).count("-"), match.group(3)
        column = own_indent + len(match.group(2))
        opens_block = not lines[above][match.end() :].split("#")[0].strip()
        if column < limit or (in_item and column == limit and not own_dashes and opens_block):
            path = [*([None] * own_dashes), key, *path]  # the parent (inside list items of its own)
            limit, in_item = (own_indent, True) if own_dashes else (column, False)
        elif column == limit and own_dashes and not in_item:
            path = [*([None] * own_dashes), *path]  # a key of the same list item, on the item's first line
            limit, in_item = own_indent, True
    return path


def complete_at(lines: list[str], row: int, column: int) -> Completion | None:
    """What may be written at ``column`` of line ``row`` (0-based), or None where nothing is known."""
    before = lines[row][:column] if row < len(lines) else ""
    value = _TYPING_VALUE.match(before)
    if value is not None:
        indent, dashes, key, word = value.groups()
        where = _path_to(lines, row, len(indent), dashes.count("-"), len(indent) + len(dashes))
        node = _resolve([*where, key])
        if node is None:
            return None
        values: list[str] = []
        for branch in _branches(node):
            values += [str(v) for v in branch.get("enum", ()) if str(v) not in values]
            if branch.get("type") == "boolean":
                values += [v for v in ("true", "false") if v not in values]
        choices = tuple(Choice(v, "", False) for v in values if v.lower().startswith(word.lower()))
        return Completion(column - len(word), word, choices, is_key=False)
    typing = _TYPING_KEY.match(before)
    if typing is None:
        return None
    indent, dashes, word = typing.group(1), typing.group(2), typing.group(3) or ""
    node = _resolve(_path_to(lines, row, len(indent), dashes.count("-"), len(indent) + len(dashes)))
    if node is None:
        return None
    props = _properties(node)
    heads = _heads(node)
    names = sorted(
        (name for name in props if name.lower().startswith(word.lower())), key=lambda n: n not in heads
    )
    choices = tuple(Choice(name, _help(props[name]), _takes_block(props[name])) for name in names)
    return Completion(column - len(word), word, choices, is_key=True)


def insertion(choice: Choice, completion: Completion) -> str:
    """The text that replaces the typed word: a key with its colon (and a space for an inline value)."""
    if not completion.is_key:
        return choice.name
    return f"{choice.name}:" if choice.takes_block else f"{choice.name}: "
