"""Tools with nothing real to run here: the scenario's ``result`` is their answer.

There is no network (``webFetch``/``webSearch``), no subagent (``task``), no
plan mode or slash-command host (``exitPlanMode``, ``slashCommand``). Each
returns the scenario's canned ``result``; without one, the session tools say
what a coding agent would, while the web tools fail and say why (a scenario
that fetches must script what came back). ``todoWrite`` checks and records the
list (in ``details``) and echoes it.
"""

from __future__ import annotations

from collections.abc import Mapping

from .base import Json, ToolContext, ToolError, ToolOutcome, arg

_MARKS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


def todo_write(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    todos = arg(args, "todos", default=[])
    if not isinstance(todos, list):
        raise ToolError("`todos` must be a list")
    if ctx.canned is not None:
        return ToolOutcome("ok", ctx.canned, details={"todos": todos})
    lines = []
    for todo in todos:
        if isinstance(todo, Mapping):
            mark = _MARKS.get(str(todo.get("status", "pending")), "[ ]")
            lines.append(f"{mark} {todo.get('content', todo.get('activeForm', ''))}")
        else:
            lines.append(f"[ ] {todo}")
    echo = "Todos updated" + ("\n" + "\n".join(lines) if lines else "")
    return ToolOutcome("ok", echo, details={"todos": todos})


def exit_plan_mode(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    if ctx.canned is not None:
        return ToolOutcome("ok", ctx.canned)
    return ToolOutcome("ok", "User has approved your plan. You can now start coding.")


def slash_command(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    if ctx.canned is not None:
        return ToolOutcome("ok", ctx.canned)
    command = arg(args, "command")
    if not isinstance(command, str) or not command:
        raise ToolError("needs `command`")
    return ToolOutcome("ok", f"Launching command: {command}")


def task(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    if ctx.canned is not None:
        return ToolOutcome("ok", ctx.canned)
    what = arg(args, "description", "prompt", default="the task")
    return ToolOutcome("ok", f"Subagent finished: {what}", details={"note": "no `result` scripted"})


def web(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    if ctx.canned is not None:
        return ToolOutcome("ok", ctx.canned)
    raise ToolError("no network in the workbench: script what came back as the tool's `result`")
