"""What every tool shares: the outcome, the error a tool reports, and argument helpers.

A tool either returns a :class:`ToolOutcome` or raises :class:`ToolError` (or
:class:`~workbench.workspace.WorkspaceError` for a path that escapes); the
dispatcher turns the raise into an outcome with status ``error`` and the
message as the result, which is what the agent would have seen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.records import frozen, record
from workbench.workspace import Workspace

if TYPE_CHECKING:
    from .shells import ShellRegistry

Json = Any
"""A JSON-like value: what a scenario writes as a tool's args and result."""


class ToolError(Exception):
    """The tool ran and failed (a missing file, a string not found): status `error`, this message."""


@record
class ToolOutcome:
    """What a tool did: ``status`` ``ok``/``error``, the ``result`` the agent sees, and details.

    ``details`` holds structured facts a scenario may check by key (``exitCode``,
    ``stdout``, ``stderr``, ``running``, ``matches``...) and notes.
    """

    status: str  # ok | error
    result: Json
    tool: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@frozen
class ToolContext:
    """Everything a tool may use besides its args."""

    workspace: Workspace
    shells: ShellRegistry
    canned: Json = None  # the scenario's `result`: the answer of tools that cannot really run


Handler = Callable[[Mapping[str, Json], ToolContext], ToolOutcome]


def arg(args: Mapping[str, Json], *names: str, default: Json = None) -> Json:
    """The first of ``names`` that is given (and not null); the aliases of one argument."""
    for name in names:
        if name in args and args[name] is not None:
            return args[name]
    return default


def text_arg(args: Mapping[str, Json], *names: str, default: str | None = None) -> str:
    """A required string argument (or ``default``); ToolError naming it when missing."""
    value = arg(args, *names, default=default)
    if not isinstance(value, str):
        raise ToolError(f"needs `{names[0]}`")
    return value


def int_arg(args: Mapping[str, Json], *names: str, default: int | None = None) -> int | None:
    value = arg(args, *names, default=default)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    try:
        return int(str(value))
    except ValueError:
        raise ToolError(f"`{names[0]}` must be a whole number, not {value!r}") from None


def flag_arg(args: Mapping[str, Json], *names: str) -> bool:
    value = arg(args, *names, default=False)
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def path_arg(
    args: Mapping[str, Json], ctx: ToolContext, *names: str, default: str | None = None
) -> tuple[str, Path]:
    """A path argument, confined to the workspace: (as written, resolved)."""
    rel = text_arg(args, *names, default=default)
    if not rel:
        raise ToolError(f"needs `{names[0]}`")
    return rel, ctx.workspace.resolve(rel, what=f"`{names[0]}`")


def read_path_arg(args: Mapping[str, Json], ctx: ToolContext, *names: str) -> tuple[str, Path]:
    """A path argument to read: relative ones confined to the workspace, absolute ones anywhere."""
    rel = text_arg(args, *names)
    if not rel:
        raise ToolError(f"needs `{names[0]}`")
    return rel, ctx.workspace.resolve_read(rel, what=f"`{names[0]}`")
