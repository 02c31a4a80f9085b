"""Places in a parsed document (nested dicts and lists) and copies of it with one place replaced.

What the scenario fuzzers mutate documents with: the property tests in
``tests/scenario`` and the long campaign in ``benchmarks/fuzz.py``.
"""

from __future__ import annotations

from typing import Any


def paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``doc``, itself first: each a tuple of keys and list indexes."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, (*prefix, i))
    return out


def get(doc: Any, path: tuple[Any, ...]) -> Any:
    """What stands at ``path`` in ``doc``."""
    for key in path:
        doc = doc[key]
    return doc


def replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of ``doc`` with ``value`` at ``path`` (``doc`` itself is left as it was)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(doc, dict):
        return {k: (replace(v, rest, value) if k == head else v) for k, v in doc.items()}
    return [(replace(v, rest, value) if i == head else v) for i, v in enumerate(doc)]
