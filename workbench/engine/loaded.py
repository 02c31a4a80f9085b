"""Scenario files a batch has already loaded and compiled, for the runs of the same files.

``workbench run`` loads every file to select and order the batch
(:func:`~workbench.engine.batch.collect`); the run of each file then takes its
compiled scenario from here instead of reading and compiling it again (the
pool's workers, forked after the collection, find it here too). A run that
finds nothing (the app, the pytest plugin) loads its file itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from workbench.timeline.prepare import Prepared

_KEPT: dict[tuple[Path, tuple[str, ...]], Prepared] = {}


def keep(path: Path, defines: Sequence[str], prepared: Prepared) -> None:
    """Remember a file that loaded without errors (a strict load: the same scenario as a lenient one)."""
    _KEPT[(path, tuple(defines))] = prepared


def take(path: Path, defines: Sequence[str]) -> Prepared | None:
    """The compiled scenario kept for ``path`` with these ``defines``, once; None if there is none."""
    return _KEPT.pop((path, tuple(defines)), None)
