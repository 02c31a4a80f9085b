"""Checks the server makes between two model turns, and the failures they record.

A real agent runs the tools itself; its results come back in the next request.
The scenario's expected ``result`` is compared by containment (agents wrap
output: Codex prefixes "Process exited with code 0 ... Output:"), ignoring
surrounding whitespace, for the tools whose output is the point (a command's, a
read's: :data:`~workbench.scenario.vocabulary.OUTPUT_TOOLS`, and names the
vocabulary does not know); what a file write answers is its agent's wording;
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
from typing import Any, Literal

from workbench.agent.tools.compare import ERROR_STATUSES, OK_STATUSES, short
from workbench.scenario import model as m
from workbench.scenario.outcomes import FailureKind
from workbench.scenario.vocabulary import OUTPUT_TOOLS, SPELLINGS, canonical_name
from workbench.workspace import Workspace, json_equal
from workbench.workspace.asserts import has_workspace_checks, workspace_checks

from .conversation import ToolResult

_EXIT = re.compile(r"(?:Process exited with code|(?i:exit code):?|exited with (?:code|status)) (-?\d+)")


ServerKind = FailureKind | Literal["note"]
"""A report kind, or `note`: something the server noticed that is not a failure."""


@dataclass(frozen=True, slots=True)
class LlmFailure:
    """A failure found while serving: the step and line of the scenario that scripted it."""

    kind: ServerKind
    message: str
    line: int = 0
    step: int = 0
    file: str = ""
    session: str = ""
    fatal: bool = False  # the run cannot go on (a scenario tool no offered tool does): stop it at once
    # the two texts, when what was found is that one differs from the other (the agent's prompt is not the
    # scenario's input): the report shows them side by side, diffed, at the step
    expected: str | None = None
    actual: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file else (f"line {self.line}: " if self.line else "")
        return f"{where}{self.kind}: {self.message}"


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
        return f"expected status {expected_status}, the agent reported an error: {short(result.text)}"
    if expected_status in ERROR_STATUSES and actual == "ok":
        return f"expected status {expected_status}, the agent reported success: {short(result.text)}"
    if tool.result is None or not _output_is_the_point(tool.tool_name):
        return None
    expected = tool.result if isinstance(tool.result, str) else json.dumps(tool.result, ensure_ascii=False)
    if expected.strip() in result.text or _json_equal(tool.result, result.text):
        return None
    return f"expected a result containing {short(expected)}, the agent's result was {short(result.text)}"


def _output_is_the_point(name: str) -> bool:
    """What a known tool that changes files answers is its agent's own wording ("File created
    successfully at ...", "saved x"): only its status is compared, as the mock agent does, and the change
    is on disk for ``assert``. A name the vocabulary does not know is compared: nothing says what it does."""
    canon = canonical_name(name)
    return canon in OUTPUT_TOOLS or canon not in SPELLINGS


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
        return json_equal(json.loads(text), expected)
    except ValueError:
        return False


async def check_assert(event: m.Assert, workspace: Path | None) -> tuple[list[str], list[str]]:
    """(problems, notes) for the checks the server can make itself: the workspace part of the assertion
    evaluator the engine uses (paths confined to the workspace, JSON compared by type)."""
    if workspace is None:
        notes = (
            ["fs/json/git checks skipped: the server was given no workspace"]
            if has_workspace_checks(event)
            else []
        )
        return [], notes
    ws = Workspace.attach(workspace)
    checks = await asyncio.to_thread(workspace_checks, event, ws)
    return [f"{kind}: {check.message}" for kind, check in checks if not check.ok], []
