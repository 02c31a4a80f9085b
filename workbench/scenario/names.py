"""A scenario's name becomes a folder (``<goldens>/<name>/``, ``<out>/<name>/``): it must be one.

:func:`check_name` is the loader's rule, reported as a diagnostic at the
name: no `/` or `\\`, no control character, not `.` or `..`, and short enough
for a file system. :func:`folder_name` is the engine's guard for any name
however it arrived: a name that passes the rule is its own folder name (so
goldens stay where they are), anything else becomes a safe form of itself
with a short hash, so two different names never share a folder.
"""

from __future__ import annotations

import hashlib
import re

from .diagnostics import Pos, ScenarioError

MAX_BYTES = 120
_UNSAFE = re.compile(r"[/\\\x00-\x1f\x7f]")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a folder name, or None."""
    if not name:
        return "is empty"
    if name in (".", ".."):
        return f"is `{name}`, which means a folder that already exists"
    if _UNSAFE.search(name):
        return "contains `/`, `\\` or a control character"
    if len(name.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        return f"is longer than {MAX_BYTES} bytes"
    return None


def check_name(name: str, pos: Pos, what: str = "`name`") -> str:
    """``name`` if it can name a folder; else a ScenarioError at ``pos`` that says why and what would do."""
    problem = name_problem(name)
    if problem is not None:
        raise ScenarioError.at(
            pos,
            f"{what} {problem}: the scenario's goldens and runs live in a folder of that name, so it must be "
            f"one plain folder name (letters, digits, spaces, `_ . -`); for example `{folder_name(name)}`",
        )
    return name


def folder_name(name: str) -> str:
    """One safe path component for ``name``: itself when :func:`name_problem` finds nothing."""
    if name_problem(name) is None:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    cleaned = _UNSAFE.sub("_", name).strip(". ")[:60] or "scenario"
    return f"{cleaned}-{digest}"
