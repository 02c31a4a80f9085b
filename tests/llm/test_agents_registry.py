"""The agent registry is the one place a known agent is described: presets, help, docs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench.llm.agents import AGENTS, Endpoint, PresetError, agent_named, endpoint_env, tool_profiles
from workbench.llm.wire import wire_named


def test_every_agent_is_whole() -> None:
    for agent in AGENTS.values():
        assert tool_profiles()[agent.profile.name] is agent.profile, agent.name
        assert agent.wires and all(wire_named(style).style == style for style in agent.wires), agent.name
        assert agent.summary and agent.cwd_patterns and agent.masks, agent.name
        for pattern in (*agent.cwd_patterns, *agent.masks):
            re.compile(pattern)


def test_readme_installs_every_agent_at_its_verified_version() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for agent in AGENTS.values():
        assert f"npm install -g {agent.package}@{agent.version}" in readme, agent.name


def test_an_acp_adapter_belongs_to_its_agent_module() -> None:
    from workbench.llm.agents import acp_adapters

    ACP_ADAPTERS = acp_adapters()
    assert set(ACP_ADAPTERS) == {"claude-code-acp", "codex-acp", "gemini-acp"}
    for name, agent in ACP_ADAPTERS.items():
        assert agent.acp is not None and agent.acp.name == name
        assert agent.acp.install_hint().startswith("npm install -g "), name
    assert ACP_ADAPTERS["codex-acp"] is AGENTS["codex"]


def test_help_lists_the_registry() -> None:
    from workbench.cli.run import add_arguments
    from workbench.usage import UsageParser

    parser = UsageParser(prog="workbench run")
    add_arguments(parser)
    text = "".join(parser.format_help().split())  # argparse wraps lines, also at hyphens
    assert all(name in text for name in AGENTS)
    assert all(a.acp.name in text for a in AGENTS.values() if a.acp is not None)


def test_gemini_cli_preset_writes_its_home(tmp_path: Path) -> None:
    program = tmp_path / "prefix" / "node_modules" / ".bin" / "gemini"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    endpoint = Endpoint("http://127.0.0.1:9", "wb-key", tmp_path / "ws", tmp_path / "run" / "home", "say hi")
    launch = AGENTS["gemini-cli"].launch(endpoint, "print", {"WORKBENCH_AGENTS": str(tmp_path / "prefix")})
    settings = json.loads((endpoint.home / ".gemini" / "settings.json").read_text())
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert (
        launch.env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:9"
        and launch.env["GEMINI_API_KEY"] == "wb-key"
    )
    assert launch.argv[-3:] == ("yolo", "-p", "say hi") and str(program) in launch.argv
    assert endpoint_env(endpoint)["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:9"
    with pytest.raises(PresetError, match="known: claude-code, codex, pi, gemini-cli"):
        agent_named("aider")
