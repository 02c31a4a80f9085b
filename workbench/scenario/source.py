"""Parse YAML, JSON and TOML into plain values that remember where they came from.

Headless loading must be fast (a 1,000-event scenario in well under 150 ms), so
YAML is composed with libyaml (PyYAML's C parser) and turned into ``PMap`` /
``PList`` containers: ordinary ``dict`` / ``list`` subclasses that also carry the
source position of themselves, of each key and of each value. ruamel.yaml's
round-trip mode, which keeps comments and layout, is slower by an order of
magnitude and is left to the editor.

JSON is checked with :mod:`json` (exact error positions) and then composed with
the same YAML machinery for positions (JSON is a subset of YAML). TOML goes
through :mod:`tomllib`, with positions recovered by :mod:`.tomlpos`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from .diagnostics import Pos, ScenarioError

try:  # pragma: no cover - depends on how PyYAML was built
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)
TOML_SUFFIXES = (".toml",)
SCENARIO_SUFFIXES = YAML_SUFFIXES + JSON_SUFFIXES + TOML_SUFFIXES


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


def pos_of(value: Any, fallback: Pos) -> Pos:
    """The position of a container, or ``fallback`` for a scalar."""
    return value.pos if isinstance(value, PMap | PList) else fallback


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


def read_text(path: Path, display: str | None = None, referenced_from: Pos | None = None) -> str:
    """Read a UTF-8 file, turning every failure into a diagnostic."""
    name = display or str(path)
    where = referenced_from or Pos(name)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioError.at(where, f"file not found: {name}") from None
    except IsADirectoryError:
        raise ScenarioError.at(where, f"expected a file, found a directory: {name}") from None
    except OSError as exc:
        raise ScenarioError.at(where, f"cannot read {name}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ScenarioError.at(Pos(name, line, col), "file is not valid UTF-8") from None


# --------------------------------------------------------------------------- YAML

_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _Builder:
    """Turns a composed YAML node tree into PMap / PList / scalars."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.constructor = yaml.constructor.SafeConstructor()
        self.active: set[int] = set()

    def pos(self, node: yaml.Node) -> Pos:
        mark = node.start_mark
        return Pos(self.file, mark.line + 1, mark.column + 1)

    def build(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _STR or node.tag == _TIMESTAMP:
                return node.value
            try:
                return self.constructor.construct_object(node, deep=True)
            except (yaml.YAMLError, ValueError, TypeError) as exc:
                raise ScenarioError.at(
                    self.pos(node), f"invalid {node.tag.rsplit(':', 1)[-1]} value: {exc}"
                ) from None
        key = id(node)
        if key in self.active:
            raise ScenarioError.at(self.pos(node), "recursive alias: a node contains itself")
        self.active.add(key)
        try:
            if isinstance(node, yaml.SequenceNode):
                seq = PList(self.pos(node))
                for item in node.value:
                    seq.append(self.build(item))
                    seq.item_pos.append(self.pos(item))
                return seq
            return self.build_map(node)
        finally:
            self.active.discard(key)

    def build_map(self, node: yaml.Node) -> PMap:
        result = PMap(self.pos(node))
        merged: set[str] = set()  # keys from `<<: *anchor`, which explicit keys may override
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                merged |= self.merge_into(result, value_node)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise ScenarioError.at(self.pos(key_node), "mapping keys must be plain scalars")
            key = key_node.value if key_node.tag == _STR else str(self.build(key_node))
            if key in result and key not in merged:
                first = result.key_pos[key]
                raise ScenarioError.at(
                    self.pos(key_node), f"duplicate key `{key}` (first defined at line {first.line})"
                )
            merged.discard(key)
            result[key] = self.build(value_node)
            result.key_pos[key] = self.pos(key_node)
            result.value_pos[key] = self.pos(value_node)
        return result

    def merge_into(self, result: PMap, value_node: yaml.Node) -> set[str]:
        added: set[str] = set()
        sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
        for src in sources:
            merged = self.build(src)
            if not isinstance(merged, PMap):
                raise ScenarioError.at(self.pos(src), "`<<` merges mappings only")
            for k, v in merged.items():
                if k not in result:
                    result[k] = v
                    result.key_pos[k] = merged.at_key(k)
                    result.value_pos[k] = merged.at_value(k)
                    added.add(k)
        return added


def _yaml_error(exc: yaml.YAMLError, file: str) -> ScenarioError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    if mark is None:
        return ScenarioError.at(Pos(file), message)
    return ScenarioError.at(Pos(file, mark.line + 1, mark.column + 1), message)


def parse_yaml(text: str, file: str) -> Any:
    """Parse one YAML document; an empty document is ``None``."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, file) from None
    if node is None:
        return None
    return _Builder(file).build(node)


# --------------------------------------------------------------------------- JSON


def parse_json(text: str, file: str) -> Any:
    try:
        plain = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError.at(Pos(file, exc.lineno, exc.colno), f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise ScenarioError.at(Pos(file), "invalid JSON: nested too deeply") from None
    try:
        return parse_yaml(text, file)
    except ScenarioError as exc:
        if any("duplicate key" in d.message for d in exc.diagnostics):
            raise
        # Valid JSON that YAML 1.1 reads differently (rare escapes): keep the values.
        return wrap_plain(plain, Pos(file))


# --------------------------------------------------------------------------- TOML

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def parse_toml(text: str, file: str) -> PMap:
    import tomllib

    from .tomlpos import attach_positions

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
        raise ScenarioError.at(Pos(file, line, col), f"Failed to parse TOML: {detail}") from None
    doc: PMap = attach_positions(plain, text, file)
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
