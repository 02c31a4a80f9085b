"""The Agent Harbor ACP fixtures of the corpus, played by `ScenarioAgent` to an SDK client.

Each fixture that loads is served; the client loads the session when the
fixture has history (``sessionStart`` with ``loadSession``), else opens a new
one, and sends the prompts the fixture scripts. Every turn must end normally and
say the fixture's assistant text; a loaded session must replay its history.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from workbench.acp.agent import ScenarioAgent
from workbench.acp.scp import InProcessRunner, TestContext
from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import load_scenario
from workbench.timeline import compile_schedule

FIXTURES = CORPUS / "agent-harbor" / "tests" / "tools" / "mock-agent-acp" / "scenarios"


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.yaml")) if FIXTURES.is_dir() else [])
def test_corpus_acp_fixture_plays_to_an_sdk_client(name: str, corpus: Path, tmp_path: Path) -> None:
    try:
        agent = ScenarioAgent(compile_schedule(load_scenario(FIXTURES / name)))
    except (
        ScenarioError
    ) as exc:  # the reference lists the fixtures the format rejects (sessionStart without loadSession)
        assert "sessionStart" in str(exc), str(exc)
        return
    script = agent.script
    loading = script.load_session and script.session_id is not None
    turns = script.live if loading else script.whole
    said: list[str] = []

    async def user(ctx: TestContext) -> None:
        sid = script.session_id or ""
        session = await ctx.load_session(sid) if loading else await ctx.start_session()
        if loading:
            assert ctx.client.history[sid], "a loaded session replays its history"
        for turn in turns:
            prompt = (
                turn.prompt.text
                if turn.prompt is not None
                else (script.scenario.effective_initial_prompt or "go")
            )
            record = await session.say(prompt)
            assert record.stop_reason == "end_turn"
            said.append(record.text)

    asyncio.run(InProcessRunner(agent, tmp_path, timeout=60).run(user))
    for turn, text in zip(turns, said, strict=True):
        for step in turn.steps:
            if step.action == "assistant":
                assert step.item.text.strip() in text
