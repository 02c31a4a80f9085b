"""OpenAI Chat Completions through the official SDK: content and tool-call deltas, usage, results."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2

from tests.llm.conftest import CHAT_TOOLS, Running, load

SCENARIO = """\
name: chat
timeline:
  - userInputs: [[0, "make notes.txt"]]
  - llmResponse:
      - think: [[10, "hidden in this style"]]
      - assistant: [[10, "Creating notes.txt now."]]
  - writeFile: {path: notes.txt, content: "a\\nb\\n"}
  - runCmd: {cmd: wc -l notes.txt, result: "2 notes.txt"}
  - llmResponse:
      - assistant: [[10, "notes.txt has 2 lines."]]
"""


def test_streaming_content_tool_calls_usage_and_done(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    stream = client.chat.completions.create(
        model="mock-model", messages=[{"role": "system", "content": "You are pi."}, {"role": "user", "content": "make notes.txt"}],
        tools=CHAT_TOOLS, stream=True, stream_options={"include_usage": True},
    )  # fmt: skip
    chunks = list(stream)
    assert len({c.id for c in chunks}) == 1 and chunks[0].id.startswith("chatcmpl-")
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Creating notes.txt now."  # thinking never shows in Chat Completions
    finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finish == ["tool_calls"]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
    calls: dict[int, dict[str, Any]] = {}
    for c in chunks:
        for tc in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            entry = calls.setdefault(tc.index, {"id": tc.id, "name": tc.function.name, "args": ""})
            entry["args"] += tc.function.arguments or ""
    assert [(c["name"], json.loads(c["args"])) for c in calls.values()] == [
        ("write", {"path": "notes.txt", "content": "a\nb\n"}),
        ("bash", {"command": "wc -l notes.txt"}),
    ]
    assert all(c["id"].startswith("call_") for c in calls.values())
    history = [
        {"role": "user", "content": "make notes.txt"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["args"]}} for c in calls.values()]},
        {"role": "tool", "tool_call_id": calls[0]["id"], "content": "Successfully wrote 4 bytes to notes.txt"},
        {"role": "tool", "tool_call_id": calls[1]["id"], "content": "2 notes.txt\n"},
    ]  # fmt: skip
    final = client.chat.completions.create(model="mock-model", messages=history, tools=CHAT_TOOLS)  # type: ignore[arg-type]
    assert final.choices[0].message.content == "notes.txt has 2 lines."
    assert final.choices[0].finish_reason == "stop" and final.object == "chat.completion"
    assert srv.failures == []


def test_accumulating_helper_and_a_failed_result(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    with client.chat.completions.stream(model="m", messages=[{"role": "user", "content": "make notes.txt"}],
                                        tools=CHAT_TOOLS) as stream:  # type: ignore[arg-type]  # fmt: skip
        completion = stream.get_final_completion()
    message = completion.choices[0].message
    assert (
        message.content == "Creating notes.txt now." and completion.choices[0].finish_reason == "tool_calls"
    )
    calls = message.tool_calls or []
    assert [c.function.name for c in calls] == ["write", "bash"]  # type: ignore[union-attr]
    history = [
        {"role": "user", "content": "make notes.txt"},
        {"role": "assistant", "content": None, "tool_calls": [c.model_dump() for c in calls]},
        {"role": "tool", "tool_call_id": calls[0].id, "content": "ok"},
        {"role": "tool", "tool_call_id": calls[1].id, "content": "wc: notes.txt: No such file\nProcess exited with code 1"},
    ]  # fmt: skip
    client.chat.completions.create(model="m", messages=history)  # type: ignore[arg-type]
    assert srv.messages() == [
        "8: tool: runCmd (bash): expected status ok, the agent reported an error: "
        "'wc: notes.txt: No such file⏎Process exited with code 1'"
    ]


def test_raw_stream_ends_with_done_and_has_no_event_names(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "make notes.txt"}]}
    with httpx2.stream(
        "POST", srv.openai_url + "/chat/completions", json=body, headers={"Authorization": "Bearer raw"}
    ) as r:
        lines = [line for line in r.iter_lines() if line]
    assert r.headers["content-type"].startswith("text/event-stream")
    assert all(line.startswith("data: ") for line in lines) and lines[-1] == "data: [DONE]"
    # a request that offers no tools never receives a tool call; the text still comes
    deltas = [ch["delta"] for line in lines[:-1] for ch in json.loads(line[6:])["choices"]]
    assert [d for d in deltas if "tool_calls" in d] == []
    assert "".join(d.get("content") or "" for d in deltas) == "Creating notes.txt now."


OWN_TOOLS = [
    {"type": "function", "function": {"name": "put_file", "description": "Write a whole file, creating it if needed.",
     "parameters": {"type": "object", "properties": {"target": {"type": "string", "description": "file path"},
                    "body": {"type": "string", "description": "the new text of the file"}}, "required": ["target", "body"]}}},
    {"type": "function", "function": {"name": "terminal", "description": "Execute a bash command and capture its output.",
     "parameters": {"type": "object", "properties": {"command_line": {"type": "string"}}, "required": ["command_line"]}}},
]  # fmt: skip


def test_a_write_tools_result_is_the_agents_own_wording_and_not_compared(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    """A scenario written for one agent says what that agent's write tool answers ("File created"); another
    agent words it its own way. As in mock-agent mode, a result is compared only for tools whose output is
    the point (a command's, a read's): the write's change is on disk for `assert`, its status is checked."""
    srv = serve(load(tmp_path, """\
        name: own
        timeline:
          - userInputs: [[0, "make greet.txt"]]
          - agentToolUse: {toolName: write_file, args: {path: greet.txt, text: "hi\\n"}, result: File created}
          - runCmd: {cmd: cat greet.txt, result: "hi"}
          - editFile: {path: greet.txt, old_string: hi, new_string: bye, result: "The file has been updated"}
          - llmResponse:
              - assistant: [[10, "Done."]]
        """.replace("        ", "")))  # fmt: skip
    client = srv.openai()
    history: list[Any] = [{"role": "user", "content": "make greet.txt"}]
    answers = {"put_file": "saved greet.txt", "terminal": "goodbye"}
    called = []
    while (message := client.chat.completions.create(model="m", messages=history, tools=OWN_TOOLS)  # type: ignore[arg-type]
           .choices[0].message).tool_calls:  # fmt: skip
        history.append(message.model_dump(exclude_none=True))
        for c in message.tool_calls:
            called.append(c.function.name)  # type: ignore[union-attr]
            history.append({"role": "tool", "tool_call_id": c.id, "content": answers[c.function.name]})  # type: ignore[union-attr]
    assert called[:2] == ["put_file", "terminal"] and len(called) == 3 and message.content == "Done."
    assert srv.messages() == [
        "5: tool: runCmd (terminal): expected a result containing 'hi', the agent's result was 'goodbye'"
    ]


def test_parallel_tool_calls_false_gets_one_call_per_reply(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    """An agent that runs one call at a time says so (`parallel_tool_calls: false`); consecutive scenario
    calls went out together anyway, and such an agent answered only the first."""
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    history: list[Any] = [{"role": "user", "content": "make notes.txt"}]
    replies = []
    while True:
        message = client.chat.completions.create(model="m", messages=history, tools=CHAT_TOOLS,  # type: ignore[arg-type]
                                                 parallel_tool_calls=False).choices[0].message  # fmt: skip
        replies.append((message.content, [c.function.name for c in message.tool_calls or []]))  # type: ignore[union-attr]
        if not message.tool_calls:
            break
        history.append(message.model_dump(exclude_none=True))
        (call,) = message.tool_calls
        out = "2 notes.txt" if call.function.name == "bash" else "ok"  # type: ignore[union-attr]
        history.append({"role": "tool", "tool_call_id": call.id, "content": out})
    assert replies == [
        ("Creating notes.txt now.", ["write"]),
        (None, ["bash"]),
        ("notes.txt has 2 lines.", []),
    ]
    assert srv.messages() == []


def test_tool_choice_none_never_gets_a_tool_call(tmp_path: Path, serve: Callable[..., Running]) -> None:
    """`tool_choice: none` offers tools the model must not call (an agent forcing a text answer); the
    scenario's calls went out anyway. They are withheld, and the run says so at their lines."""
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    message = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "make notes.txt"}],
                                             tools=CHAT_TOOLS, tool_choice="none").choices[0].message  # type: ignore[arg-type]  # fmt: skip
    assert message.content == "Creating notes.txt now." and not message.tool_calls
    srv.finish()
    assert srv.messages()[:2] == [
        "7: tool: writeFile: the request that received this reply forbade tool calls (tool_choice none), "
        "so the call was never sent",
        "8: tool: runCmd: the request that received this reply forbade tool calls (tool_choice none), "
        "so the call was never sent",
    ]
