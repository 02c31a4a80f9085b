"""Shared helpers of the ACP tests: a scenario agent from YAML text, and running a script against it."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

from workbench.acp.agent import ScenarioAgent
from workbench.acp.scp import InProcessRunner, RunResult, Script
from workbench.scenario.loader import load_scenario
from workbench.timeline import compile_schedule


def scenario_file(tmp_path: Path, yaml: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(yaml), encoding="utf-8")
    return path


def scenario_agent(tmp_path: Path, yaml: str, speed: float | None = None) -> ScenarioAgent:
    return ScenarioAgent(compile_schedule(load_scenario(scenario_file(tmp_path, yaml))), speed=speed)


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return ws


def play(agent: Any, cwd: Path, script: Script, **kw: Any) -> RunResult:
    return asyncio.run(InProcessRunner(agent, cwd, timeout=kw.pop("timeout", 30), **kw).run(script))
