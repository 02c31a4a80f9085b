"""The scenario writer on its own: what of a tool result is kept as `result`, and `--max-gap`."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.record.exchange import Exchange
from workbench.record.redact import Redactor
from workbench.record.writer import Recording, stable_part, write_recording
from workbench.scenario import model as m
from workbench.scenario.loader import load_scenario


def test_the_stable_part_of_a_tool_result() -> None:
    ws = "/tmp/wb-x/wb-ws-p0001234s000000000042-abcd1234"
    assert (
        stable_part(f"File created successfully at: {ws}/hello.txt", [ws]) == "File created successfully at:"
    )
    codex = "Chunk ID: 3867bb\nWall time: 0.0012 seconds\nProcess exited with code 0\nOutput:\ndone\n"
    assert stable_part(codex, []) == "Process exited with code 0\nOutput:\ndone"
    assert (
        stable_part("Process Group PGID: 18524\nOutput: hello from the agent", [])
        == "Output: hello from the agent"
    )
    # gemini-cli 0.61 puts its shell's process group after the output; in a fresh container it has 3 digits
    wrapped = (
        "<untrusted_context>\nOutput: hello from the agent\nProcess Group PGID: {}\n</untrusted_context>"
    )
    assert {stable_part(wrapped.format(pgid), []) for pgid in (42, 882, 18524)} == {
        "<untrusted_context>\nOutput: hello from the agent\nProcess Group PGID:"
    }
    assert stable_part("12345", []) is None  # nothing stable left: only the status is checked
    assert stable_part("plain output", []) == "plain output"


def sse(*events: dict) -> bytes:  # type: ignore[type-arg]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def test_max_gap_caps_every_recorded_delay(tmp_path: Path) -> None:
    body = json.dumps(
        {"model": "m", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    )
    start = {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    exchange = Exchange(1, "POST", "/v1/messages", "", "anthropic", "turn", {}, {}, body.encode(), 1.0, 200,
                        {"content-type": "text/event-stream"},
                        [(3.0, sse(start, {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "slow "}})),
                         (9.0, sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "reply"}}))],
                        9.5)  # fmt: skip
    rec = Recording(name="gap", command=("agent", "{base_url}"), agent=None, width=80, height=24,
                    workspace=tmp_path / "ws", home=tmp_path / "home", upstream="http://up",
                    inputs=[(0.5, b"hi\r")], exchanges=[exchange], max_gap_ms=1000, partial=True)  # fmt: skip
    written = write_recording(rec, tmp_path / "gap.yaml", tmp_path / "screenshots", Redactor({}))
    scenario = load_scenario(written.scenario, env={})
    (reply,) = [e for e in scenario.timeline if isinstance(e, m.LlmResponse)]
    (text,) = reply.pieces
    assert isinstance(text, m.Assistant)
    assert [(i.ms, i.text) for i in text.items] == [(1000, "slow "), (1000, "reply")]  # 2 s and 6 s, capped
    assert "partial" in scenario.tags and "# PARTIAL" in written.scenario.read_text()
    assert (
        "# 1 request, 1 of them a turn of the conversation.\n" in written.scenario.read_text()
    )  # not '1 requests'
