"""`acp.authenticate: METHOD`: `workbench acp-agent` offers that auth method and wants it before
`session/new`; under `--mode acp` the engine's client authenticates with it after `initialize`, and
an agent that does not offer it fails the run naming what it offers."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from tests.acp.helpers import scenario_file
from workbench.engine.options import RunOptions
from workbench.engine.report import ScenarioResult
from workbench.engine.runner import run_scenario

AGENT = """\
name: login
acp: {authenticate: mock-key}
timeline:
  - userInputs: [[0, "hi"]]
  - llmResponse: [{assistant: [[0, "hello"]]}]
"""


def _client(tmp_path: Path, agent_text: str, method: str | None) -> Path:
    agent = scenario_file(tmp_path, agent_text, "agent.yaml")
    auth = f"acp: {{authenticate: {method}}}\n" if method else ""
    return scenario_file(tmp_path, f'command: ["{sys.executable}", "-m", "workbench", "acp-agent", "{agent}"]\n'
                                   f"{auth}name: client\ntimeline:\n  - userInputs: [[0, \"hi\"]]\n", "client.yaml")  # fmt: skip


def _run(path: Path, tmp_path: Path) -> ScenarioResult:
    return asyncio.run(run_scenario(path, RunOptions(mode="acp", out_dir=tmp_path / "out", timeout_s=60)))


def test_the_client_authenticates_with_the_scenarios_method(tmp_path: Path) -> None:
    result = _run(_client(tmp_path, AGENT, "mock-key"), tmp_path)
    assert result.status == "passed", [f.message for f in result.failures]
    assert result.run_dir is not None
    frames = [
        json.loads(line)["message"] for line in (Path(result.run_dir) / "acp.jsonl").read_text().splitlines()
    ]
    methods = [f.get("method") for f in frames if "method" in f]
    assert methods.index("authenticate") < methods.index("session/new")


def test_without_it_the_agent_that_wants_a_login_refuses_the_session(tmp_path: Path) -> None:
    result = _run(_client(tmp_path, AGENT, None), tmp_path)
    assert result.status == "failed" and "session/new failed" in result.failures[0].message


def test_a_method_the_agent_does_not_offer_fails_naming_what_it_offers(tmp_path: Path) -> None:
    result = _run(_client(tmp_path, AGENT, "other-key"), tmp_path)
    assert result.failures[0].message.startswith(
        "the scenario authenticates with `other-key`; the agent offers `mock-key`"
    )
