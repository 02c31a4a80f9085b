"""Diagnostics: every complaint about a scenario names ``file:line:col``.

Loaders never let a parser's exception escape. They raise :class:`ScenarioError`
carrying one or more :class:`Diagnostic` objects, and report forward-compatible
oddities (unknown Agent Harbor keys) as warnings through a :class:`Reporter`.
The command line prints them as ``file:line:col: error: message`` and exits 2.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from workbench.records import frozen, record

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with its control characters written as escapes (``\\x1b``), line breaks and tabs kept: a key,
    a value or a file name quoted from a scenario must not drive the terminal that shows the message. The
    bidirectional controls (``\\u202e`` and its kin) are escaped too: they reorder what follows them on the
    line, so a name could show as another, or a message say what it does not."""
    return _CONTROL.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


@dataclass(frozen=True, slots=True, order=True)
class Pos:
    """A place in a source file; ``line`` and ``col`` count from 1."""

    file: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{printable(self.file)}:{self.line}:{self.col}"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@frozen
class Diagnostic:
    """One message about one place: what is wrong and, where it helps, what is allowed."""

    pos: Pos
    message: str
    severity: Severity = Severity.ERROR
    ci_error: bool = False  # a warning that `--ci` (strict) refuses as an error

    def __post_init__(self) -> None:
        if _CONTROL.search(self.message):  # every reader (console, reports, the app) gets it printable
            object.__setattr__(self, "message", printable(self.message))

    def __str__(self) -> str:
        return f"{self.pos}: {self.severity.value}: {self.message}"


class ScenarioError(Exception):
    """Raised for invalid input; carries every diagnostic found before giving up."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))

    @classmethod
    def at(cls, pos: Pos, message: str) -> ScenarioError:
        return cls([Diagnostic(pos, message)])


@record
class Reporter:
    """Collects warnings (and deferred errors) while a file is loaded.

    ``strict`` (what ``workbench run --ci`` and ``validate --ci`` ask for) makes an
    unknown key inside a known structure an error: there a typo such as `exist:`
    for `exists:` would otherwise drop an assertion and let the scenario pass. So
    are the :meth:`doubtful` findings. Without ``strict`` those stay warnings
    marked ``ci_error``, so `validate` can say which ones `--ci` would refuse.
    """

    diagnostics: list[Diagnostic] = field(default_factory=list)
    strict: bool = False

    def warn(self, pos: Pos, message: str) -> None:
        self.diagnostics.append(Diagnostic(pos, message, Severity.WARNING))

    def unknown(self, pos: Pos, what: str, hint: str, *, top_level: bool = False) -> None:
        """An unknown name: a warning (``what ignored; hint``), an error when strict and nested."""
        if self.strict and not top_level:
            self.error(pos, f"{what}; {hint}")
        else:
            self.diagnostics.append(
                Diagnostic(pos, f"{what} ignored; {hint}", Severity.WARNING, not top_level)
            )

    def doubtful(self, pos: Pos, message: str) -> None:
        """What makes a scenario unable to pass (as its author meant it): a warning, an error when strict."""
        if self.strict:
            self.error(pos, message)
        else:
            self.diagnostics.append(Diagnostic(pos, message, Severity.WARNING, ci_error=True))

    def error(self, pos: Pos, message: str) -> None:
        self.diagnostics.append(Diagnostic(pos, message, Severity.ERROR))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.WARNING]

    def raise_if_errors(self) -> None:
        if self.errors:
            raise ScenarioError(self.errors)


def one_of(values: Iterable[str]) -> str:
    """Render an 'allowed values' list the same way in every message."""
    return ", ".join(f"`{v}`" for v in values)


def nearest(word: str, names: Iterable[str]) -> str | None:
    """The known name ``word`` is most likely a typo of, or None when none is close."""
    import difflib  # only when a name is unknown: keeps `workbench --help` light

    names = tuple(names)
    by_lower = {n.lower(): n for n in names}
    if word.lower() in by_lower:
        return by_lower[word.lower()]
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.75)
    return by_lower[close[0]] if close else None


FEW = 6  # a list of allowed names longer than LONG is cut to its FEW nearest
LONG = 12


def did_you_mean(
    word: str, names: Iterable[str], listing: str = "allowed:", every: str = "`workbench schema` lists them"
) -> str:
    """``did you mean `x`?`` when a name is close; otherwise the allowed names, or of a list longer than
    :data:`LONG` (the 48 events) the :data:`FEW` nearest ``word``, how many more there are and where
    ``every`` one is.

    One suggestion reads better than forty names, and so do a few over a wall of them.
    """
    names = tuple(names)
    close = nearest(word, names)
    if close:
        return f"did you mean `{close}`?"
    if len(names) <= LONG:
        return f"{listing} {one_of(names)}"
    return f"{listing} {one_of(nearest_few(word, names))} and {len(names) - FEW} more ({every})"


def nearest_few(word: str, names: Sequence[str]) -> list[str]:
    """The :data:`FEW` names most like ``word`` (by :class:`difflib.SequenceMatcher`), most alike first."""
    import difflib

    matcher = difflib.SequenceMatcher(b=word.lower())
    scores = []
    for name in names:
        matcher.set_seq1(name.lower())
        scores.append(matcher.ratio())
    order = sorted(range(len(names)), key=lambda i: -scores[i])  # stable: ties keep the names' order
    return [names[i] for i in order[:FEW]]


def count(n: int, noun: str) -> str:
    """``1 error``, ``2 errors``: counts printed anywhere agree with their number."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
