"""Claudeless rules compiled once and read back fast: the shim's answer in milliseconds.

The scenario loader checks a rules file thoroughly (positions, diagnostics,
``$file`` references) and builds the model's frozen dataclasses; doing that on
every ``claude -p`` call would cost more than the whole answer may take. So the
first call loads the file with the real loader and writes the resulting
:class:`~workbench.scenario.model.RuleSet` as JSON in the cache folder
(``$XDG_CACHE_HOME/workbench/claude-rules``, else ``~/.cache/...``), stamped
with the size and modification time of the file and of every file it
references. Later calls read the JSON back as plain attribute objects, which
the rule matcher and this package read exactly like the dataclasses. A changed
stamp, an unreadable or foreign cache entry: the file is loaded again.

Timeouts that the file does not set come from ``CLAUDELESS_*_MS`` variables at
load time, so they are resolved again on every call from the current
environment (see :func:`timeouts`).
"""

from __future__ import annotations

import contextlib
import json
import os
import zlib
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from workbench.digits import is_digits

FORMAT = 1
_MARK = "\x00dc"  # marks an encoded dataclass (a key no scenario can write)


class RulesError(Exception):
    """The rules file is invalid (its diagnostics, one per line) or not a Claudeless file."""


def cache_dir(environ: Mapping[str, str]) -> Path:
    base = environ.get("XDG_CACHE_HOME") or str(Path(environ.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "workbench" / "claude-rules"


def load_rules(path: Path, environ: Mapping[str, str]) -> Any:
    """The rules of ``path`` (a RuleSet, or an object that reads the same)."""
    path = path.absolute()
    key = str(path).encode()
    entry = cache_dir(environ) / f"{zlib.crc32(key):08x}{len(key):04x}.json"  # the entry names its file too
    try:
        data = json.loads(entry.read_bytes(), object_hook=_decode)
        if data["format"] == FORMAT and data["path"] == str(path) and data["stamp"] == _stamp(data["files"]):
            return data["rules"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    rules, files = _load_slow(path)
    with contextlib.suppress(OSError):  # no cache: still correct, only slower next time
        _write(entry, {"format": FORMAT, "path": str(path), "files": files, "stamp": _stamp(files),
                       "rules": _encode(rules)})  # fmt: skip
    return rules


def timeouts(rules: Any, environ: Mapping[str, str]) -> dict[str, int]:
    """The rules' timeouts, with those the file does not set taken from the current environment."""
    from_file = dict(getattr(rules.timeouts, "source", {}) or {})
    out: dict[str, int] = {}
    for key, default in _DEFAULTS.items():
        value = getattr(rules.timeouts, key, default)
        if from_file.get(key) != "scenario":
            raw = environ.get(_ENV[key], "")
            value = int(raw) if is_digits(raw) else default
        out[key] = int(value)
    return out


_DEFAULTS = {"exit_hint_ms": 2000, "compact_delay_ms": 20, "hook_timeout_ms": 5000, "mcp_timeout_ms": 30000,
             "response_delay_ms": 20}  # fmt: skip
_ENV = {"exit_hint_ms": "CLAUDELESS_EXIT_HINT_TIMEOUT_MS", "compact_delay_ms": "CLAUDELESS_COMPACT_DELAY_MS",
        "hook_timeout_ms": "CLAUDELESS_HOOK_TIMEOUT_MS", "mcp_timeout_ms": "CLAUDELESS_MCP_TIMEOUT_MS",
        "response_delay_ms": "CLAUDELESS_RESPONSE_DELAY_MS"}  # fmt: skip


def _load_slow(path: Path) -> tuple[Any, list[str]]:
    from workbench.scenario.diagnostics import ScenarioError
    from workbench.scenario.loader import load_scenario

    try:
        scenario = load_scenario(path, env={})  # timeouts from the environment are applied per call
    except ScenarioError as exc:
        raise RulesError("\n".join(str(d) for d in exc.diagnostics)) from None
    except OSError as exc:
        raise RulesError(f"{path}:1:1: error: cannot read the rules: {exc.strerror or exc}") from None
    if scenario.rules is None:
        raise RulesError(
            f"{path}:1:1: error: not a Claudeless rules file (it has no `responses` or `default_response`); "
            "the claude shim answers from Claudeless rules"
        )
    return scenario.rules, [str(path), *_referenced(path)]


def _referenced(path: Path) -> list[str]:
    """The files a rules file reads through ``{"$file": ...}`` (their changes invalidate the cache)."""
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            doc: Any = json.loads(text)
        else:
            import tomllib

            doc = tomllib.loads(text)
    except (OSError, ValueError):
        return []
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            ref = value.get("$file")
            if isinstance(ref, str):
                found.append(str(path.parent / ref))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(doc)
    return found


def _stamp(files: list[str]) -> list[list[int]]:
    out = []
    for name in files:
        try:
            st = os.stat(name)
            out.append([st.st_mtime_ns, st.st_size])
        except OSError:
            out.append([-1, -1])
    return out


def _encode(value: Any) -> Any:
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {_MARK: 1}
        for f in dataclasses.fields(value):
            if f.name != "pos":
                out[f.name] = _encode(getattr(value, f.name))
        return out
    if isinstance(value, Mapping):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    return value


def _decode(obj: dict[str, Any]) -> Any:
    if obj.pop(_MARK, None) is None:
        return obj
    for key, value in obj.items():
        if isinstance(value, list):
            obj[key] = tuple(value)
    return SimpleNamespace(**obj)


def _write(entry: Path, data: dict[str, Any]) -> None:
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = entry.with_name(f".{entry.name}.{os.getpid()}")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, entry)
