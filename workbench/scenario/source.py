"""Parse YAML, JSON and TOML into plain values that remember where they came from.

Headless loading must be fast (a 1,000-event scenario in well under 150 ms), so
YAML is parsed by libyaml (PyYAML's C parser) into events, which are built into
``PMap`` / ``PList`` containers: ordinary ``dict`` / ``list`` subclasses that
also carry the source position of themselves, of each key and of each value.
ruamel.yaml's round-trip mode, which keeps comments and layout, is slower by an
order of magnitude and is left to the editor.

JSON is checked with :mod:`json` (exact error positions) and then built with
the same YAML machinery for positions (JSON is a subset of YAML). TOML goes
through :mod:`tomllib`, with positions recovered by :mod:`.tomlpos`.

Every input is untrusted: nesting is bounded (:data:`MAX_DEPTH`) before any
recursive parser sees it, alias expansion has a budget (:data:`ALIAS_BUDGET`),
and whatever a parser or a scalar constructor raises becomes a diagnostic with
a place. ``benchmarks/fuzz.py`` holds the loader to that.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from .diagnostics import Pos, ScenarioError

try:  # pragma: no cover - depends on how PyYAML was built
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

JSON_SUFFIXES = (".json",)
TOML_SUFFIXES = (".toml",)


class PMap(dict[str, Any]):
    """A mapping with the position of itself, of each key and of each value."""

    __slots__ = ("key_pos", "pos", "value_pos")

    def __init__(self, pos: Pos) -> None:
        super().__init__()
        self.pos = pos
        self.key_pos: dict[str, Pos] = {}
        self.value_pos: dict[str, Pos] = {}

    def at_key(self, key: str) -> Pos:
        return self.key_pos.get(key, self.pos)

    def at_value(self, key: str) -> Pos:
        return self.value_pos.get(key, self.key_pos.get(key, self.pos))


class PList(list[Any]):
    """A sequence with the position of itself and of each item."""

    __slots__ = ("item_pos", "pos")

    def __init__(self, pos: Pos) -> None:
        super().__init__()
        self.pos = pos
        self.item_pos: list[Pos] = []

    def at(self, index: int) -> Pos:
        return self.item_pos[index] if 0 <= index < len(self.item_pos) else self.pos

    def items_with_pos(self) -> Iterator[tuple[Any, Pos]]:
        return zip(self, self.item_pos, strict=False)


def wrap_plain(value: Any, pos: Pos) -> Any:
    """Give plain (position-less) data the container types, every position ``pos``."""
    if isinstance(value, dict):
        m = PMap(pos)
        for k, v in value.items():
            m[str(k)] = wrap_plain(v, pos)
        return m
    if isinstance(value, list):
        seq = PList(pos)
        for v in value:
            seq.append(wrap_plain(v, pos))
            seq.item_pos.append(pos)
        return seq
    return value


MAX_FILE_BYTES = 64 * 1024 * 1024  # a scenario file is text a person writes: 1,000 events are 100 kB


def read_bytes(path: Path, name: str, where: Pos) -> bytes:
    """The bytes of a file, at most :data:`MAX_FILE_BYTES`, or a diagnostic.

    A pipe is read too (``workbench validate <(generate)``), but opening it does not wait for a writer:
    a named pipe nobody writes to reads as empty where it hung the command; and a device that never
    ends (``/dev/zero`` behind a symlink) stops at the limit where it filled the memory."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ScenarioError.at(where, f"file not found: {name}") from None
    except OSError as exc:
        raise ScenarioError.at(where, f"cannot read {name}: {exc.strerror}") from None
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise ScenarioError.at(where, f"expected a file, found a directory: {name}")
        os.set_blocking(fd, True)  # opened: a pipe's writer, if any, is waited for as it writes
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise ScenarioError.at(
                    where,
                    f"{name} is larger than {MAX_FILE_BYTES >> 20} MB, more than a scenario file can be",
                )
        return b"".join(chunks)
    except OSError as exc:
        raise ScenarioError.at(where, f"cannot read {name}: {exc.strerror}") from None
    finally:
        os.close(fd)


def read_text(path: Path, display: str | None = None, referenced_from: Pos | None = None) -> str:
    """Read a UTF-8 file (a byte order mark before it is dropped), turning every failure into a diagnostic."""
    name = display or str(path)
    where = referenced_from or Pos(name)
    data = read_bytes(path, name, where)
    wide = "UTF-32" if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")) else "UTF-16"
    if data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        raise ScenarioError.at(
            Pos(name), f"the file is {wide} (it starts with that byte order mark): save it as UTF-8"
        )
    try:  # the byte order mark some editors write is not text: YAML skips it, and so do JSON and TOML here
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ScenarioError.at(Pos(name, line, col), "file is not valid UTF-8") from None


# --------------------------------------------------------------------------- YAML

_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_INT = "tag:yaml.org,2002:int"
_BINARY = "tag:yaml.org,2002:binary"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_RESOLVER = yaml.resolver.Resolver()

MAX_DEPTH = 100
"""Deepest nesting of mappings and lists a scenario may have.

Real scenarios stay below 15. The limit is checked while reading, before any
parser or tree walk could recurse: libyaml's composer recurses in C (a 50,000
deep file overflows the C stack), and tomllib and every later walk recurse in
Python.
"""

ALIAS_BUDGET = 10_000
"""Values that YAML aliases may add by expansion beyond the file's own values.

Each alias is expanded into a copy (loaders may change what they get), so
without a budget a "billion laughs" file of a few lines would grow memory
without end. The budget is this many values or as many as the file itself
holds, whichever is larger: ordinary reuse of a block always fits.
"""


def too_deep(pos: Pos) -> ScenarioError:
    return ScenarioError.at(
        pos, f"nested more than {MAX_DEPTH} levels deep; a scenario never needs that much nesting"
    )


class _Frame:
    """A mapping or list being built, with what its next event will complete."""

    __slots__ = ("anchor", "container", "height", "key", "key_pos", "merge", "merged", "start_count")

    def __init__(self, container: PMap | PList, anchor: str | None, start_count: int) -> None:
        self.container = container
        self.anchor = anchor
        self.start_count = start_count
        self.height = 1  # container levels in this one, itself included
        self.key: str | None = None
        self.key_pos: Pos | None = None  # set while the value of ``key`` is awaited
        self.merge = False  # the awaited value is for `<<`
        self.merged: set[str] = set()  # keys from `<<: *anchor`, which explicit keys may override


class _Anchor:
    __slots__ = ("height", "size", "value")

    def __init__(self, value: Any, size: int, height: int) -> None:
        self.value = value
        self.size = size
        self.height = height


def _copy(value: PMap | PList) -> PMap | PList:
    """A fresh copy of a built container (an alias's expansion), positions kept."""
    if isinstance(value, PMap):
        m = PMap(value.pos)
        for k, v in value.items():
            m[k] = _copy(v) if isinstance(v, PMap | PList) else v
        m.key_pos.update(value.key_pos)
        m.value_pos.update(value.value_pos)
        return m
    seq = PList(value.pos)
    seq.extend([_copy(v) if isinstance(v, PMap | PList) else v for v in value])
    seq.item_pos.extend(value.item_pos)
    return seq


class _Builder:
    """Turns libyaml's event stream into PMap / PList / scalars, without recursion.

    Working from events rather than a composed node tree keeps libyaml's
    recursive composer out of the way, so depth and alias expansion are
    checked here before either can exhaust a stack or memory.
    """

    def __init__(self, file: str) -> None:
        self.file = file
        self.constructor = yaml.constructor.SafeConstructor()
        self.stack: list[_Frame] = []
        self.anchors: dict[str, _Anchor] = {}
        self.open_anchors: set[str] = set()
        self.count = 0  # values read from the text
        self.expanded = 0  # values added by alias expansion

    def pos(self, event: yaml.Event) -> Pos:
        mark = event.start_mark
        if mark is None:  # pragma: no cover - libyaml marks every event
            return Pos(self.file)
        return Pos(self.file, mark.line + 1, mark.column + 1)

    def build(self, text: str) -> Any:
        result: Any = None
        documents = 0
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.ScalarEvent):
                self.count += 1
                value, tag = self.scalar(event)
                if event.anchor is not None:
                    self.anchors[event.anchor] = _Anchor(value, 1, 0)
                if self.stack:
                    self.add(value, self.pos(event), merge_key=tag == _MERGE)
                else:
                    result = value
            elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                self.count += 1
                if len(self.stack) >= MAX_DEPTH:
                    raise too_deep(self.pos(event))
                if (
                    self.stack
                    and self.stack[-1].key_pos is None
                    and isinstance(self.stack[-1].container, PMap)
                ):
                    raise ScenarioError.at(self.pos(event), "mapping keys must be plain scalars")
                if event.tag not in (None, "!", _MAP if isinstance(event, yaml.MappingStartEvent) else _SEQ):
                    raise ScenarioError.at(self.pos(event), unknown_tag(event.tag))  # `!!python/object/apply`
                container: PMap | PList = (
                    PMap(self.pos(event))
                    if isinstance(event, yaml.MappingStartEvent)
                    else PList(self.pos(event))
                )
                if event.anchor is not None:
                    self.open_anchors.add(event.anchor)
                self.stack.append(_Frame(container, event.anchor, self.count + self.expanded))
            elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                frame = self.stack.pop()
                done = frame.container
                if frame.anchor is not None:
                    self.open_anchors.discard(frame.anchor)
                    size = self.count + self.expanded - frame.start_count + 1
                    self.anchors[frame.anchor] = _Anchor(done, size, frame.height)
                if not self.stack:
                    result = done
                else:
                    self.stack[-1].height = max(self.stack[-1].height, frame.height + 1)
                    self.add(done, done.pos)
            elif isinstance(event, yaml.AliasEvent):
                value = self.alias(event)
                if self.stack:
                    height = self.anchors[event.anchor or ""].height
                    self.stack[-1].height = max(self.stack[-1].height, height + 1)
                    self.add(value, self.pos(event))
                else:
                    result = value
            elif isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise ScenarioError.at(
                        self.pos(event), "invalid YAML: expected a single document, found another one"
                    )
        return result

    def scalar(self, event: yaml.ScalarEvent) -> tuple[Any, str]:
        """The value of a scalar and its resolved tag."""
        tag = event.tag
        if tag is None or tag == "!":
            tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)  # type: ignore[no-untyped-call]
        if tag in (_STR, _TIMESTAMP, _MERGE):
            return event.value, tag
        if tag == _BINARY:  # bytes: no field of a scenario takes them, and no report or trace can hold them
            raise ScenarioError.at(self.pos(event), "a `!!binary` value: a scenario holds text, numbers and "
                                   "booleans; write it as a string")  # fmt: skip
        if tag == _INT and integer_digits(event.value) > _MAX_DIGITS:  # before PyYAML computes it
            raise ScenarioError.at(self.pos(event), TOO_LONG_INTEGER)
        if tag not in type(self.constructor).yaml_constructors:  # `!custom x`, `!!python/object:...`
            raise ScenarioError.at(self.pos(event), unknown_tag(tag))
        node = yaml.ScalarNode(tag, event.value, style=event.style)  # marks: our diagnostic has the place
        try:
            return self.constructor.construct_object(node, deep=True), tag
        except Exception as exc:  # PyYAML's constructors fail in many ways (`!!int ''`: IndexError)
            what = tag.rsplit(":", 1)[-1]
            if isinstance(exc, KeyError):  # `!!bool maybe`: PyYAML looks the word up
                message = f"invalid {what} value: `{event.value}`"
            else:
                message = value_message(what, exc)
            raise ScenarioError.at(self.pos(event), message) from None

    def alias(self, event: yaml.AliasEvent) -> Any:
        name = event.anchor or ""
        if name in self.open_anchors:
            raise ScenarioError.at(self.pos(event), f"recursive alias `*{name}`: a node contains itself")
        anchor = self.anchors.get(name)
        if anchor is None:
            raise ScenarioError.at(
                self.pos(event), f"undefined alias `*{name}`: no anchor `&{name}` before it"
            )
        if len(self.stack) + anchor.height > MAX_DEPTH:
            raise too_deep(self.pos(event))
        self.expanded += anchor.size
        if self.expanded > max(ALIAS_BUDGET, self.count):
            raise ScenarioError.at(
                self.pos(event),
                f"aliases expand to more than {max(ALIAS_BUDGET, self.count):,} values"
                " (an alias bomb?); repeat fewer or smaller anchored blocks",
            )
        return _copy(anchor.value) if isinstance(anchor.value, PMap | PList) else anchor.value

    def add(self, value: Any, pos: Pos, *, merge_key: bool = False) -> None:
        """Put a finished value into the innermost container (as a key, a value or an item)."""
        frame = self.stack[-1]
        container = frame.container
        if isinstance(container, PList):
            container.append(value)
            container.item_pos.append(pos)
            return
        if frame.key_pos is None:
            if isinstance(value, PMap | PList):
                raise ScenarioError.at(pos, "mapping keys must be plain scalars")
            frame.key = value if isinstance(value, str) else str(value)
            frame.key_pos = pos
            frame.merge = merge_key
            return
        key, key_pos = frame.key, frame.key_pos
        frame.key, frame.key_pos = None, None
        if frame.merge:
            self.merge_into(frame, value, pos)
            return
        assert key is not None
        if key in container and key not in frame.merged:
            first = container.key_pos[key]
            raise ScenarioError.at(key_pos, f"duplicate key `{key}` (first defined at line {first.line})")
        frame.merged.discard(key)
        container[key] = value
        container.key_pos[key] = key_pos
        container.value_pos[key] = pos

    def merge_into(self, frame: _Frame, value: Any, pos: Pos) -> None:
        result = frame.container
        assert isinstance(result, PMap)
        sources = list(value.items_with_pos()) if isinstance(value, PList) else [(value, pos)]
        for merged, src_pos in sources:
            if not isinstance(merged, PMap):
                raise ScenarioError.at(src_pos, "`<<` merges mappings only")
            for k, v in merged.items():
                if k not in result:
                    result[k] = v
                    result.key_pos[k] = merged.at_key(k)
                    result.value_pos[k] = merged.at_value(k)
                    frame.merged.add(k)


def _reader_error(exc: yaml.reader.ReaderError, file: str, text: str) -> ScenarioError:
    """A character YAML may not hold (a control character, a lone surrogate), at its line and column.

    The error has an offset only, in characters (PyYAML) or in UTF-8 bytes (libyaml); the reader stops
    at the first such character, so the first place it occurs in the text is where it is."""
    character = exc.character if isinstance(exc.character, int) else -1
    offset = text.find(chr(character)) if 0 <= character <= 0x10FFFF else -1
    message = (f"invalid YAML: the file holds the character U+{character:04X}, which YAML does not allow "
               f"({exc.reason}); write it as an escape in a double-quoted string (\"\\u{character:04x}\")")  # fmt: skip
    if offset < 0:
        return ScenarioError.at(Pos(file), message)
    before = re.split("\r\n|[\r\n\x85\u2028\u2029]", text[:offset])  # YAML 1.1's line breaks
    return ScenarioError.at(Pos(file, len(before), len(before[-1]) + 1), message)


def _yaml_error(exc: yaml.YAMLError, file: str, text: str) -> ScenarioError:
    if isinstance(exc, yaml.reader.ReaderError):
        return _reader_error(exc, file, text)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    if mark is None:
        return ScenarioError.at(Pos(file), message)
    lines = re.split("\r\n|[\r\n\x85\u2028\u2029]", text)  # YAML 1.1's line breaks, as the mark counts them
    row = lines[mark.line] if mark.line < len(lines) else ""
    if row[mark.column : mark.column + 1] == "\t":  # libyaml's words do not always say what is there
        message += "; the character there is a tab: YAML indents with spaces only, so replace it with spaces"
    return ScenarioError.at(Pos(file, mark.line + 1, mark.column + 1), message)


def parse_yaml(text: str, file: str) -> Any:
    """Parse one YAML document; an empty document is ``None``."""
    try:
        return _Builder(file).build(text)
    except yaml.YAMLError as exc:
        if getattr(exc, "problem", None) == _LIBYAML_TOO_DEEP:
            raise _first_too_deep(text, file, exc) from None
        raise _yaml_error(exc, file, text) from None


_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"
"""libyaml's own limit (PyYAML 6.0.2 and newer bundle one of 1,000 levels). Its scanner reads a flow
collection's brackets ahead of the events we count, so on a deep enough file it answers first."""


def _first_too_deep(text: str, file: str, exc: yaml.YAMLError) -> ScenarioError:
    """Our depth diagnostic where libyaml refused the nesting first, at the first level past ours.

    The text up to libyaml's mark is nested less deeply than libyaml allows, so our builder reads it
    as far as our own limit and names the first container too deep; only a text that fails some other
    way first falls back to libyaml's place.
    """
    mark = getattr(exc, "problem_mark", None)
    if mark is None:  # pragma: no cover - libyaml marks every scanner error
        return too_deep(Pos(file))
    try:
        _Builder(file).build(text[: mark.index])
    except ScenarioError as inner:
        if any("nested more than" in d.message for d in inner.diagnostics):
            return inner
    except yaml.YAMLError:
        pass
    return too_deep(Pos(file, mark.line + 1, mark.column + 1))


# --------------------------------------------------------------------------- JSON and TOML guards

_JSON_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|[\[\]{}]')
# Possessive and anchored at a word's start: a long run of digits must not be re-tried
# from every position inside it (that was quadratic).
_TOML_KEY_PART = re.compile(r'[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|\'[^\'\n]*+\'')
_TOML_TOKENS = re.compile(
    r'"""(?:[^\\]|\\.)*?"""|\'\'\'[\s\S]*?\'\'\''
    rf"|(?P<dotted>(?<![A-Za-z0-9_-])(?:{_TOML_KEY_PART.pattern})(?:[ \t]*\.[ \t]*(?:{_TOML_KEY_PART.pattern}))+)"
    r'|"(?:[^"\\\n]|\\.)*"?|\'[^\'\n]*\'?|#[^\n]*|[\[\]{}]'
)
_MAX_DIGITS = sys.get_int_max_str_digits() or 4300
_LONG_INT = re.compile(rf"(?<![\w.])[-+]?[0-9][0-9_]{{{_MAX_DIGITS},}}")
_MAX_BITS = math.ceil(_MAX_DIGITS * math.log2(10))
TOO_LONG_INTEGER = (
    f"integer too long: at most {_MAX_DIGITS:,} digits are allowed (quote it to keep it as text)"
)
_DIGITS_PER_CHAR = {"0b": math.log10(2), "0o": math.log10(8), "0x": math.log10(16)}


def integer_digits(literal: str) -> float:
    """About how many decimal digits the integer ``literal`` (YAML 1.1 or TOML) has, without computing it.

    Python reads decimal integers only up to :data:`_MAX_DIGITS` digits, but it reads other bases (and
    PyYAML multiplies out sexagesimal ``59:59:...``) without that limit, in time that grows with the
    square of the length; every later message that prints such a number would then fail. So the size is
    estimated from the text first, and all bases get the decimal limit."""
    body = literal.replace("_", "").lstrip("+-")
    if ":" in body:  # YAML 1.1 base 60
        head, _, rest = body.partition(":")
        return len(head) + (rest.count(":") + 1) * math.log10(60)
    per_char = _DIGITS_PER_CHAR.get(body[:2].lower())
    if per_char is not None:
        return (len(body) - 2) * per_char
    if len(body) > 1 and body.startswith("0"):  # YAML 1.1 octal
        return (len(body) - 1) * math.log10(8)
    return len(body)


def offset_pos(text: str, offset: int, file: str) -> Pos:
    """The ``file:line:col`` of a character offset into ``text``."""
    line = text.count("\n", 0, offset) + 1
    return Pos(file, line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def guard_brackets(text: str, file: str, tokens: re.Pattern[str]) -> None:
    """Refuse nesting past :data:`MAX_DEPTH` before a recursive parser sees it.

    ``tokens`` matches strings and comments whole (so brackets inside them do
    not count), single brackets, and (for TOML) dotted keys, whose parts nest
    too and which tomllib handles in quadratic time. A text the parser would
    reject anyway may be miscounted; that only changes which of the two
    complaints comes first.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH and text.count(".") <= MAX_DEPTH:
        return
    depth = 0
    for m in tokens.finditer(text):
        token = m.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise too_deep(offset_pos(text, m.start(), file))
        elif token in "]}":
            depth = max(0, depth - 1)
        elif m.lastgroup == "dotted" and len(_TOML_KEY_PART.findall(token)) > MAX_DEPTH:
            raise too_deep(offset_pos(text, m.start(), file))


def long_integer(text: str, file: str, exc: ValueError) -> ScenarioError:
    """Python refuses to read integers with more than 4,300 digits; say where one is."""
    m = _LONG_INT.search(text)
    pos = offset_pos(text, m.start(), file) if m else Pos(file)
    return ScenarioError.at(pos, value_message("integer", exc))


def unknown_tag(tag: str) -> str:
    """A YAML tag no scenario can hold (an application's own, or a Python object's), as the file wrote it."""
    written = "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag
    return (f"the YAML tag `{written}` is not allowed: a scenario holds plain values (text, numbers, "
            "booleans, lists and mappings); remove the tag")  # fmt: skip


def value_message(what: str, exc: Exception) -> str:
    """Why a scalar could not be read, in the file's terms rather than Python's."""
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        return TOO_LONG_INTEGER
    return f"invalid {what} value: {exc}"


def _first_long_integer(value: Any) -> tuple[str | int, ...] | None:
    """The path of an integer in ``value`` too long to print (see :func:`integer_digits`), if any."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, int) and item.bit_length() > _MAX_BITS:
            return path
        if isinstance(item, dict):
            stack.extend((v, (*path, k)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(item))
    return None


def check_depth(value: Any, positions: Callable[[tuple[str | int, ...]], Pos]) -> None:
    """Refuse a parsed value nested past :data:`MAX_DEPTH`, without recursing.

    ``positions`` gives the place of a path into ``value`` (the first path
    that is too deep) for the diagnostic.
    """
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_DEPTH:
            raise too_deep(positions(path))
        if isinstance(item, dict):
            stack.extend((v, (*path, k)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(item))


# --------------------------------------------------------------------------- JSON


def parse_json(text: str, file: str) -> Any:
    guard_brackets(text, file, _JSON_TOKENS)
    try:
        plain = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError.at(Pos(file, exc.lineno, exc.colno), f"invalid JSON: {exc.msg}") from None
    except RecursionError:  # pragma: no cover - guard_brackets stops this first
        raise ScenarioError.at(Pos(file), "invalid JSON: nested too deeply") from None
    except ValueError as exc:
        raise long_integer(text, file, exc) from None
    _refuse_lone_surrogates(text, file)
    try:
        shaped = parse_yaml(_SURROGATE_ESCAPE.sub(_outside_surrogates, text).translate(_PRINTABLE), file)
    except ScenarioError as exc:
        if any("duplicate key" in d.message or "nested more than" in d.message for d in exc.diagnostics):
            raise
        return wrap_plain(plain, Pos(file))  # pragma: no cover - valid JSON is YAML once surrogates are out
    return with_positions(plain, shaped)


_SURROGATE_ESCAPE = re.compile(r"\\(\\|u[dD][89a-fA-F][0-9a-fA-F]{2})")
"""An escaped backslash, or the escape of a UTF-16 surrogate (`\\ud83d\\ude00`, how `json.dumps` writes
an emoji), which libyaml refuses."""


_PRINTABLE = {c: 0xF700 + (c & 0xFF) for c in (*range(0x7F, 0xA0), 0x2028, 0x2029, 0xFFFE, 0xFFFF)}
"""Characters JSON takes as they are and YAML refuses (not printable there) or reads as a line break (NEL,
U+2028, U+2029), each to a character of its own in the private use area: one for one, so lines, columns
and distinct keys stay as they were."""


def _outside_surrogates(escape: re.Match[str]) -> str:
    """The same escape moved out of the surrogates (D800-DFFF to E800-EFFF): same length, so YAML reads
    every position where JSON has it, and one-to-one, so distinct keys stay distinct."""
    code = escape.group(1)
    return escape.group(0) if code == "\\" else f"\\uE{code[2:]}"


def _refuse_lone_surrogates(text: str, file: str) -> None:
    """Half of a surrogate pair (`\\ud800` alone) is no character: `json` reads it into a string that
    no file, terminal or report can take (UTF-8 has no surrogates), so it is an error at its place."""
    escapes = [m for m in _SURROGATE_ESCAPE.finditer(text) if m.group(1) != "\\"]
    i = 0
    while i < len(escapes):
        code = int(escapes[i].group(1)[1:], 16)
        paired = code < 0xDC00 and i + 1 < len(escapes) and escapes[i + 1].start() == escapes[i].end()
        if paired and int(escapes[i + 1].group(1)[1:], 16) >= 0xDC00:
            i += 2
            continue
        at = escapes[i].start()
        line, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
        raise ScenarioError.at(
            Pos(file, line, col),
            f"`{escapes[i].group(0)}` is half of a UTF-16 surrogate pair, which is no character: write the "
            "character itself, or both halves of its pair (a high `\\ud800`-`\\udbff`, then a low "
            "`\\udc00`-`\\udfff`)",
        )


def with_positions(plain: Any, shaped: Any) -> Any:
    """JSON's values (``plain``, read by :mod:`json`) with the positions of the same text read as YAML
    (``shaped``): YAML 1.1 reads some JSON differently (`1e3` is a string there), never its shape."""
    if isinstance(plain, dict) and isinstance(shaped, PMap) and len(plain) == len(shaped):
        out = PMap(shaped.pos)
        for (key, value), place in zip(plain.items(), shaped, strict=True):
            out[key] = with_positions(value, shaped[place])
            out.key_pos[key], out.value_pos[key] = shaped.at_key(place), shaped.at_value(place)
        return out
    if isinstance(plain, list) and isinstance(shaped, PList) and len(plain) == len(shaped):
        seq = PList(shaped.pos)
        seq.extend(with_positions(v, w) for v, w in zip(plain, shaped, strict=True))
        seq.item_pos.extend(shaped.item_pos)
        return seq
    return wrap_plain(plain, shaped.pos if isinstance(shaped, PMap | PList) else Pos(""))


# --------------------------------------------------------------------------- TOML

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")
_TOML_KEY = re.compile(
    r"""\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
)


def parse_toml(text: str, file: str) -> PMap:
    import tomllib

    from .tomlpos import attach_positions, scan_positions

    guard_brackets(text, file, _TOML_TOKENS)
    try:
        plain = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = _TOML_POS.search(msg)
        if m:
            line, col = int(m.group(1)), int(m.group(2))
        elif "end of document" in msg:
            line, col = text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1
        else:
            line, col = 1, 1
        detail = _TOML_POS.sub("", msg).replace("(at end of document)", "at the end of the file").strip()
        if detail == "Cannot overwrite a value":  # tomllib's words for a key given twice
            row = text.split("\n")[line - 1] if line <= text.count("\n") + 1 else ""
            key = _TOML_KEY.match(row)
            if key:
                name = re.sub(r"\s*\.\s*", ".", key.group(1))
                col, detail = key.start(1) + 1, f"duplicate key `{name}`: a key is given once in its table"
        raise ScenarioError.at(Pos(file, line, col), f"Failed to parse TOML: {detail}") from None
    except RecursionError:  # pragma: no cover - guard_brackets stops this first
        raise ScenarioError.at(Pos(file), "invalid TOML: nested too deeply") from None
    except ValueError as exc:
        raise long_integer(text, file, exc) from None
    positions = scan_positions(text, file)

    def place(path: tuple[str | int, ...]) -> Pos:
        # Dotted keys and headers nest without brackets: name the deepest part found.
        for depth in range(len(path), 0, -1):
            if path[:depth] in positions:
                return positions[path[:depth]][0]
        return Pos(file)

    check_depth(plain, place)
    long_integer_at = _first_long_integer(plain)
    if long_integer_at is not None:  # tomllib reads 0x, 0o and 0b integers of any length
        where = positions.get(long_integer_at)
        raise ScenarioError.at(where[1] if where else place(long_integer_at), TOO_LONG_INTEGER)
    doc: PMap = attach_positions(plain, text, file, positions)
    return doc


def parse_document(text: str, file: str, suffix: str) -> Any:
    """Parse ``text`` by the format its file suffix names."""
    suffix = suffix.lower()
    if suffix in JSON_SUFFIXES:
        return parse_json(text, file)
    if suffix in TOML_SUFFIXES:
        return parse_toml(text, file)
    return parse_yaml(text, file)


def load_document(path: Path, display: str | None = None) -> Any:
    name = display or str(path)
    return parse_document(read_text(path, name), name, path.suffix)
