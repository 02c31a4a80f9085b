"""Issue 15, authoring by recording in real-agent mode: the agent's requests become `llmResponse` steps.

A real mock LLM server logs what the official Anthropic SDK sends; the recorder
reads that log between the person's keys, so each request no step answered gets
an `llmResponse` placeholder at its place, with the tool results the agent
reported. The recorded file loads and compiles, and once the placeholders are
written, the same conversation is answered from them in order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.llm.conftest import CLAUDE_TOOLS, Running, load
from tests.llm.conftest import serve as serve  # the fixture
from workbench.app.core.recording import InputRecorder
from workbench.engine.agent_requests import PLACEHOLDER, AgentRequest, RequestLogReader, reply_steps
from workbench.llm.recorder import LOG_FILE
from workbench.scenario import model as m
from workbench.timeline.prepare import prepare

SCRIPTED = """\
name: recorded-agent
timeline:
  - userInputs: [[0, "run the tests"]]
  - llmResponse:
      - assistant: [[50, "Running them."]]
  - runCmd: {cmd: make test, result: "3 passed", status: ok}
"""
SYSTEM = "Primary working directory: /work/project"


def _ask(srv: Running, messages: list[dict[str, Any]]) -> Any:
    return srv.anthropic().messages.create(
        model="m", max_tokens=500, system=SYSTEM, tools=CLAUDE_TOOLS, messages=messages
    )


def _session(srv: Running, recorder: InputRecorder) -> list[str]:
    """The agent's side of a session: the scripted turn, its tool result, then the person's "thanks"."""
    first = [{"role": "user", "content": "run the tests"}]
    reply = _ask(srv, first)
    [call] = [b for b in reply.content if b.type == "tool_use"]
    assert call.name == "Bash" and call.input["command"] == "make test"
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "3 passed\nok"}
    history = [*first, {"role": "assistant", "content": reply.content}, {"role": "user", "content": [result]}]
    answers = [_text(_ask(srv, history))]
    recorder.typed(b"thanks\r")  # the person types into the agent, which then asks the model again
    history += [{"role": "assistant", "content": answers[0] or "."}, {"role": "user", "content": "thanks"}]
    answers.append(_text(_ask(srv, history)))
    recorder.screenshot()
    return answers


def _text(message: Any) -> str:
    return "".join(b.text for b in message.content if b.type == "text")


def test_requests_no_step_answered_become_llm_response_steps_in_place(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    out = tmp_path / "run"
    srv = serve(load(tmp_path, SCRIPTED), out_dir=out)
    clock = [0.0]
    recorder = InputRecorder(now=lambda: clock[0], requests=RequestLogReader(out / LOG_FILE))
    assert _session(srv, recorder) == ["", ""]  # nothing scripted answered the last two requests

    steps = recorder.steps()
    assert [step.splitlines()[-1].strip() if "llmResponse" in step else step.splitlines()[0] for step in steps] == [
        f'- [100, "{PLACEHOLDER}"]', "- userInputs:", "- advanceMs: 300", f'- [100, "{PLACEHOLDER}"]',
        "- screenshot: recorded-1",
    ]  # fmt: skip
    assert '"3 passed\\nok"' in steps[0] and "ok:" in steps[0], "the tool result the agent reported"
    assert "tools offered: Bash, Write, Read" in steps[0]
    assert 'after the prompt: "thanks"' in steps[3]
    assert "run the tests" not in recorder.yaml(), "the request a step answered is not recorded again"

    path = tmp_path / "recorded-agent.yaml"
    path.write_text(SCRIPTED + recorder.yaml(indent=2), encoding="utf-8")
    prepared = prepare(path)
    assert prepared.errors == [] and prepared.scenario is not None and prepared.schedule is not None
    kinds = [type(e) for e in prepared.scenario.timeline[3:]]
    assert kinds == [m.LlmResponse, m.UserInputs, m.AdvanceMs, m.LlmResponse, m.Screenshot]

    # the person writes what the model should have said; the same conversation is answered from it
    written = path.read_text().replace(PLACEHOLDER, "All 3 pass.", 1).replace(PLACEHOLDER, "You're welcome.")
    path.write_text(written, encoding="utf-8")
    again = serve(load(tmp_path, written, name="recorded-agent.yaml"), out_dir=tmp_path / "again")
    assert _session(again, InputRecorder()) == ["All 3 pass.", "You're welcome."]
    assert [f for f in again.failures if f.kind != "note"] == []
    assert reply_steps(tmp_path / "again") == [], "every request was answered by a step"


def test_log_lines_the_recorder_leaves_out() -> None:
    """Side requests, refusals, unparsed requests and answered ones are not the model's side to write."""
    base = {"seq": 1, "session": "s", "prompt": "hi", "tools": []}
    for outcome in (
        "side request (title)",
        "refused: tools differ",
        "error 404: nope",
        "end_turn: 3 chars (line 7)",
    ):
        assert not AgentRequest.from_log({**base, "outcome": outcome}).needs_reply, outcome
    assert not AgentRequest.from_log(
        {"seq": 2, "path": "/x", "outcome": "error 404: unknown path"}
    ).needs_reply
    assert AgentRequest.from_log({**base, "outcome": "end_turn: 0 chars"}).needs_reply


def test_reader_waits_for_a_whole_line(tmp_path: Path) -> None:
    log = tmp_path / LOG_FILE
    log.write_text(
        json.dumps({"seq": 1, "session": "s", "outcome": "end_turn: 0 chars"}) + "\n", encoding="utf-8"
    )
    reader = RequestLogReader(log)
    assert reader.new_requests() == [], "what was logged before the recording is not in it"
    line = json.dumps({"seq": 2, "session": "s", "prompt": "a\nb", "outcome": "end_turn: 0 chars"})
    with log.open("a", encoding="utf-8") as f:
        f.write(line[:10])
        f.flush()
        assert reader.new_requests() == []
        f.write(line[10:] + "\nnot json\n")
    assert [r.seq for r in reader.new_requests()] == [2]
    assert [r.seq for r in RequestLogReader(log, offset=0).new_requests()] == [1, 2]
    assert '"a\\nb"' in RequestLogReader(log, offset=0).new_requests()[1].step(), "one comment line"
