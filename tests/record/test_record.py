"""`workbench record`: a session through the proxy becomes a scenario that replays green.

The agent is a small terminal program on the official SDK (``sdk_agent.py``), the upstream is
`workbench serve llm` playing a scenario on 127.0.0.1, the recording and the replay are the real
CLI in real processes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_process import workbench
from tests.record.helpers import HELLO, agent_command, record, serve_llm
from workbench.scenario import model as m
from workbench.scenario.loader import load_scenario


@pytest.mark.parametrize("style", ["anthropic", "openai-chat"])
def test_a_recorded_session_replays_green(tmp_path: Path, style: str) -> None:
    with serve_llm(tmp_path, HELLO, "--speed", "1") as url:
        done = record(
            tmp_path, url, "scenarios/hello.yaml", agent_command(style), "--prompt", "write hello.txt"
        )
    assert done.returncode == 0, done.stderr
    scenario = tmp_path / "scenarios" / "hello.yaml"
    text = scenario.read_text()
    loaded = load_scenario(scenario, env={})
    assert (
        loaded.mode == "real-agent"
        and loaded.command is not None
        and "{base_url}" in " ".join(loaded.command)
    ) or "{openai_base_url}" in " ".join(loaded.command or ())
    kinds = [type(e).__name__ for e in loaded.timeline]
    assert kinds == [
        "UserInputs",
        "AdvanceMs",
        "LlmResponse",
        "ToolUse",
        "LlmResponse",
        "Screenshot",
        "Assert",
    ], text
    inputs = loaded.timeline[0]
    assert (
        isinstance(inputs, m.UserInputs) and inputs.items[0].input == "write hello.txt"
    )  # the replay submits it
    tool = loaded.timeline[3]
    assert isinstance(tool, m.ToolUse) and tool.tool_name == "writeFile", text  # the canonical word
    assert (
        dict(tool.args) == {"path": "hello.txt", "content": "hello\n"}
        and tool.result == "wrote 6 bytes to hello.txt"
    )
    replies = [e for e in loaded.timeline if isinstance(e, m.LlmResponse)]
    said = "".join(i.text for p in replies[0].pieces if isinstance(p, m.Assistant) for i in p.items)
    assert said == "I'll write the file."
    assert "# request 1: POST /v1/" in text and "ms to the first byte" in text  # where each part came from
    golden = tmp_path / "screenshots" / "hello" / "80x24" / "turn-1.golden"
    assert "Done: hello.txt is written." in golden.read_text()
    assert (tmp_path / "scenarios" / "hello.requests.json").exists()
    assert "replay it with: workbench run scenarios/hello.yaml --mode real-agent --ci" in done.stderr
    replay = workbench(
        "run", "scenarios/hello.yaml", "--mode", "real-agent", "--ci", "--speed", "max", cwd=tmp_path
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr


@pytest.mark.slow
def test_a_recording_stays_green_on_ten_reruns(tmp_path: Path) -> None:
    with serve_llm(tmp_path, HELLO, "--speed", "1") as url:
        done = record(
            tmp_path, url, "scenarios/hello.yaml", agent_command("anthropic"), "--prompt", "write hello.txt"
        )
    assert done.returncode == 0, done.stderr
    for _ in range(10):
        replay = workbench("run", "scenarios", "--mode", "real-agent", "--ci", "--speed", "max", cwd=tmp_path)
        assert replay.returncode == 0, replay.stdout + replay.stderr
