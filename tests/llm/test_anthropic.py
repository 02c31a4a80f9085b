"""Anthropic Messages through the official SDK: text, thinking, tool round trips, errors, pacing."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from tests.llm.conftest import CLAUDE_TOOLS, Running, load

TOOL_SCENARIO = """\
name: tools
timeline:
  - userInputs: [[0, "write hello.txt and run it"]]
  - llmResponse:
      - think:
          - [100, "I should write the file first."]
      - assistant:
          - [50, "Writing hello.txt."]
  - writeFile: {path: hello.txt, content: "hello\\n"}
  - runCmd: {cmd: cat hello.txt, result: hello, status: ok}
  - llmResponse:
      - assistant: [[10, "Done."]]
"""


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def test_text_streaming_and_not(tmp_path: Path, serve: Callable[..., Running]) -> None:
    s = load(tmp_path, 'name: t\ntimeline:\n  - userInputs: [[0, hi]]\n  - llmResponse:\n'
             '      - assistant: [[0, "Hello there, this is a longer reply to split into deltas."]]\n'
             '  - userInputs: [[0, again]]\n  - llmResponse:\n      - assistant: [[0, "Second."]]\n')  # fmt: skip
    srv = serve(s)
    client = srv.anthropic()
    events: list[str] = []
    with client.messages.stream(model="claude-x", max_tokens=100, messages=[user("hi")]) as stream:
        text = "".join(stream.text_stream)
        message = stream.get_final_message()
    assert text == "Hello there, this is a longer reply to split into deltas."
    assert message.stop_reason == "end_turn" and message.model == "claude-x"
    assert message.id.startswith("msg_01") and message.usage.output_tokens > 0
    raw = client.messages.create(model="m", max_tokens=100, messages=[user("hi"), {"role": "assistant", "content": text},
                                                                       user("again")], stream=True)  # fmt: skip
    events = [e.type for e in raw]
    assert events[0] == "message_start" and events[-2:] == ["message_delta", "message_stop"]
    second = srv.anthropic(key="other").messages.create(model="m", max_tokens=100, messages=[user("hi")])
    assert second.content[0].type == "text" and second.content[0].text.startswith("Hello there")
    assert srv.failures == []


def test_thinking_blocks_with_signatures_only_when_enabled(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, TOOL_SCENARIO))
    client = srv.anthropic()
    msg = client.messages.create(
        model="m", max_tokens=2000, messages=[user("write hello.txt and run it")], tools=CLAUDE_TOOLS,
        thinking={"type": "enabled", "budget_tokens": 1024},
    )  # fmt: skip
    kinds = [b.type for b in msg.content]
    assert kinds == ["thinking", "text", "tool_use", "tool_use"]
    thinking = msg.content[0]
    assert thinking.type == "thinking" and thinking.thinking == "I should write the file first."
    assert thinking.signature
    hidden = srv.anthropic(key="no-thinking").messages.create(
        model="m", max_tokens=2000, messages=[user("write hello.txt and run it")], tools=CLAUDE_TOOLS
    )
    assert [b.type for b in hidden.content] == ["text", "tool_use", "tool_use"]


def test_tool_round_trip_streams_input_json_and_compares_results(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, TOOL_SCENARIO))
    client = srv.anthropic()
    system = "Primary working directory: /work/project"
    with client.messages.stream(model="m", max_tokens=2000, system=system, tools=CLAUDE_TOOLS,
                                messages=[user("write hello.txt and run it")]) as stream:  # fmt: skip
        deltas = [e.delta.type for e in stream if e.type == "content_block_delta"]
        msg = stream.get_final_message()
    assert "input_json_delta" in deltas
    assert msg.stop_reason == "tool_use"
    calls = [b for b in msg.content if b.type == "tool_use"]
    assert [(c.name, c.input) for c in calls] == [
        ("Write", {"file_path": "/work/project/hello.txt", "content": "hello\n"}),
        ("Bash", {"command": "cat hello.txt"}),
    ]
    assert all(c.id.startswith("toolu_") for c in calls)
    results = [{"type": "tool_result", "tool_use_id": calls[0].id, "content": "File created successfully"},
               {"type": "tool_result", "tool_use_id": calls[1].id, "content": "hello\n"}]  # fmt: skip
    final = client.messages.create(
        model="m", max_tokens=2000, system=system, tools=CLAUDE_TOOLS,
        messages=[user("write hello.txt and run it"), {"role": "assistant", "content": msg.content},
                  {"role": "user", "content": results}],
    )  # fmt: skip
    assert final.content[0].type == "text" and final.content[0].text == "Done."
    assert srv.failures == []


def test_tool_result_mismatch_is_a_failure_with_the_line(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, TOOL_SCENARIO))
    client = srv.anthropic()
    msg = client.messages.create(model="m", max_tokens=2000, tools=CLAUDE_TOOLS,
                                 messages=[user("write hello.txt and run it")])  # fmt: skip
    calls = [b for b in msg.content if b.type == "tool_use"]
    results = [{"type": "tool_result", "tool_use_id": calls[0].id, "content": "denied", "is_error": True},
               {"type": "tool_result", "tool_use_id": calls[1].id, "content": "goodbye"}]  # fmt: skip
    client.messages.create(model="m", max_tokens=2000, tools=CLAUDE_TOOLS,
                           messages=[user("x"), {"role": "assistant", "content": msg.content},
                                     {"role": "user", "content": results}])  # fmt: skip
    assert srv.messages() == [
        "9: tool: writeFile (Write): expected status ok, the agent reported an error: 'denied'",
        "10: tool: runCmd (Bash): expected a result containing 'hello', the agent's result was 'goodbye'",
    ]


def test_max_tokens_cuts_the_text(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(
        load(
            tmp_path, "name: t\ntimeline:\n  - llmResponse:\n      - assistant: [[0, " + "word " * 40 + "]]\n"
        )
    )
    msg = srv.anthropic().messages.create(model="m", max_tokens=5, messages=[user("go")])
    assert msg.stop_reason == "max_tokens" and msg.usage.output_tokens == 5
    assert msg.content[0].type == "text" and len(msg.content[0].text) == 20


def test_scripted_error_then_the_retry_gets_the_next_turn(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    s = load(tmp_path, "name: t\ntimeline:\n  - llmResponse:\n      - error: {errorType: rate_limit_error, "
             "statusCode: 429, message: slow down, retryAfterSeconds: 7}\n"
             "  - llmResponse:\n      - assistant: [[0, recovered]]\n")  # fmt: skip
    srv = serve(s)
    client = srv.anthropic()
    with pytest.raises(anthropic.RateLimitError) as info:
        client.messages.create(model="m", max_tokens=10, messages=[user("go")])
    assert info.value.response.headers["retry-after"] == "7"
    assert info.value.body == {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"},
                               "request_id": info.value.response.headers["request-id"]}  # fmt: skip
    again = client.messages.create(model="m", max_tokens=10, messages=[user("go")])
    assert again.content[0].type == "text" and again.content[0].text == "recovered"


def test_a_repeated_request_gets_the_same_reply(tmp_path: Path, serve: Callable[..., Running]) -> None:
    s = load(tmp_path, "name: t\ntimeline:\n  - llmResponse: [{assistant: [[0, one]]}]\n"
             "  - llmResponse: [{assistant: [[0, two]]}]\n")  # fmt: skip
    srv = serve(s)
    client = srv.anthropic()
    texts = [
        client.messages.create(model="m", max_tokens=10, messages=[user("go")]).content[0] for _ in range(2)
    ]
    assert [t.text for t in texts if t.type == "text"] == ["one", "one"]
    third = client.messages.create(model="m", max_tokens=10, messages=[user("go"), {"role": "assistant", "content": "one"},
                                                                        user("more")])  # fmt: skip
    assert third.content[0].type == "text" and third.content[0].text == "two"


def test_pacing_follows_the_scenario_times_the_speed(tmp_path: Path, serve: Callable[..., Running]) -> None:
    s = load(tmp_path, "name: t\ntimeline:\n  - llmResponse:\n      - assistant:\n"
             "          - [200, first]\n          - [200, second]\n")  # fmt: skip
    srv = serve(s, speed=2.0)
    client = srv.anthropic()
    client.models.list()  # warm the connection
    arrivals: list[float] = []
    start = time.monotonic()
    with client.messages.stream(model="m", max_tokens=100, messages=[user("go")]) as stream:
        for _ in stream.text_stream:
            arrivals.append(time.monotonic() - start)
    assert len(arrivals) == 2
    assert 0.08 <= arrivals[0] <= 0.5 and 0.08 <= arrivals[1] - arrivals[0] <= 0.5


def test_count_tokens_and_system_entries_inside_messages(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, "name: t\ntimeline:\n  - llmResponse: [{assistant: [[0, ok]]}]\n"))
    client = srv.anthropic()
    count = client.messages.count_tokens(model="m", messages=[user("hello world, count me")])
    longer = client.messages.count_tokens(model="m", messages=[user("hello world, count me " * 10)])
    assert 0 < count.input_tokens < longer.input_tokens  # grows with the text: not a constant
    # Claude Code sends a `role: system` entry after the first user turn and unknown top-level keys.
    body = {"model": "m", "max_tokens": 10, "stream": False, "messages": [user("hi"), {"role": "system", "content": "agents"}],
            "context_management": {"edits": []}, "output_config": {"effort": "high"}}  # fmt: skip
    msg = client.post("/v1/messages?beta=true", body=body, cast_to=object)
    assert isinstance(msg, dict) and msg["content"] == [{"type": "text", "text": "ok"}]


def test_raw_stream_matches_the_real_event_order(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, TOOL_SCENARIO))
    body = {"model": "m", "max_tokens": 2000, "stream": True, "thinking": {"type": "enabled", "budget_tokens": 1024},
            "tools": CLAUDE_TOOLS[:2], "messages": [user("write hello.txt and run it")]}  # fmt: skip
    with httpx2.stream(
        "POST", srv.url + "/v1/messages?beta=true", json=body, headers={"x-api-key": "raw"}
    ) as r:
        lines = [line for line in r.iter_lines() if line]
    names = [line[7:] for line in lines if line.startswith("event: ")]
    datas = [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
    assert len(names) == len(datas) and all(d["type"] == n for n, d in zip(names, datas, strict=True))
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    deltas = [d["delta"]["type"] for d in datas if d["type"] == "content_block_delta"]
    signed = deltas.index("signature_delta")
    assert signed > 0 and set(deltas[:signed]) == {"thinking_delta"} and "input_json_delta" in deltas
    final = datas[-2]
    assert final["type"] == "message_delta" and final["delta"]["stop_reason"] == "tool_use"
    assert "usage" not in final["delta"] and final["usage"]["output_tokens"] > 0  # usage at the top level
    assert names[-1] == "message_stop"


def test_without_coalescing_thinking_stays_interleaved(tmp_path: Path, serve: Callable[..., Running]) -> None:
    text = ("timeline:\n  - llmResponse:\n      - think: [[0, first thought]]\n      - assistant: [[0, first words]]\n"
            "      - think: [[0, second thought]]\n      - assistant: [[0, second words]]\n")  # fmt: skip
    apart = load(tmp_path, "name: apart\nserver: {coalesceThinkingWithToolUse: false}\n" + text, "a.yaml")
    merged = load(tmp_path, "name: merged\n" + text, "b.yaml")
    thinking = {"type": "enabled", "budget_tokens": 1024}
    kinds = []
    for scenario in (apart, merged):
        msg = serve(scenario).anthropic().messages.create(model="m", max_tokens=500, thinking=thinking,
                                                          messages=[user("go")])  # fmt: skip
        kinds.append([b.type for b in msg.content])
        texts = [b.text for b in msg.content if b.type == "text"]
    assert kinds == [["thinking", "text", "thinking", "text"], ["thinking", "text"]]
    assert texts == ["first words\nsecond words"]


def test_a_prompt_that_is_not_the_scenarios_input_is_noted(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, "name: t\ntimeline:\n  - userInputs: [[0, 'say hi<Enter>']]\n"
                                "  - llmResponse: [{assistant: [[0, hi]]}]\n"))  # fmt: skip
    srv.anthropic().messages.create(model="m", max_tokens=10, messages=[user("say bye")])
    assert srv.failures == []
    assert [n.message for n in srv.server.notes] == [
        "the scenario's input 'say hi' is not in the agent's prompt 'say bye'"
    ]


def test_disable_parallel_tool_use_gets_one_call_per_reply(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, TOOL_SCENARIO))
    client = srv.anthropic()
    messages: list[Any] = [user("write hello.txt and run it")]
    called = []
    while True:
        msg = client.messages.create(model="m", max_tokens=2000, tools=CLAUDE_TOOLS, messages=messages,
                                     tool_choice={"type": "auto", "disable_parallel_tool_use": True})  # fmt: skip
        uses = [b for b in msg.content if b.type == "tool_use"]
        if not uses:
            break
        assert len(uses) == 1, msg.content
        called.append(uses[0].name)
        messages += [{"role": "assistant", "content": msg.content},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uses[0].id,
                                                   "content": "hello" if uses[0].name == "Bash" else "ok"}]}]  # fmt: skip
    assert called == ["Write", "Bash"] and srv.messages() == []


def test_tool_choice_none_gets_no_tool_use(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, TOOL_SCENARIO))
    client = srv.anthropic()
    msg = client.messages.create(model="m", max_tokens=2000, tools=CLAUDE_TOOLS, tool_choice={"type": "none"},
                                 messages=[user("write hello.txt and run it")])  # fmt: skip
    assert [b.type for b in msg.content] == ["text"] and msg.stop_reason == "end_turn"
