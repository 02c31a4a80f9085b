"""ACP messages beside a run's steps: a hand-made run folder read without Textual."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.app.core.session import RecordedRun
from workbench.engine.acp_trace import (
    GrowingMessages,
    messages_by_step,
    read_messages,
    step_messages,
    summary,
)


def write_run(
    run_dir: Path, wall_ms: list[int], messages: list[dict[str, Any]] | None, tail: str = ""
) -> None:
    """A run folder: a trace with one step per ``wall_ms`` (taken when each step ends) and an ``acp.jsonl``."""
    run_dir.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "run", "version": 1, "scenario": "acp demo", "file": "",
              "profile": {"width": 60, "height": 10}, "steps": len(wall_ms)}]  # fmt: skip
    for i, wall in enumerate(wall_ms):
        lines.append({"type": "step", "index": i, "at_ms": i * 100, "wall_ms": wall, "actor": "user",
                      "action": "prompt", "summary": f"step {i}", "line": i + 1, "screen": [f"screen {i}"]})  # fmt: skip
    lines.append({"type": "result", "status": "passed", "failures": [], "screenshots": []})
    (run_dir / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    if messages is not None:
        text = "".join(json.dumps(m) + "\n" for m in messages) + tail
        (run_dir / "acp.jsonl").write_text(text, encoding="utf-8")


def msg(seq: int, t_ms: int, direction: str, message: dict[str, Any]) -> dict[str, Any]:
    return {"seq": seq, "t_ms": t_ms, "dir": direction, "message": message}


C2A, A2C = "client->agent", "agent->client"
MESSAGES = [
    msg(0, 5, C2A, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
    msg(1, 9, A2C, {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}),
    msg(2, 120, C2A, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {}}),
    msg(3, 150, A2C, {"jsonrpc": "2.0", "method": "session/update", "params": {}}),
    msg(4, 200, A2C, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "boom"}}),
    msg(5, 900, A2C, {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}),
]


def test_each_message_goes_to_the_step_running_when_it_crossed_the_wire(tmp_path: Path) -> None:
    # Step 0 runs 0..100 ms, step 1 100..200, step 2 from 200: a message at exactly 200 starts step 2's share.
    write_run(tmp_path, [100, 200, 300], MESSAGES)
    recorded = RecordedRun.read(tmp_path)
    assert step_messages(tmp_path, recorded.steps) == {
        0: ["→ initialize #0", "← #0 result"],
        1: ["→ session/prompt #1", "← session/update"],
        2: ["← #1 error -32603: boom", "← #1 result"],  # after the last step: stays with it
    }


def test_a_missing_file_means_no_messages(tmp_path: Path) -> None:
    write_run(tmp_path, [100, 200], None)
    assert read_messages(tmp_path) == []
    assert step_messages(tmp_path, RecordedRun.read(tmp_path).steps) == {}


def test_a_half_written_last_line_is_skipped(tmp_path: Path) -> None:
    write_run(tmp_path, [100, 200], MESSAGES[:3], tail='{"seq": 3, "t_ms": 150, "dir": "agent->cl')
    assert [r["seq"] for r in read_messages(tmp_path)] == [0, 1, 2]
    assert step_messages(tmp_path, RecordedRun.read(tmp_path).steps) == {
        0: ["→ initialize #0", "← #0 result"],
        1: ["→ session/prompt #1"],
    }


def test_no_steps_yet_means_no_assignment() -> None:
    assert messages_by_step([], MESSAGES) == {}


def test_a_message_that_is_not_an_object_is_still_listed() -> None:
    assert summary({"dir": C2A, "message": [1, 2]}) == "→ (not a JSON-RPC object)"
    assert summary({"dir": "sideways", "message": {"id": 3, "result": None}}) == "? #3 result"


def test_a_growing_file_is_read_once_a_line_and_a_line_once_it_is_whole(tmp_path: Path) -> None:
    """What the app does while an ACP run writes acp.jsonl: each read parses what was appended since the last."""
    path = tmp_path / "acp.jsonl"
    growing = GrowingMessages(tmp_path)
    assert growing.read() == []  # not written yet
    lines = [json.dumps(m) + "\n" for m in MESSAGES]
    path.write_text(lines[0] + lines[1] + lines[2][:20])
    assert [r["seq"] for r in growing.read()] == [0, 1]  # the third is half written
    with path.open("a") as file:
        file.write(lines[2][20:] + "not json\n" + lines[3])
    assert [r["seq"] for r in growing.read()] == [0, 1, 2, 3]
    with path.open("a") as file:
        file.write("".join(lines[4:]))
    assert growing.read() == read_messages(tmp_path) == MESSAGES  # as a whole read of the finished file


def update(seq: int, t_ms: int, kind: str) -> dict[str, Any]:
    return msg(seq, t_ms, A2C, {"jsonrpc": "2.0", "method": "session/update",
                                "params": {"sessionId": "s", "update": {"sessionUpdate": kind}}})  # fmt: skip


def test_what_the_agent_relays_of_a_reply_goes_to_that_replys_step(tmp_path: Path) -> None:
    """A step ends once its model reply is sent; the agent relays it after, while the next step runs: its
    text, its tool call and the client requests of that call went to the next step (the next reply's text)."""
    write_run(tmp_path, [100, 200, 201, 300, 400], [])
    trace = tmp_path / "trace.jsonl"
    actions = ["input", "assistant", "tool-start", "assistant", "assistant"]
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    for record in records:
        if record["type"] == "step":
            record["action"] = actions[record["index"]]
    trace.write_text("".join(json.dumps(r) + "\n" for r in records))
    messages = [
        msg(0, 100, C2A, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {}}),
        update(1, 205, "agent_message_chunk"),  # the text of step 1's reply, relayed while step 3 runs
        update(2, 230, "tool_call"),
        msg(3, 231, A2C, {"jsonrpc": "2.0", "id": 0, "method": "fs/write_text_file", "params": {}}),
        update(4, 310, "agent_message_chunk"),  # step 3's
        update(5, 310, "usage_update"),  # nothing of a reply: the step running
    ]
    with (tmp_path / "acp.jsonl").open("w") as file:
        file.write("".join(json.dumps(m) + "\n" for m in messages))
    assert step_messages(tmp_path, RecordedRun.read(tmp_path).steps) == {
        0: ["→ session/prompt #1"],
        1: ["← session/update"],
        2: ["← session/update", "← fs/write_text_file #0"],
        3: ["← session/update"],
        4: ["← session/update"],
    }
