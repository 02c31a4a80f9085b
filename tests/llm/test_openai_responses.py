"""OpenAI Responses through the official SDK: the real event sequence, reasoning, function calls."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.llm.conftest import RESPONSES_TOOLS, Running, load

SCENARIO = """\
name: codex
timeline:
  - userInputs: [[0, "write hello.txt"]]
  - llmResponse:
      - think: [[10, "Use the shell."]]
      - assistant: [[10, "Writing it."]]
  - runCmd: {cmd: "printf hi > hello.txt", result: "", status: ok}
  - llmResponse:
      - assistant: [[10, "hello.txt written."]]
"""


def test_event_sequence_reasoning_and_function_call(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    stream = client.responses.create(
        model="mock-model", input=[{"role": "developer", "content": "You are Codex."},
                                   {"role": "user", "content": [{"type": "input_text", "text": "write hello.txt"}]}],
        tools=RESPONSES_TOOLS, reasoning={"summary": "auto"}, include=["reasoning.encrypted_content"], stream=True,
    )  # type: ignore[call-overload]  # fmt: skip
    events = list(stream)
    kinds = [e.type for e in events]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert kinds == [
        "response.created", "response.in_progress",
        "response.output_item.added", "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done", "response.output_item.done",
        "response.output_item.added", "response.content_part.added", "response.output_text.delta",
        "response.output_text.done", "response.content_part.done", "response.output_item.done",
        "response.output_item.added", "response.function_call_arguments.delta",
        "response.function_call_arguments.delta", "response.function_call_arguments.done",
        "response.output_item.done", "response.completed",
    ]  # fmt: skip
    final = events[-1].response  # type: ignore[union-attr]
    assert final.id.startswith("resp_") and final.status == "completed" and final.usage is not None
    reasoning, message, call = final.output
    assert reasoning.type == "reasoning" and reasoning.id.startswith("rs_")
    assert reasoning.summary[0].text == "Use the shell." and reasoning.encrypted_content
    assert (
        message.type == "message"
        and message.id.startswith("msg_")
        and message.content[0].text == "Writing it."
    )  # type: ignore[union-attr]
    assert call.type == "function_call" and call.id.startswith("fc_") and call.call_id.startswith("call_")
    assert call.name == "exec_command" and json.loads(call.arguments) == {"cmd": "printf hi > hello.txt"}
    follow = client.responses.create(
        model="mock-model", tools=RESPONSES_TOOLS,
        input=[{"role": "user", "content": "write hello.txt"}, call.model_dump(exclude_none=True),  # type: ignore[list-item]
               {"type": "function_call_output", "call_id": call.call_id,
                "output": "Chunk ID: 1\nProcess exited with code 0\nOutput:\n"}],
    )  # fmt: skip
    assert follow.output_text == "hello.txt written." and follow.status == "completed"
    assert srv.failures == []


def test_stream_helper_final_response_without_summary(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    with client.responses.stream(model="m", input="write hello.txt", tools=RESPONSES_TOOLS) as stream:  # type: ignore[arg-type]
        text = "".join(e.delta for e in stream if e.type == "response.output_text.delta")
        final = stream.get_final_response()
    assert text == "Writing it."
    kinds = [item.type for item in final.output]
    assert kinds == ["reasoning", "message", "function_call"]
    reasoning = final.output[0]
    assert reasoning.type == "reasoning" and reasoning.summary == []  # no summary unless asked for


def test_failed_command_is_reported_and_non_streaming_works(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.openai()
    first = client.responses.create(model="m", input="write hello.txt", tools=RESPONSES_TOOLS)  # type: ignore[arg-type]
    call = next(o for o in first.output if o.type == "function_call")
    client.responses.create(
        model="m",
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "Process exited with code 2"}],  # type: ignore[union-attr]
    )  # fmt: skip
    assert srv.messages() == ["7: tool: runCmd (exec_command): expected status ok, the agent reported an error: "
                              "'Process exited with code 2'"]  # fmt: skip


def test_max_output_tokens_gives_an_incomplete_response(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(
        load(
            tmp_path,
            "name: t\ntimeline:\n  - llmResponse: [{assistant: [[0, " + "many words " * 30 + "]]}]\n",
        )
    )
    events = list(srv.openai().responses.create(model="m", input="go", max_output_tokens=16, stream=True))
    assert events[-1].type == "response.incomplete"
    final = events[-1].response  # type: ignore[union-attr]
    assert final.status == "incomplete" and final.incomplete_details.reason == "max_output_tokens"  # type: ignore[union-attr]
