"""A request whose `tool_choice` names one tool, through each official SDK.

A real model must call the named tool. Agents use that for structured output (a title, a verdict): when no
call of the scenario goes out as that tool, the request is a side request, answered with one call of it
whose arguments validate against its schema, and the scenario's next reply is still there for the turn.
When the scenario's next reply does call it, the request is an ordinary turn.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from google.genai import types

from tests.llm.conftest import (
    CHAT_TOOLS,
    CLAUDE_TOOLS,
    GEMINI_TOOLS,
    RESPONSES_TOOLS,
    Running,
    gemini_tool,
    load,
)

SCENARIO = """\
name: forced
timeline:
  - userInputs: [[0, "make notes.txt"]]
  - llmResponse:
      - assistant: [[0, "Creating notes.txt now."]]
  - runCmd: {cmd: "echo hi > notes.txt"}
  - llmResponse:
      - assistant: [[0, "Done."]]
"""

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "done": {"type": "boolean"},
        "score": {"type": "integer", "minimum": 1, "maximum": 5},
        "note": {"type": "string"},
    },
    "required": ["title", "done", "score"],
}
VERDICT = {
    "title": "Make notes.txt",
    "done": False,
    "score": 1,
}  # the smallest valid value, a title from the prompt


def test_anthropic(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.anthropic()
    tools: Any = [
        *CLAUDE_TOOLS,
        {"name": "report_verdict", "description": "Report", "input_schema": VERDICT_SCHEMA},
    ]
    prompt = [{"role": "user", "content": "make notes.txt"}]
    side = client.messages.create(model="m", max_tokens=500, tools=tools, messages=prompt,  # type: ignore[arg-type]
                                  tool_choice={"type": "tool", "name": "report_verdict"})  # fmt: skip
    assert [(b.type, getattr(b, "name", None), getattr(b, "input", None)) for b in side.content] == [
        ("tool_use", "report_verdict", VERDICT)
    ]
    assert side.stop_reason == "tool_use"
    turn = client.messages.create(model="m", max_tokens=500, tools=tools, messages=prompt)  # type: ignore[arg-type]
    assert [b.type for b in turn.content] == ["text", "tool_use"]  # the scenario's reply, still unplayed
    assert turn.content[0].text == "Creating notes.txt now." and turn.content[1].name == "Bash"  # type: ignore[union-attr]
    assert srv.failures == []


def test_a_forced_tool_the_next_reply_calls_is_a_turn(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    turn = srv.anthropic().messages.create(
        model="m", max_tokens=500, tools=CLAUDE_TOOLS, messages=[{"role": "user", "content": "make notes.txt"}],  # type: ignore[arg-type]
        tool_choice={"type": "tool", "name": "Bash"},
    )  # fmt: skip
    assert [b.type for b in turn.content] == ["text", "tool_use"]
    assert turn.content[1].input == {"command": "echo hi > notes.txt"}  # type: ignore[union-attr]


def test_a_forced_tool_that_is_not_offered_forces_nothing(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    """A real API refuses such a request; here it is an ordinary turn, not a call of a tool never offered."""
    srv = serve(load(tmp_path, SCENARIO))
    turn = srv.anthropic().messages.create(
        model="m", max_tokens=500, tools=CLAUDE_TOOLS, messages=[{"role": "user", "content": "make notes.txt"}],  # type: ignore[arg-type]
        tool_choice={"type": "tool", "name": "report_verdict"},
    )  # fmt: skip
    assert [b.type for b in turn.content] == ["text", "tool_use"] and turn.content[1].name == "Bash"  # type: ignore[union-attr]


def test_openai_chat(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    tools: Any = [
        *CHAT_TOOLS,
        {"type": "function", "function": {"name": "report_verdict", "parameters": VERDICT_SCHEMA}},
    ]
    prompt: Any = [{"role": "user", "content": "make notes.txt"}]
    side = client.chat.completions.create(model="m", messages=prompt, tools=tools,
                                          tool_choice={"type": "function", "function": {"name": "report_verdict"}})  # fmt: skip
    [call] = side.choices[0].message.tool_calls or []
    assert call.function.name == "report_verdict" and json.loads(call.function.arguments) == VERDICT  # type: ignore[union-attr]
    assert not side.choices[0].message.content and side.choices[0].finish_reason == "tool_calls"
    turn = client.chat.completions.create(model="m", messages=prompt, tools=tools).choices[0].message
    assert turn.content == "Creating notes.txt now."
    assert [c.function.name for c in turn.tool_calls or []] == ["bash"]  # type: ignore[union-attr]
    assert srv.failures == []


def test_openai_responses(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    tools: Any = [*RESPONSES_TOOLS, {"type": "function", "name": "report_verdict", "parameters": VERDICT_SCHEMA,
                                     "strict": False}]  # fmt: skip
    side = client.responses.create(model="m", input="make notes.txt", tools=tools,
                                   tool_choice={"type": "function", "name": "report_verdict"})  # fmt: skip
    calls = [item for item in side.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("report_verdict", VERDICT)]  # type: ignore[union-attr]
    turn = client.responses.create(model="m", input="make notes.txt", tools=tools)
    assert turn.output_text == "Creating notes.txt now."
    assert [item.name for item in turn.output if item.type == "function_call"] == ["exec_command"]  # type: ignore[union-attr]
    assert srv.failures == []


def test_gemini(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.gemini()
    verdict = gemini_tool("report_verdict", {"title": "string", "done": "boolean", "score": "integer"},
                          ["title", "done", "score"])  # fmt: skip
    tools: Any = [{"functionDeclarations": [*GEMINI_TOOLS[0]["functionDeclarations"], verdict]}]
    forced = types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(
            mode="ANY", allowed_function_names=["report_verdict"]
        )
    )
    side = client.models.generate_content(
        model="m",
        contents="make notes.txt",
        config=types.GenerateContentConfig(tools=tools, tool_config=forced),
    )
    assert [(c.name, c.args) for c in side.function_calls or []] == [("report_verdict", VERDICT)]
    turn = client.models.generate_content(model="m", contents="make notes.txt",
                                          config=types.GenerateContentConfig(tools=tools))  # fmt: skip
    assert turn.text == "Creating notes.txt now."
    assert [c.name for c in turn.function_calls or []] == ["run_shell_command"]
    assert srv.failures == []
