"""One way to start a process a scenario can influence: confined to writing where it is allowed.

Shell commands (`runCmd`, live `Bash`, `userCommand`, `sed`, `git apply`) and the engine's own git
all start through :class:`Sandbox`, so every such process gets the strongest confinement this
machine offers (:mod:`workbench.workspace.landlock`), and none is started unconfined by accident.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from .landlock import WriteSandbox

T = TypeVar("T")


class Sandbox:
    """Processes started by :meth:`run` may write beneath ``writable`` only (where the kernel can enforce it)."""

    def __init__(self, writable: Sequence[Path]) -> None:
        self._landlock = WriteSandbox(writable)

    @property
    def active(self) -> bool:
        return self._landlock.active

    def run(self, start: Callable[[], T]) -> T:
        """Call ``start``, which starts a process; that process (and all it starts) is confined."""
        return self._landlock.run(start)

    def close(self) -> None:
        self._landlock.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
