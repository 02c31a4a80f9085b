"""An agent preset's ready text (what its TUI shows once it takes input) that never shows: a run ends after
the ready wait with that text and the screen in its failure, not as the run's whole timeout; a recording
with --prompt ends at once saying so, and writes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.conftest import write
from workbench.engine.drivers import real_agent
from workbench.engine.options import RunOptions
from workbench.engine.runner import run_scenario
from workbench.llm import LlmServer, agents
from workbench.llm.agents import Agent, Endpoint, Launch
from workbench.llm.profiles import GENERIC
from workbench.record import session as record_session
from workbench.record.session import Recorder, RecordError, RecordOptions
from workbench.scenario.loader import load_scenario

SCENARIO = """\
name: never-ready
timeline:
  - userInputs: [[0, "hello"]]
  - llmResponse:
      - assistant: [[0, "hi"]]
"""


def build(exe: str, e: Endpoint, ui: str) -> Launch:
    return Launch((exe,), {}, ready="Ready for you")


def slow_starter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An agent `slow-starter` (its program on PATH) whose ready text never shows."""
    program = write(tmp_path, "bin/slow-starter", "#!/bin/sh\necho still loading plugins\nexec sleep 600\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{program.parent}:/usr/bin:/bin")
    monkeypatch.setitem(agents.AGENTS, "slow-starter", Agent(
        name="slow-starter", program="slow-starter", package="slow-starter", version="1.0.0",
        wires=("openai-chat",), profile=GENERIC, build=build, summary="never shows its ready text"))  # fmt: skip
    return program


def test_a_ready_text_that_never_shows_names_itself_and_the_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow_starter(tmp_path, monkeypatch)
    monkeypatch.setattr(real_agent, "READY_TIMEOUT_S", 0.5)
    scenario = write(tmp_path, "never-ready.yaml", SCENARIO)
    options = RunOptions(out_dir=tmp_path / "runs", goldens_dir=tmp_path / "goldens", mode="real-agent",
                         mode_options={"agent": "slow-starter"}, timeout_s=60)  # fmt: skip
    result = asyncio.run(run_scenario(scenario, options))
    assert result.status == "failed"
    (failure,) = result.failures
    assert failure.line == 3, failure
    assert (
        "never showed its ready text" in failure.message
        and "'Ready for you'" in failure.message
        and "still loading plugins" in failure.message
    ), failure.message
    assert "timed out after 60 s" not in failure.message


def test_a_recording_whose_agent_never_gets_ready_ends_with_why_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`workbench record --agent NAME --prompt TEXT`: typed before the agent is ready, the prompt would be lost;
    the recording ends at once, naming the ready text and the screen (not a partial file at its timeout)."""
    program = slow_starter(tmp_path, monkeypatch)
    monkeypatch.setattr(record_session, "READY_TIMEOUT_S", 0.5)
    out = tmp_path / "scenarios" / "never.yaml"
    options = RecordOptions(upstream="", out=out, agent="slow-starter", prompt="hello", timeout_s=60)

    async def record() -> str:
        upstream = LlmServer([load_scenario(write(tmp_path, "up.yaml", SCENARIO), env={})])
        options.upstream = await upstream.start()
        try:
            with pytest.raises(RecordError) as raised:
                await Recorder(options, {"PATH": f"{program.parent}:/usr/bin:/bin"}).run()
        finally:
            await upstream.stop()
        return str(raised.value)

    message = asyncio.run(asyncio.wait_for(record(), 30))
    assert "never showed its ready text" in message and "'Ready for you'" in message, message
    assert "still loading plugins" in message and "nothing was written" in message
    assert not out.exists()
