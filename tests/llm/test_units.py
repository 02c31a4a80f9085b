"""Small pieces: result comparison, schema instances, prompt extraction, deltas, token limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from workbench.llm.checks import compare_tool_result
from workbench.llm.conversation import ChatRequest, Message, ToolResult, prompt_of
from workbench.llm.reply import Chunk, Reply, TextBlock, ToolCallBlock, deltas, limit_tokens
from workbench.llm.structured import instance
from workbench.scenario import model as m
from workbench.scenario.diagnostics import Pos

P = Pos("t.yaml", 3)


def tool(result: Any = None, status: str = "ok", exit_code: int | None = None) -> m.ToolUse:
    execution = (m.ExecutionEvent("completion", 10, "", P, exit_code),) if exit_code is not None else ()
    return m.ToolUse(P, tool_name="runCmd", result=result, status=status, execution=execution)


@pytest.mark.parametrize(
    ("expected", "actual", "problem"),
    [
        (tool("hello"), ToolResult("c", "Output:\nhello\n"), None),
        (tool("hello"), ToolResult("c", "bye"), "expected a result containing 'hello'"),
        (tool({"a": 1}), ToolResult("c", '{"a": 1}'), None),
        (tool(None, "error"), ToolResult("c", "boom", is_error=True), None),
        (
            tool(None, "error"),
            ToolResult("c", "fine", is_error=False),
            "expected status error, the agent reported success",
        ),
        (
            tool(None),
            ToolResult("c", "Process exited with code 3"),
            "expected status ok, the agent reported an error",
        ),
        (tool(None, exit_code=2), ToolResult("c", "Exit code: 2"), None),
        (tool(None, "pending"), ToolResult("c", "x", is_error=True), None),
    ],
)
def test_tool_result_comparison(expected: m.ToolUse, actual: ToolResult, problem: str | None) -> None:
    found = compare_tool_result(expected, actual)
    assert (found is None) if problem is None else (found is not None and found.startswith(problem))


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"title": {"type": "string", "maxLength": 10}}, "required": ["title"],
         "additionalProperties": False},
        {"type": "object", "properties": {"kind": {"enum": ["a", "b"]}, "n": {"type": "number", "exclusiveMinimum": 0},
                                          "when": {"type": "string", "format": "date-time"}}},
        {"$defs": {"item": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 5}}, "required": ["id"]}},
         "type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/item"}, "minItems": 2}},
         "required": ["items"]},
        {"anyOf": [{"type": "string", "minLength": 3}, {"type": "null"}]},
        {"type": ["null", "boolean"]},
    ],
)  # fmt: skip
def test_schema_instances_validate(schema: dict[str, Any]) -> None:
    jsonschema.validate(instance(schema, "A rather long title"), schema)


def test_prompt_extraction_drops_agent_context() -> None:
    assert prompt_of(("<system-reminder>\nx\n</system-reminder>\n", "say hi")) == "say hi"
    assert prompt_of(("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",)) == ""
    assert prompt_of(("# AGENTS.md instructions for /w\n<INSTRUCTIONS>..</INSTRUCTIONS>", "go")) == "go"
    assert prompt_of(("fix <b>this</b> now",)) == "fix <b>this</b> now"
    chat = ChatRequest("openai-chat", "m", (Message("user", ("first",)), Message("assistant", (), (), ("c1",)),
                                           Message("tool", (), (ToolResult("c1", "out"),))))  # fmt: skip
    assert chat.first_prompt() == "first" and chat.ends_with_tool_results() and chat.matching_text() == "out"


def test_deltas_and_token_limits() -> None:
    text = "The quick brown fox jumps over the lazy dog " * 3
    assert "".join(deltas(text)) == text and all(len(d) <= 24 for d in deltas(text))
    reply = Reply((TextBlock((Chunk("x" * 100),)), ToolCallBlock("c", "Bash", {"command": "ls"})))
    cut = limit_tokens(reply, 10)
    assert cut.stop_reason == "max_tokens" and cut.text == "x" * 40 and cut.tool_calls == ()
    assert limit_tokens(reply, 1000) is reply


def test_server_asserts_are_the_workspaces_checks_confined_and_typed(tmp_path: Path) -> None:
    import asyncio

    from workbench.llm.checks import check_assert
    from workbench.scenario import model as m
    from workbench.scenario.diagnostics import Pos

    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "outside.txt").write_text("not the workspace's")
    (workspace / "conf.json").write_text('{"on": true}')
    pos = Pos("s.yaml", 1, 1)
    event = m.Assert(pos, fs_exists=("../outside.txt",),
                     json_file=(m.JsonFileCheck("conf.json", "/on", 1, pos),))  # fmt: skip
    problems, notes = asyncio.run(check_assert(event, workspace))
    assert notes == [] and len(problems) == 2
    assert problems[0].startswith("fs.exists: ") and "outside" in problems[0]  # `..` does not leave it
    assert problems[1].startswith("json.file: ") and "expected 1" in problems[1]  # true is not 1
