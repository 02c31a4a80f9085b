"""One scripted tool call in print mode, as the rules' ``tool_execution`` says.

* A per-tool ``error`` fails the call with that message.
* A canned result (the call's ``result``, else the per-tool ``result``) is the
  answer, in both modes: nothing runs.
* Without one, mode ``mock`` fails the call ("No mock result configured for
  tool 'X'"), and mode ``live`` (the default) runs the tool for real in the
  working folder with the mock agent's tools.
* ``AskUserQuestion`` is answered from the per-tool ``answers`` (question to
  option label), else each question's first option, as Claudeless does in print
  mode; ``TodoWrite`` and ``ExitPlanMode`` also write the todo list and the plan
  into the config folder, where Claude Code keeps them.

The results are Claude Code's: the text the model sees and the structured
``toolUseResult`` its transcript records.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

TODO_RESULT = ("Todos have been modified successfully. Ensure that you continue to use the todo list to track "
               "your progress. Please proceed with the current tasks if applicable")  # fmt: skip


class ToolRun:
    """What the model is told about one call: the text, whether it failed, and the structured
    ``toolUseResult`` Claude Code records beside the text."""

    def __init__(self, content: str, is_error: bool = False, tool_use_result: Any = None) -> None:
        self.content = content
        self.is_error = is_error
        self.tool_use_result = tool_use_result


def run_call(
    tool: str,
    tool_input: Mapping[str, Any],
    canned: str | None,
    setting: Any,
    mode: str,
    cwd: Path,
    state: ToolState,
) -> ToolRun:
    if setting is not None and getattr(setting, "error", None) is not None:
        return ToolRun(str(setting.error), True, f"Error: {setting.error}")
    if canned is None and setting is not None:
        canned = getattr(setting, "result", None)
    if tool == "AskUserQuestion" and canned is None:
        return _ask(tool_input, getattr(setting, "answers", None) or {})
    if tool == "TodoWrite":
        return state.todo_write(tool_input, canned)
    if canned is not None:
        return ToolRun(str(canned), False, canned)
    if mode == "mock":
        return ToolRun(f"No mock result configured for tool '{tool}'", True)
    if tool == "ExitPlanMode":
        return state.exit_plan_mode(tool_input)
    return state.live(tool, tool_input, cwd)


class ToolState:
    """What tools share within one call of the shim: background shells, the todo list, the plan folder."""

    def __init__(self, write_todos: Callable[[list[Any]], None], write_plan: Callable[[str], str]) -> None:
        self._write_todos = write_todos
        self._write_plan = write_plan
        self._todos: list[Any] = []
        self._shells: Any = None

    def todo_write(self, tool_input: Mapping[str, Any], canned: str | None) -> ToolRun:
        todos = tool_input.get("todos")
        if not isinstance(todos, list):
            return ToolRun("InputValidationError: TodoWrite failed: `todos` must be a list", True)
        old, self._todos = self._todos, list(todos)
        self._write_todos(self._todos)
        return ToolRun(
            canned if canned is not None else TODO_RESULT, False, {"oldTodos": old, "newTodos": todos}
        )

    def exit_plan_mode(self, tool_input: Mapping[str, Any]) -> ToolRun:
        plan = tool_input.get("plan", tool_input.get("plan_content", ""))
        where = self._write_plan(str(plan))
        return ToolRun(f"Plan saved to {where}", False, {})

    def live(self, tool: str, tool_input: Mapping[str, Any], cwd: Path) -> ToolRun:
        from workbench.agent.tools import ShellRegistry, execute_tool
        from workbench.workspace import Workspace

        if self._shells is None:
            self._shells = ShellRegistry()
        outcome = execute_tool(tool, dict(tool_input), Workspace.attach(cwd), shells=self._shells)
        result = outcome.result
        text = result if isinstance(result, str) else "" if result is None else json.dumps(result)
        details = outcome.details
        if "stdout" not in details:
            return ToolRun(text, outcome.status != "ok", text)
        # A command: Claude Code's Bash result (stdout and stderr, "Exit code N" first when it failed).
        code = details.get("exitCode")
        structured = {"stdout": str(details.get("stdout", "")).rstrip("\n"),
                      "stderr": str(details.get("stderr", "")).rstrip("\n"), "interrupted": code is None,
                      "isImage": False, "noOutputExpected": False}  # fmt: skip
        content = text.rstrip("\n")
        if code not in (0, None):
            content = f"Exit code {code}\n{content}".rstrip("\n")
        return ToolRun(content, outcome.status != "ok", structured)

    def close(self) -> None:
        if self._shells is not None:
            self._shells.close()


def _ask(tool_input: Mapping[str, Any], answers: Mapping[str, Any]) -> ToolRun:
    questions = tool_input.get("questions")
    if not isinstance(questions, list):
        return ToolRun("InputValidationError: AskUserQuestion failed: `questions` must be a list", True)
    chosen: dict[str, str] = {}
    for q in questions:
        if not isinstance(q, Mapping):
            continue
        text = str(q.get("question", ""))
        answer = answers.get(text)
        if answer is None:
            options = q.get("options") or []
            first = options[0] if options else None
            answer = first.get("label", "") if isinstance(first, Mapping) else str(first or "")
        chosen[text] = ", ".join(map(str, answer)) if isinstance(answer, list) else str(answer)
    said = ", ".join(f'"{q}"="{a}"' for q, a in chosen.items())
    content = (
        f"User has answered your questions: {said}. You can now continue with the user's answers in mind."
    )
    return ToolRun(content, False, {"questions": questions, "answers": chosen})
