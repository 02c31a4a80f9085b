"""A user's regular expression run on what the program under test wrote, with a time limit.

Masks (`masks:`, `--mask`), `waitFor.regex`, `onScreen` rules and the rules of a
Claudeless scenario are written by users and matched against screens and prompts
the program under test produced. Python's :mod:`re` backtracks without bound: a
pattern such as ``(a+)+$`` on a line of forty ``a`` and one ``!`` takes longer
than the universe has, holding the event loop (and with it Ctrl-C and SIGTERM).
These patterns are therefore matched by the ``regex`` package, which stops a
match after :data:`LIMIT_S` seconds; the pattern then fails the run with
:class:`PatternTooSlow`, naming the pattern and where it was written.

Patterns are still checked (and their errors worded) by :mod:`re` when the
scenario is read, so what is valid stays what it was; ``regex`` follows ``re``'s
syntax (its VERSION0). It is imported on the first match, not at start-up.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from .diagnostics import Pos

LIMIT_S = 1.0
"""How long one match may take. A mask or a wait on a screen line takes microseconds; a pattern that
needs a second backtracks exponentially and would not end."""


class PatternTooSlow(Exception):
    """A user's pattern was stopped after :data:`LIMIT_S`: ``what`` it is (``--mask``, a `masks` item) and
    ``pos``, the place it is written in a scenario (None for an option)."""

    def __init__(self, pattern: str, what: str, pos: Pos | None, length: int) -> None:
        super().__init__(
            f"{what} `{pattern}` was stopped after {LIMIT_S:g} s on a text of {length} characters: it "
            "backtracks without end (a repeat inside a repeat, as in `(a+)+` or `(a|a)+`); "
            "write it so that each part can match in one way only"
        )
        self.pattern, self.what, self.pos = pattern, what, pos

    def placed(self) -> str:
        """The message after its place, ``file:line:col: ...``, when it has one."""
        return f"{self.pos}: {self}" if self.pos is not None else str(self)


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str, flags: int) -> Any:
    """``pattern`` compiled by ``regex`` (the flags of :mod:`re` have the same values there), or by
    :mod:`re` for the rare pattern ``regex`` spells differently (then without a time limit)."""
    import regex

    try:
        return regex.compile(pattern, flags)
    except regex.error:
        return re.compile(pattern, flags)


class UserRegex:
    """One user pattern: ``what`` and ``pos`` say where it comes from, for :class:`PatternTooSlow`."""

    def __init__(self, pattern: str, what: str, pos: Pos | None = None, flags: int = 0) -> None:
        self.pattern, self.what, self.pos, self.flags = pattern, what, pos, flags

    def _limited(self, text: str, run: Callable[..., Any]) -> Any:
        """``run(compiled, **limit)``, where ``limit`` is the time limit ``regex`` takes."""
        compiled = _compiled(self.pattern, int(self.flags))
        if isinstance(compiled, re.Pattern):
            return run(compiled)
        try:
            return run(compiled, timeout=LIMIT_S)
        except TimeoutError:
            raise PatternTooSlow(self.pattern, self.what, self.pos, len(text)) from None

    def search(self, text: str) -> re.Match[str] | None:
        return self._limited(text, lambda c, **limit: c.search(text, **limit))  # type: ignore[no-any-return]

    def finditer(self, text: str) -> list[re.Match[str]]:
        return self._limited(text, lambda c, **limit: list(c.finditer(text, **limit)))  # type: ignore[no-any-return]

    def sub(self, replacement: str, text: str) -> str:
        return self._limited(text, lambda c, **limit: c.sub(replacement, text, **limit))  # type: ignore[no-any-return]
