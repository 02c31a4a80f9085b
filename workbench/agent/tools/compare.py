"""Comparing what a tool really did with what the scenario says it did.

``status``: ``ok``/``completed``/``success`` mean the tool succeeded,
``error``/``failed`` that it failed; ``pending``/``in_progress`` (and anything
else) are not checked.

``result`` is compared only for tools whose output is the point (``runCmd``,
``readFile``, ``grep``, ``listDir``, ``find``, ``sed``, ``bashOutput``). For
tools that change files the scenario's result is what the agent prints ("File
written successfully"), so only the status is compared and the change itself
is on disk for ``assert`` to check; tools that return the canned result match
it by construction.

* Strings are compared after dropping trailing whitespace on each line and
  blank lines at both ends.
* A mapping checks only the keys it gives, recursively. Against a text result
  (``runCmd``'s output) its keys are looked up in the tool's details
  (``exitCode``, ``stdout``, ``stderr``, ``output``/``result``/``content`` for
  the text, ``running``, ``matches``...); a key the tool has no fact for is
  not checked. Against a structured result a missing key is a mismatch.
* Lists compare item by item and must have the same length; numbers compare
  as JSON numbers (1 == 1.0, true is not 1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from workbench.scenario.vocabulary import OUTPUT_TOOLS
from workbench.workspace import json_equal

from .base import Json, ToolOutcome

OK_STATUSES = frozenset({"ok", "completed", "success", "succeeded"})
ERROR_STATUSES = frozenset({"error", "failed", "failure"})


def compare_result(expected: Json, outcome: ToolOutcome, expected_status: str) -> str | None:
    """None if the real outcome is what the scenario says; else a short message: expected vs actual."""
    want_status = str(expected_status or "").lower()
    if want_status in OK_STATUSES and outcome.status != "ok":
        code = outcome.details.get("exitCode")
        exited = f" (exit code {code})" if isinstance(code, int) and not isinstance(code, bool) else ""
        return f"expected success, the tool failed{exited}: {short(outcome.result)}"
    if want_status in ERROR_STATUSES and outcome.status != "error":
        return f"expected an error, the tool succeeded: {short(outcome.result)}"
    if expected is None or outcome.tool not in OUTPUT_TOOLS:
        return None
    if isinstance(expected, Mapping) and not isinstance(outcome.result, Mapping):
        facts = {
            **outcome.details,
            "output": outcome.result,
            "result": outcome.result,
            "content": outcome.result,
        }
        return _subset(expected, facts, "", lenient=True)
    return _differs(expected, outcome.result, "")


def _subset(
    expected: Mapping[str, Json], actual: Mapping[str, Json], where: str, *, lenient: bool
) -> str | None:
    for key, value in expected.items():
        here = f"{where}.{key}" if where else str(key)
        if key not in actual:
            if lenient:
                continue
            return f"`{here}`: expected {short(value)}, it is missing"
        problem = _differs(value, actual[key], here)
        if problem:
            return problem
    return None


def _differs(expected: Json, actual: Json, where: str) -> str | None:
    label = f"`{where}`: expected" if where else "expected result"
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return _subset(expected, actual, where, lenient=False)
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{label} {len(expected)} items, got {len(actual)}: {short(actual)}"
        for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
            problem = _differs(want, got, f"{where}[{i}]" if where else f"[{i}]")
            if problem:
                return problem
        return None
    if isinstance(expected, str) or isinstance(actual, str):
        if normalise(_text(expected)) == normalise(_text(actual)):
            return None
    elif json_equal(expected, actual):
        return None
    return f"{label} {short(expected)}, got {short(actual)}"


def _text(value: Json) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def normalise(text: str) -> str:
    """Trailing whitespace of each line and blank lines at both ends do not count."""
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def short(value: Json, limit: int = 160) -> str:
    """A one-line rendering for a message: newlines as ⏎, long values cut."""
    text = normalise(_text(value)).replace("\n", "⏎")
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
