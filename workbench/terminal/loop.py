"""The parse loop the screen runs: the compiled :mod:`.fastpath` when it is current, else its source.

``WORKBENCH_MYPYC=1`` at install time (``setup.py``, optional) compiles
:mod:`.fastpath` with mypyc; Python then imports the compiled module before
the source beside it. A compiled module older than that source (edited, or
another branch checked out, since the build) would run code that is no longer
there, so it is set aside and the source runs: a stale build can cost speed,
never correctness. Without a build, this is just the source module.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from . import fastpath

FeedTokens = Callable[[Any, Iterator[tuple[str, ...]], bool], bool]

SOURCE = Path(fastpath.__file__).with_name("fastpath.py")
_SLACK = 2.0  # seconds: an install writes a wheel's files in any order, within moments of each other


def is_current(built: Path, source: Path) -> bool:
    """Whether the compiled module ``built`` is at least as new as ``source`` (within a few seconds)."""
    try:
        return built.stat().st_mtime + _SLACK >= source.stat().st_mtime
    except OSError:
        return True  # no source beside it: the compiled module is all there is


def source_module() -> ModuleType:
    """:mod:`.fastpath` executed from its source, whatever is built beside it."""
    spec = importlib.util.spec_from_file_location(fastpath.__name__, SOURCE)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {SOURCE}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


COMPILED: bool = not fastpath.__file__.endswith(".py") and is_current(Path(fastpath.__file__), SOURCE)
"""True when the screen runs the compiled loop."""

feed_tokens: FeedTokens = (
    fastpath.feed_tokens if COMPILED or fastpath.__file__.endswith(".py") else source_module().feed_tokens
)
