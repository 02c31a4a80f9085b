"""The tools the mock agent executes for real, in the workspace.

Each scenario tool, by its Agent Harbor name or a known alias (``runCmd``,
``run_command``, ``Bash``...; see :data:`ALIASES`), runs against real files and
real processes with every path confined to the workspace:

==============  ==========================================================
``runCmd``      real bash, ``cwd``, ``timeout``, ``run_in_background``  (:mod:`.shells`)
``bashOutput``  new output of a background shell; ``killShell`` ends one
``readFile``    ``offset``/``limit``; ``writeFile``, ``appendFile``      (:mod:`.files`)
``editFile``    exact string, ``replace_all``; ``sed`` is GNU sed
``grep``        ripgrep's options in Python; ``listDir``; ``find``/Glob  (:mod:`.search`)
``notebookEdit`` real .ipynb cells                                      (:mod:`.notebook`)
others          the scenario's canned ``result``                        (:mod:`.canned`)
==============  ==========================================================

An unknown tool returns the canned result with status ok and a note in its
details, rather than failing the run: a scenario written for another agent's
tool set still plays.

The real outcome is compared with the scenario by :func:`compare_result`;
``agentEdits`` are performed by :func:`perform_edit`.
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench.scenario.vocabulary import (  # one table
    ALIASES,
    EVENT_ARGUMENTS,
    OUTPUT_TOOLS,
    canonical_args,
    canonical_name,
)
from workbench.workspace import Workspace, WorkspaceError

from . import canned, files, notebook, search, shells
from .base import Handler, Json, ToolContext, ToolError, ToolOutcome
from .compare import compare_result
from .edits import perform_edit
from .shells import ShellRegistry

__all__ = [
    "ALIASES",
    "OUTPUT_TOOLS",
    "ShellRegistry",
    "ToolError",
    "ToolOutcome",
    "canonical_name",
    "compare_result",
    "execute_tool",
    "perform_edit",
]


_TOOLS: dict[str, Handler] = {
    "runCmd": shells.run_cmd, "bashOutput": shells.bash_output, "killShell": shells.kill_shell,
    "readFile": files.read_file, "writeFile": files.write_file, "appendFile": files.append_file,
    "editFile": files.edit_file, "sed": files.sed, "grep": search.grep, "listDir": search.list_dir,
    "find": search.find, "notebookEdit": notebook.notebook_edit, "todoWrite": canned.todo_write,
    "exitPlanMode": canned.exit_plan_mode, "slashCommand": canned.slash_command, "task": canned.task,
    "webFetch": canned.web, "webSearch": canned.web,
}  # fmt: skip


def execute_tool(
    name: str,
    args: Mapping[str, Json],
    workspace: Workspace,
    *,
    canned_result: Json = None,
    shells: ShellRegistry,
) -> ToolOutcome:
    """Run one tool for real and return its outcome. Never raises for anything a scenario can write:
    bad arguments and failures become status ``error``. (Claudeless ``tool_execution`` settings are
    applied before this, by the print-mode shim's tool runner.)"""
    tool = canonical_name(name)
    handler = _TOOLS.get(tool)
    if handler is None:
        return ToolOutcome("ok", canned_result, tool, {"note": f"`{name}` is not a tool the mock agent runs"})
    # any agent's argument names (filePath, oldString)
    args = canonical_args(args, EVENT_ARGUMENTS.get(tool, ()))
    try:
        outcome = handler(args, ToolContext(workspace, shells, canned_result))
    except (ToolError, WorkspaceError) as exc:
        return ToolOutcome("error", str(exc), tool)
    except OSError as exc:
        return ToolOutcome("error", str(exc.strerror or exc), tool)  # no absolute path: screens stay stable
    except (ValueError, TypeError) as exc:
        return ToolOutcome("error", f"bad arguments for {name}: {exc}", tool)
    outcome.tool = tool
    return outcome
