"""Checks the server makes between two model turns, and the failures they record.

A real agent runs the tools itself; its results come back in the next request.
The scenario's expected ``result`` is compared by containment (agents wrap
output: Claude Code says "File created successfully at ...", Codex prefixes
"Process exited with code 0 ... Output:"), ignoring surrounding whitespace;
``status`` is compared with the agent's error flag (`is_error` in Anthropic
results) or, where the wire has none, with an exit code the output reports.

``assert`` steps are checked before the next response is sent: ``fs``,
``json.file`` and ``git.commit`` against the workspace the server was given;
``text.contains`` needs the screen, which lives in the engine, so it is left to
the engine's ``on_assert`` hook (and noted as skipped without one).
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.scenario import model as m

from .conversation import ToolResult

FailureKind = str  # tool | assert | expect | process (the engine's report kinds)

_EXIT = re.compile(r"(?:Process exited with code|[Ee]xit code:?|exited with (?:code|status)) (-?\d+)")
OK_STATUSES = ("ok", "completed", "success")
ERROR_STATUSES = ("error", "failed")


@dataclass(frozen=True, slots=True)
class LlmFailure:
    """A failure found while serving: the step and line of the scenario that scripted it."""

    kind: FailureKind
    message: str
    line: int = 0
    step: int = 0
    file: str = ""
    session: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file else (f"line {self.line}: " if self.line else "")
        return f"{where}{self.kind}: {self.message}"


def _short(text: str, limit: int = 160) -> str:
    text = text.strip().replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def result_status(result: ToolResult) -> str:
    """`error` or `ok`, from the wire's error flag or an exit code in the output."""
    if result.is_error is not None:
        return "error" if result.is_error else "ok"
    found = _EXIT.search(result.text)
    return "error" if found and found.group(1) != "0" else "ok"


def compare_tool_result(tool: m.ToolUse, result: ToolResult) -> str | None:
    """What is wrong with the agent's result for ``tool``, or None."""
    expected_status = _expected_status(tool)
    actual = result_status(result)
    if expected_status in OK_STATUSES and actual == "error":
        return f"expected status {expected_status}, the agent reported an error: {_short(result.text)!r}"
    if expected_status in ERROR_STATUSES and actual == "ok":
        return f"expected status {expected_status}, the agent reported success: {_short(result.text)!r}"
    if tool.result is None:
        return None
    expected = tool.result if isinstance(tool.result, str) else json.dumps(tool.result, ensure_ascii=False)
    if expected.strip() in result.text or _json_equal(tool.result, result.text):
        return None
    return (
        f"expected a result containing {_short(expected)!r}, the agent's result was {_short(result.text)!r}"
    )


def _expected_status(tool: m.ToolUse) -> str:
    """`toolExecution`'s completion exit code decides, as in Agent Harbor; else `status`."""
    for event in tool.execution:
        if event.type == "completion" and event.exit_code is not None:
            return "ok" if event.exit_code == 0 else "error"
    return tool.status.lower()


def _json_equal(expected: Any, text: str) -> bool:
    if isinstance(expected, str):
        return False
    try:
        return bool(json.loads(text) == expected)
    except ValueError:
        return False


async def check_assert(event: m.Assert, workspace: Path | None) -> tuple[list[str], list[str]]:
    """(problems, notes) for the checks the server can make itself."""
    problems: list[str] = []
    notes: list[str] = []
    if workspace is None:
        if event.fs_exists or event.fs_not_exists or event.json_file or event.git_commit_message_contains:
            notes.append("fs/json/git checks skipped: the server was given no workspace")
        return problems, notes
    for path in event.fs_exists:
        if not (workspace / path).exists():
            problems.append(f"fs.exists: {path} does not exist")
    for path in event.fs_not_exists:
        if (workspace / path).exists():
            problems.append(f"fs.notExists: {path} exists")
    for check in event.json_file:
        problem = json_pointer_check(workspace / check.path, check.pointer, check.equals)
        if problem:
            problems.append(f"json.file {check.path}{check.pointer}: {problem}")
    if event.git_commit_message_contains:
        message = await _last_commit_message(workspace)
        for text in event.git_commit_message_contains:
            if message is None:
                problems.append("git.commit: the workspace has no commit")
            elif text not in message:
                problems.append(f"git.commit: the last commit message does not contain {text!r}")
    return problems, notes


def json_pointer_check(path: Path, pointer: str, equals: Any) -> str | None:
    try:
        value: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return "the file does not exist"
    except (OSError, ValueError) as exc:
        return f"not readable JSON ({exc})"
    for raw in pointer.split("/")[1:] if pointer else []:
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, dict) and key in value:
            value = value[key]
        else:
            return "the pointer does not resolve"
    return None if value == equals else f"is {json.dumps(value)}, expected {json.dumps(equals)}"


async def _last_commit_message(workspace: Path) -> str | None:
    try:
        proc = await asyncio.create_subprocess_exec(
            "git", "-C", str(workspace), "log", "-1", "--format=%B",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return None
    out, _ = await proc.communicate()
    return out.decode("utf-8", "replace") if proc.returncode == 0 else None
