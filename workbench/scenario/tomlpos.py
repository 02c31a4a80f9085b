"""Source positions for TOML: :mod:`tomllib` gives the values, this scan gives their lines and columns.

tomllib (the standard library's parser) is exact and fast but forgets where
things were, and a Claudeless diagnostic must say ``file:line:col`` like a YAML
one. So after tomllib has accepted a text, :func:`scan_positions` walks the same
text once more with a small scanner that understands just enough TOML to know
where each key and value starts: table headers (``[a.b]``, ``[[a]]``, with the
current index of every array of tables they pass through), ``key = value``
lines with dotted and quoted keys, inline tables (``{ type = "regex", pattern =
"(" }``: each key gets its own column), arrays spanning lines (each item its own
line), and strings of every kind (so brackets or ``#`` inside them are not
mistaken for syntax). :func:`attach_positions` then wraps tomllib's values into
:class:`~.source.PMap` / :class:`~.source.PList` carrying those positions.

The scan runs only on text tomllib accepted, so it never reports syntax errors;
if it meets something it does not expect, it keeps what it found and the rest
falls back to the enclosing container's position. Positions are an annotation:
a scenario must never fail to load because one could not be found.

Columns count characters from 1, as tomllib's own error messages do. The position
of a table header (``[responses.response]``) is its ``[``.
"""

from __future__ import annotations

import bisect
from typing import Any

from .diagnostics import Pos
from .source import PList, PMap

PathKey = tuple[str | int, ...]
Positions = dict[PathKey, tuple[Pos, Pos]]

_BARE_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\", "e": "\x1b"}
_SCALAR_END = frozenset(",]}#\n")


class _Scanner:
    """One pass over a TOML text, recording (key position, value position) per document path."""

    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.n = len(text)
        self.file = file
        self.i = 0
        self.line_starts = [0]
        self.line_starts += [k + 1 for k, ch in enumerate(text) if ch == "\n"]
        self.found: Positions = {}
        self.arrays: dict[PathKey, int] = {}  # array-of-tables path -> index of its last table

    # ------------------------------------------------------------------ helpers

    def pos(self, at: int) -> Pos:
        line = bisect.bisect_right(self.line_starts, at)
        return Pos(self.file, line, at - self.line_starts[line - 1] + 1)

    def peek(self, offset: int = 0) -> str:
        k = self.i + offset
        return self.text[k] if k < self.n else ""

    def skip_blank(self, newlines: bool) -> None:
        """Skip spaces, tabs, comments and (when ``newlines``) line breaks."""
        while self.i < self.n:
            ch = self.text[self.i]
            if ch in " \t\r" or (newlines and ch == "\n"):
                self.i += 1
            elif ch == "#":
                end = self.text.find("\n", self.i)
                self.i = self.n if end < 0 else (end + 1 if newlines else end)
            else:
                return

    def skip_line(self) -> None:
        end = self.text.find("\n", self.i)
        self.i = self.n if end < 0 else end + 1

    def record(self, path: PathKey, key_at: int, value_at: int) -> None:
        self.found[path] = (self.pos(key_at), self.pos(value_at))

    # ------------------------------------------------------------------ strings and keys

    def basic_string(self) -> str:
        """A ``"..."`` string at ``self.i``; returns its value (escapes decoded)."""
        self.i += 1
        out: list[str] = []
        while self.i < self.n:
            ch = self.text[self.i]
            if ch == '"':
                self.i += 1
                return "".join(out)
            if ch == "\\":
                out.append(self.escape())
                continue
            out.append(ch)
            self.i += 1
        return "".join(out)

    def escape(self) -> str:
        """Decode the escape at ``self.i`` (which is a backslash) and move past it."""
        code = self.peek(1)
        if code in ("u", "U", "x"):
            width = {"u": 4, "U": 8, "x": 2}[code]
            digits = self.text[self.i + 2 : self.i + 2 + width]
            self.i += 2 + width
            try:
                return chr(int(digits, 16))
            except ValueError:
                return ""
        self.i += 2
        return _ESCAPES.get(code, code)

    def literal_string(self) -> str:
        end = self.text.find("'", self.i + 1)
        end = self.n if end < 0 else end
        value = self.text[self.i + 1 : end]
        self.i = end + 1
        return value

    def multiline_string(self, quote: str) -> None:
        """Skip a ``\"\"\"...\"\"\"`` or ``'''...'''`` string (up to two quotes may end its content)."""
        self.i += 3
        while self.i < self.n:
            ch = self.text[self.i]
            if ch == "\\" and quote == '"':
                self.i += 2
                continue
            if self.text.startswith(quote * 3, self.i):
                self.i += 3
                extra = 0
                while extra < 2 and self.peek() == quote:
                    self.i += 1
                    extra += 1
                return
            self.i += 1

    def key_part(self) -> tuple[str, int] | None:
        """One part of a (possibly dotted) key and where it starts; None if there is no key here."""
        start = self.i
        ch = self.peek()
        if ch == '"':
            return self.basic_string(), start
        if ch == "'":
            return self.literal_string(), start
        while self.i < self.n and self.text[self.i] in _BARE_KEY_CHARS:
            self.i += 1
        return (self.text[start : self.i], start) if self.i > start else None

    def dotted_key(self) -> list[tuple[str, int]]:
        parts: list[tuple[str, int]] = []
        while True:
            self.skip_blank(newlines=False)
            part = self.key_part()
            if part is None:
                return parts
            parts.append(part)
            self.skip_blank(newlines=False)
            if self.peek() != ".":
                return parts
            self.i += 1

    # ------------------------------------------------------------------ document structure

    def resolve(self, keys: list[str]) -> PathKey:
        """A header's path, with the current index of each array of tables it passes through."""
        out: list[str | int] = []
        for key in keys:
            out.append(key)
            current = tuple(out)
            if current in self.arrays:
                out.append(self.arrays[current])
        return tuple(out)

    def document(self) -> Positions:
        table: PathKey = ()
        while True:
            self.skip_blank(newlines=True)
            if self.i >= self.n:
                return self.found
            start = self.i
            if self.text.startswith("[[", self.i):
                self.i += 2
                parts = self.dotted_key()
                if parts:
                    base = (*self.resolve([k for k, _ in parts[:-1]]), parts[-1][0])
                    index = self.arrays.get(base, -1) + 1
                    self.arrays[base] = index
                    table = (*base, index)
                    self.record(table, start, start)
                    self.found.setdefault(base, (self.pos(start), self.pos(start)))
                self.skip_line()
            elif self.peek() == "[":
                self.i += 1
                parts = self.dotted_key()
                if parts:
                    table = self.resolve([k for k, _ in parts])
                    self.record(table, start, start)
                    for depth in range(1, len(parts)):
                        prefix = self.resolve([k for k, _ in parts[:depth]])
                        self.found.setdefault(prefix, (self.pos(start), self.pos(start)))
                self.skip_line()
            else:
                if not self.key_value(table):
                    self.skip_line()

    def key_value(self, table: PathKey) -> bool:
        """``key = value`` at ``self.i`` inside ``table``; False if this is not one."""
        parts = self.dotted_key()
        self.skip_blank(newlines=False)
        if not parts or self.peek() != "=":
            return False
        self.i += 1
        self.skip_blank(newlines=False)
        path = table
        for depth, (key, at) in enumerate(parts):
            path = (*path, key)
            if depth < len(parts) - 1:
                self.found.setdefault(path, (self.pos(at), self.pos(at)))
        self.record(path, parts[-1][1], self.i)
        self.value(path)
        return True

    def value(self, path: PathKey) -> None:
        ch = self.peek()
        if ch in ('"', "'"):
            if self.text.startswith(ch * 3, self.i):
                self.multiline_string(ch)
            elif ch == '"':
                self.basic_string()
            else:
                self.literal_string()
        elif ch == "[":
            self.array(path)
        elif ch == "{":
            self.inline_table(path)
        else:
            while self.i < self.n and self.text[self.i] not in _SCALAR_END:
                self.i += 1

    def array(self, path: PathKey) -> None:
        self.i += 1
        index = 0
        while self.i < self.n:
            self.skip_blank(newlines=True)
            if self.peek() == "]":
                self.i += 1
                return
            if self.peek() == ",":
                self.i += 1
                continue
            item = (*path, index)
            self.record(item, self.i, self.i)
            before = self.i
            self.value(item)
            if self.i == before:  # not a value we know: stop rather than loop
                self.i += 1
            index += 1

    def inline_table(self, path: PathKey) -> None:
        self.i += 1
        while self.i < self.n:
            self.skip_blank(newlines=True)
            ch = self.peek()
            if ch == "}":
                self.i += 1
                return
            if ch == ",":
                self.i += 1
                continue
            before = self.i
            if not self.key_value(path):
                self.i = max(self.i, before + 1)


def scan_positions(text: str, file: str) -> Positions:
    """Path -> (key position, value position) for every header, key and array item in ``text``."""
    scanner = _Scanner(text, file)
    try:
        return scanner.document()
    except (IndexError, ValueError, KeyError):  # pragma: no cover - a scanner bug must not fail a load
        return scanner.found


def attach_positions(plain: dict[str, Any], text: str, file: str, positions: Positions | None = None) -> PMap:
    """Wrap tomllib's result for ``text`` into position-carrying containers.

    Every mapping becomes a :class:`PMap` (with the position of each key and value),
    every list a :class:`PList` (with the position of each item). A path the scan did
    not find (it should not happen) takes its container's position. ``positions``
    is the scan of ``text`` when the caller has already made it.
    """
    if positions is None:
        positions = scan_positions(text, file)

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
            for index, item in enumerate(value):
                item_pos = positions.get((*path, index), (pos, pos))[1]
                seq.append(wrap(item, (*path, index), item_pos))
                seq.item_pos.append(item_pos)
            return seq
        return value

    result: PMap = wrap(plain, (), Pos(file, 1, 1))
    return result
