"""Diagnostics: every complaint about a scenario names ``file:line:col``.

Loaders never let a parser's exception escape. They raise :class:`ScenarioError`
carrying one or more :class:`Diagnostic` objects, and report forward-compatible
oddities (unknown Agent Harbor keys) as warnings through a :class:`Reporter`.
The command line prints them as ``file:line:col: error: message`` and exits 2.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum


@dataclass(frozen=True, slots=True, order=True)
class Pos:
    """A place in a source file; ``line`` and ``col`` count from 1."""

    file: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One message about one place: what is wrong and, where it helps, what is allowed."""

    pos: Pos
    message: str
    severity: Severity = Severity.ERROR

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


@dataclass
class Reporter:
    """Collects warnings (and deferred errors) while a file is loaded."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def warn(self, pos: Pos, message: str) -> None:
        self.diagnostics.append(Diagnostic(pos, message, Severity.WARNING))

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
