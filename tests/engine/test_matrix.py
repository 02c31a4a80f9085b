"""The cross-agent matrix (`run --mode real-agent --agent a,b,c`): each scenario under each agent,
in the console, the JSON report and JUnit; agents that are not installed are skipped pairs with their
install line; shards of a matrix merge. The matrix over the agents installed here runs the example
scenario `scenarios/any-agent.yaml` (canonical tools only) and must be green."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.engine.test_real_agent import workbench
from workbench.engine.matrix import agent_list, matrix_json, matrix_table
from workbench.engine.merge import merge, parse_report
from workbench.engine.report import Failure, RunReport, ScenarioResult
from workbench.llm.agents import AGENTS, find_program

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "scenarios" / "any-agent.yaml"


def _isolated_env(tmp_path: Path) -> dict[str, str]:
    """No agent can be found: an empty WORKBENCH_AGENTS prefix and a PATH with only Python and the system."""
    empty = tmp_path / "no-agents"
    empty.mkdir()
    return {"WORKBENCH_AGENTS": str(empty), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}


def test_agent_list() -> None:
    assert agent_list("pi, codex,pi,,claude-code") == ["pi", "codex", "claude-code"]
    assert agent_list(None) == [] and agent_list("") == []


def test_absent_agents_are_skipped_pairs_with_their_install_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in _isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    done = workbench("run", "--ci", "--mode", "real-agent", "--agent", "pi,codex", str(EXAMPLE),
                     "--report", "r.json", "--junit", "j.xml", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "SKIPPED any-agent [pi]" in out and "SKIPPED any-agent [codex]" in out
    assert "== matrix (scenario x agent) ==" in out
    assert "any-agent  skipped  skipped" in out
    pi = AGENTS["pi"]
    assert f"any-agent [pi]: skipped: pi is not installed: `npm install -g {pi.package}@{pi.version}`" in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert [(s["agent"], s["status"]) for s in report["scenarios"]] == [
        ("pi", "skipped"),
        ("codex", "skipped"),
    ]
    assert report["matrix"]["agents"] == ["pi", "codex"]
    (row,) = report["matrix"]["rows"]
    assert row["cells"]["pi"]["status"] == "skipped" and "npm install -g" in row["cells"]["pi"]["reason"]
    cases = ET.parse(tmp_path / "j.xml").getroot().findall("testcase")
    assert [c.get("name") for c in cases] == ["any-agent [pi]", "any-agent [codex]"]
    assert all(c.find("skipped") is not None for c in cases)


def test_an_unknown_agent_in_the_list_is_a_usage_error(tmp_path: Path) -> None:
    done = workbench("run", "--mode", "real-agent", "--agent", "pi,nope", str(EXAMPLE), cwd=tmp_path)
    assert done.returncode == 2 and "unknown agent `nope`" in done.stderr, done.stderr


def _result(agent: str, status: str, name: str = "s", message: str = "") -> ScenarioResult:
    r = ScenarioResult(name=name, file=f"{name}.yaml", mode="real-agent", status=status, agent=agent)  # type: ignore[arg-type]
    if message:
        r.failures.append(Failure(3, 12, "tool", message, f"{name}.yaml"))
    return r


def test_the_matrix_names_each_cell_and_the_first_failure() -> None:
    results = [_result("pi", "passed"), _result("codex", "failed", message="runCmd: no result")]
    assert matrix_json(results) == {"agents": ["pi", "codex"], "rows": [{"file": "s.yaml", "name": "s", "cells": {
        "pi": {"status": "passed"}, "codex": {"status": "failed", "first_failure": "s.yaml:12: tool: runCmd: no result"}}}]}  # fmt: skip
    assert matrix_table(results).splitlines() == [
        "== matrix (scenario x agent) ==",
        "scenario  pi       codex",
        "s         passed   failed",
        "  s [codex]: s.yaml:12: tool: runCmd: no result",
    ]
    assert matrix_json([_result("", "passed")]) is None and matrix_table([]) == ""


def test_shards_of_a_matrix_merge(tmp_path: Path) -> None:
    shards = []
    for i, results in enumerate([[_result("pi", "passed"), _result("codex", "passed")],
                                 [_result("pi", "failed", "t", "x"), _result("codex", "passed", "t")]]):  # fmt: skip
        data = RunReport(results).to_json()
        shards.append(parse_report(tmp_path / f"{i}.json", data))
    merged = merge(shards).to_json()
    assert [(s["name"], s["agent"]) for s in merged["scenarios"]] == [
        ("s", "codex"), ("s", "pi"), ("t", "codex"), ("t", "pi")]  # fmt: skip
    assert [row["name"] for row in merged["matrix"]["rows"]] == ["s", "t"]
    assert merged["matrix"]["rows"][1]["cells"]["pi"]["status"] == "failed"
    with pytest.raises(Exception, match="with agent pi is in both"):
        merge([shards[0], shards[0]])


@pytest.mark.slow
def test_the_matrix_over_the_installed_agents_is_green(tmp_path: Path) -> None:
    installed = [name for name, agent in AGENTS.items() if find_program(agent.program) is not None]
    if not installed:
        pytest.skip("no agent is installed (see tests/engine/test_real_agent.py)")
    agents = ",".join(AGENTS)  # the absent ones are skipped pairs
    done = workbench("run", "--ci", "--mode", "real-agent", "--agent", agents, "--agent-ui", "print", "-j", "2",
                     str(EXAMPLE), "--report", "r.json", "--timeout", "120", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    statuses = {s["agent"]: s["status"] for s in report["scenarios"]}
    assert statuses == {name: ("passed" if name in installed else "skipped") for name in AGENTS}, done.stdout
