"""The rules for agents nobody wrote a preset for, each shown by a synthetic request
sequence through the OpenAI SDK: side requests found from the conversation's
structure (not from phrases), tool arguments fitted to the offered schema, and
an agent that ends the session inside a tool call."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.llm.conftest import Running, load

SCENARIO = """\
name: generic
timeline:
  - userInputs: [[0, "fix the greeting"]]
  - llmResponse:
      - assistant: [[0, "Writing it."]]
  - writeFile: {path: hello.txt, content: "hello\\n"}
  - llmResponse:
      - assistant: [[0, "Now the edit and a check."]]
  - agentEdits: {path: hello.txt, oldText: "hello", newText: "hi"}
  - runCmd: {cmd: cat hello.txt, cwd: sub, result: "hi"}
  - llmResponse:
      - assistant: [[0, "Done."]]
"""


def tool(name: str, required: list[str], **props: str) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {k: {"type": v} for k, v in props.items()},
        "required": required,
    }
    return {"type": "function", "function": {"name": name, "description": name, "parameters": schema}}


# An agent with camelCase schemas and pi's tool names (an opencode-like tool set).
CAMEL = [
    tool("write", ["filePath", "content"], filePath="string", content="string"),
    tool(
        "edit",
        ["filePath", "oldString", "newString"],
        filePath="string",
        oldString="string",
        newString="string",
    ),
    tool("bash", ["command"], command="string", workdir="string", description="string"),
    tool("read", ["filePath"], filePath="string"),
]
SYSTEM = {"role": "system", "content": "You are a coding agent."}
PROMPT = {"role": "user", "content": "fix the greeting"}


def calls_of(reply: Any) -> list[tuple[str, dict[str, Any]]]:
    return [
        (c.function.name, json.loads(c.function.arguments)) for c in reply.choices[0].message.tool_calls or []
    ]


def results(reply: Any, *outputs: str) -> list[dict[str, Any]]:
    """The assistant turn with its calls, then one tool message per call."""
    calls = reply.choices[0].message.tool_calls or []
    turn = {
        "role": "assistant",
        "content": reply.choices[0].message.content,
        "tool_calls": [c.model_dump() for c in calls],
    }
    return [
        turn,
        *(
            {"role": "tool", "tool_call_id": c.id, "content": out}
            for c, out in zip(calls, outputs, strict=True)
        ),
    ]


def test_title_request_before_the_first_turn_gives_its_reply_back(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    """The title request comes first, offers no tools and asks nothing structured: it gets the
    first reply without its tool call; the real turn (with tools) then gets that reply whole."""
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    title = client.chat.completions.create(
        model="m",
        messages=[{"role": "system", "content": "Summarise the user's request in a few words."}, PROMPT],
    )
    assert title.choices[0].message.tool_calls is None
    first = client.chat.completions.create(model="m", messages=[SYSTEM, PROMPT], tools=CAMEL)  # type: ignore[arg-type]
    assert first.choices[0].message.content == "Writing it."
    assert calls_of(first) == [("write", {"filePath": "hello.txt", "content": "hello\n"})]
    assert srv.failures == []
    assert any("turned out to be a side request" in n.message for n in srv.server.notes)


def test_tool_less_router_calls_do_not_consume_the_timeline(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    first = client.chat.completions.create(model="m", messages=[SYSTEM, PROMPT], tools=CAMEL)  # type: ignore[arg-type]
    for _ in range(3):  # a router asked before each turn: no tools, no model history
        routed = client.chat.completions.create(
            model="m", messages=[{"role": "system", "content": "Pick a model."}, PROMPT]
        )
        assert routed.choices[0].message.tool_calls is None
    second = client.chat.completions.create(
        model="m",
        messages=[SYSTEM, PROMPT, *results(first, "wrote hello.txt")],
        tools=CAMEL,  # type: ignore[list-item]
    )
    assert second.choices[0].message.content == "Now the edit and a check."
    assert srv.failures == []


def test_camel_case_schemas_get_their_own_argument_names(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    """pi's tool names with other schemas: not the pi profile (its `path`, `edits` would be
    dropped), but each argument mapped to the property the offered tool declares."""
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    first = client.chat.completions.create(model="m", messages=[SYSTEM, PROMPT], tools=CAMEL)  # type: ignore[arg-type]
    history = [SYSTEM, PROMPT, *results(first, "wrote hello.txt")]
    second = client.chat.completions.create(model="m", messages=history, tools=CAMEL)  # type: ignore[arg-type]
    assert calls_of(second) == [
        ("edit", {"filePath": "hello.txt", "oldString": "hello", "newString": "hi"}),
        ("bash", {"command": "cat hello.txt", "workdir": "sub"}),
    ]
    history += results(second, "edited", "hi\n")
    assert (
        client.chat.completions.create(model="m", messages=history, tools=CAMEL).choices[0].message.content
        == "Done."
    )  # type: ignore[arg-type]
    srv.finish()
    assert srv.failures == []


def test_a_required_property_nothing_maps_to_fails_with_the_line_call_and_schema(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    # `target` and `body` say path and content (workbench.llm.intent); `mode` nothing in the call gives
    odd = [tool("write", ["target", "body", "mode"], target="string", body="string", mode="string")]
    srv = serve(load(tmp_path, SCENARIO))
    srv.openai().chat.completions.create(model="m", messages=[SYSTEM, PROMPT], tools=odd)  # type: ignore[arg-type]
    (failure,) = srv.failures
    assert failure.kind == "tool" and failure.line == 6
    assert "writeFile" in failure.message and "`write`" in failure.message
    assert (
        "requires body, mode, target" in failure.message and '"target": {"type": "string"}' in failure.message
    )


def test_an_agent_that_exits_inside_its_last_tool_call(tmp_path: Path, serve: Callable[..., Running]) -> None:
    """A "submit" command ends the session: its result never comes. A note, not a failure."""
    scenario = load(tmp_path, 'name: submit\ntimeline:\n  - llmResponse: [{assistant: [[0, "Submitting."]]}]\n'
                    '  - runCmd: {cmd: submit, result: "ok"}\n  - assert: {fs: {exists: [x]}}\n')  # fmt: skip
    srv = serve(scenario, workspace=tmp_path)
    reply = srv.openai().chat.completions.create(model="m", messages=[SYSTEM, PROMPT], tools=CAMEL)  # type: ignore[arg-type]
    assert calls_of(reply) == [("bash", {"command": "submit"})]
    srv.finish()
    assert [(f.kind, f.line) for f in srv.failures] == [("assert", 5)]  # the outcome is still checked
    assert [n.line for n in srv.server.notes if "ended without sending the result" in n.message] == [4]


def test_rules_never_send_a_tool_call_to_a_request_without_tools(serve: Callable[..., Running]) -> None:
    from tests.llm.conftest import rule, rules_scenario
    from workbench.scenario import model as m

    reply = m.Reply("calling", tool_calls=(m.ToolCall("Bash", {"command": "ls"}),))
    srv = serve(rules_scenario([rule("any", "", reply)]))
    answer = srv.openai().chat.completions.create(model="m", messages=[PROMPT])  # type: ignore[list-item]
    assert answer.choices[0].message.tool_calls is None and answer.choices[0].message.content == "calling"
    with_tools = srv.openai(key="other").chat.completions.create(model="m", messages=[PROMPT], tools=CAMEL)  # type: ignore[list-item,arg-type]
    assert [c[0] for c in calls_of(with_tools)] == ["bash"]
