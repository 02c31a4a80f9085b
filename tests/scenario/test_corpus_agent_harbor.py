"""Every Agent Harbor corpus file gets the verdict written here: accepted, or
rejected with a diagnostic at an exact line:col that says why.

The corpus MANIFEST notes what the upstream Rust loader rejects; we accept more
dialects (legacy top-level events, userCommand/assertGit task files, tuples), and
reject what is not a scenario at all or breaks a rule we share (decreasing times,
sessionStart without loadSession, absolute paths, non-standard elements).
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest

from tests.conftest import require_corpus
from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import try_load
from workbench.timeline import compile_schedule

# path -> None (accepted) or (line, col, message substring)
VERDICTS: dict[str, tuple[int, int, str] | None] = {
    "_demo_scenario.json": None,
    "_historical/test_scenarios/basic_navigation.json": None,
    "_historical/tests/tools/mock-agent/examples/hello_scenario.json": None,
    "_historical/tests/tools/mock-agent/examples/playbook.json": (1, 1, "legacy mock-server playbook"),
    "_historical/tests/tools/mock-agent/scenarios/bug_fix_scenario.json": None,
    "_historical/tests/tools/mock-agent/scenarios/claude_file_creation.json": (7, 15, "pexpect-style script"),
    "_historical/tests/tools/mock-agent/scenarios/code_refactoring_scenario.json": None,
    "_historical/tests/tools/mock-agent/scenarios/codex_file_creation.json": (7, 15, "pexpect-style script"),
    "_historical/tests/tools/mock-agent/scenarios/documentation_scenario.json": None,
    "_historical/tests/tools/mock-agent/scenarios/feature_implementation_scenario.json": None,
    "_historical/tests/tools/mock-agent/scenarios/test_scenario.json": (13, 15, "pexpect-style script"),
    "_historical/tests/tools/mock-agent/scenarios/testing_workflow_scenario.json": None,
    "crates/ah-cli/src/agent/record/golden_snapshots/recorder_ipc_integration.json": (
        1,
        1,
        "needs `timeline`",
    ),
    "test_scenarios/long_running_demo.yaml": None,
    "test_scenarios/simulation_smoke.yaml": None,
    "test_scenarios/test_scenario.yaml": None,
    "test_scenarios/timing_test_scenario.yaml": None,
    "tests/acp_bridge/scenarios/auth_failure.yaml": None,
    "tests/acp_bridge/scenarios/initialize_and_auth.yaml": None,
    "tests/acp_bridge/scenarios/pause_resume.yaml": None,
    "tests/acp_bridge/scenarios/prompt_turn_basic.yaml": None,
    "tests/acp_bridge/scenarios/session_new_and_load.yaml": None,
    "tests/acp_bridge/scenarios/terminal_follow_detach.yaml": (51, 1, "JSON-RPC transcript"),
    "tests/scenarios/agent_start_screenshot_test.yaml": None,
    "tests/scenarios/demo_screenshot_test.yaml": None,
    "tests/tools/mock-agent/examples/comprehensive_playbook.json": (1, 1, "legacy mock-server playbook"),
    "tests/tools/mock-agent/examples/hello_scenario.yaml": None,
    "tests/tools/mock-agent/examples/snapshot_test_scenario.json": None,
    "tests/tools/mock-agent/examples/snapshot_test_scenario.yaml": None,
    "tests/tools/mock-agent/examples/tui_testing_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/basic_timeline_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/bug_fix_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/claude_file_creation.yaml": None,
    "tests/tools/mock-agent/scenarios/claude_test_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/code_refactoring_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/codex_file_creation.yaml": None,
    "tests/tools/mock-agent/scenarios/documentation_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/feature_implementation_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/interactive_development_scenario.yaml": None,  # `tool:` elements: warnings
    "tests/tools/mock-agent/scenarios/interactive_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/new_format_scenario.yaml": None,
    # the format's "existing example": offsets written as deltas, read as such with warnings
    "tests/tools/mock-agent/scenarios/realistic_development_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/recorder_error_handling.yaml": None,
    "tests/tools/mock-agent/scenarios/recorder_ipc_integration.yaml": None,
    "tests/tools/mock-agent/scenarios/recorder_replay_test.yaml": None,
    "tests/tools/mock-agent/scenarios/simple_test.yaml": None,
    "tests/tools/mock-agent/scenarios/snapshot_anchoring_precision.yaml": None,
    "tests/tools/mock-agent/scenarios/task_browser_disabled.yaml": None,
    "tests/tools/mock-agent/scenarios/task_create_new_branch.yaml": None,
    "tests/tools/mock-agent/scenarios/task_delivery_pr_requires_push.yaml": None,
    "tests/tools/mock-agent/scenarios/task_follow_tmux.yaml": None,
    "tests/tools/mock-agent/scenarios/task_follow_up_append.yaml": None,
    "tests/tools/mock-agent/scenarios/task_metadata_only_commit.yaml": None,
    "tests/tools/mock-agent/scenarios/task_multi_agent_follow.yaml": None,
    "tests/tools/mock-agent/scenarios/task_push_behaviors.yaml": None,
    "tests/tools/mock-agent/scenarios/test_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/testing_workflow_scenario.yaml": None,
    "tests/tools/mock-agent/scenarios/timing_test_scenario.yaml": None,
    "tests/tools/mock-agent-acp/scenarios/acp_echo.yaml": None,
    "tests/tools/mock-agent-acp/scenarios/acp_loadsession_meta.yaml": None,
    "tests/tools/mock-agent-acp/scenarios/acp_meta_multimodal.yaml": None,  # sessionStart, loadSession false: a warning
    "tests/tools/mock-agent-acp/scenarios/acp_permission_and_read.yaml": None,
    "tests/tools/mock-agent-acp/scenarios/acp_realistic_session.yaml": None,
    "tests/tools/mock-agent-acp/scenarios/acp_round_trip.yaml": None,  # an absolute edit: a warning, refused at run time
    "tests/tools/mock-agent-acp/scenarios/acp_terminal.yaml": None,
}


def _root() -> Path:
    return require_corpus() / "agent-harbor"


def _verdict(path: Path) -> tuple[bool, str, tuple[int, int] | None]:
    result = try_load(path)
    if result.scenario is not None:
        try:
            compile_schedule(result.scenario)
        except ScenarioError as exc:
            d = exc.diagnostics[0]
            return False, d.message, (d.pos.line, d.pos.col)
        return True, "", None
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    assert errors, f"{path}: rejected without an error diagnostic"
    return False, errors[0].message, (errors[0].pos.line, errors[0].pos.col)


def test_every_scenario_file_in_the_corpus_has_a_verdict() -> None:
    root = _root()
    found = {str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in (".yaml", ".yml", ".json")}
    assert found == set(VERDICTS), f"new or missing corpus files: {found ^ set(VERDICTS)}"


@pytest.mark.parametrize("rel", sorted(VERDICTS))
def test_corpus_file_verdict(rel: str) -> None:
    expected = VERDICTS[rel]
    accepted, message, where = _verdict(_root() / rel)
    if expected is None:
        assert accepted, f"{rel} should load, got: {message} at {where}"
    else:
        line, col, text = expected
        assert not accepted, f"{rel} should be rejected ({text})"
        assert where == (line, col), f"{rel}: diagnostic at {where}, expected {(line, col)}: {message}"
        assert text in message


def test_diagnostics_name_the_file_line_and_column() -> None:
    path = _root() / "tests/tools/mock-agent/scenarios/realistic_development_scenario.yaml"
    result = try_load(path)
    text = str(result.diagnostics[0])
    assert "relativeTime is an offset from the start of the element and must not decrease" in text
    assert ":27:27: warning: time went backwards" in text and text.endswith("(at 3500)")
    assert "realistic_development_scenario.yaml" in text


# Files that are scenarios but depart from the spec: they load, and each departure is a warning at its place.
DEPARTURES = {
    "tests/tools/mock-agent/scenarios/realistic_development_scenario.yaml": (27, 27, "time went backwards"),
    "tests/tools/mock-agent-acp/scenarios/acp_meta_multimodal.yaml": (
        26,
        5,
        "needs `acp.capabilities.loadSession",
    ),
    "tests/tools/mock-agent-acp/scenarios/acp_permission_and_read.yaml": (
        24,
        5,
        "needs `acp.capabilities.loadSe",
    ),
    "tests/tools/mock-agent-acp/scenarios/acp_round_trip.yaml": (61, 13, "is outside the workspace"),
}


@pytest.mark.parametrize("rel", sorted(DEPARTURES))
def test_departures_from_the_spec_are_warnings(rel: str) -> None:
    line, col, text = DEPARTURES[rel]
    result = try_load(_root() / rel)
    assert result.scenario is not None
    found = [(d.pos.line, d.pos.col) for d in result.diagnostics if text in d.message]
    assert found and found[0] == (line, col), [str(d) for d in result.diagnostics]
    assert all(d.severity.value == "warning" for d in result.diagnostics)


def test_the_whole_shared_corpus_validates_quickly() -> None:
    """Every scenario file of both corpora, loaded and compiled (the budget is 2 s; timing is reported, not asserted)."""
    corpus = require_corpus()
    files = [
        p
        for p in corpus.rglob("*")
        if p.suffix in (".yaml", ".yml", ".json", ".toml")
        and "agent-wire" not in p.parts
        and p.name != "MANIFEST.md"
    ]
    start = time.perf_counter()
    for path in files:
        result = try_load(path)
        if result.scenario is not None:
            with contextlib.suppress(ScenarioError):
                compile_schedule(result.scenario)
    elapsed = time.perf_counter() - start
    print(f"validated {len(files)} corpus files in {elapsed * 1000:.0f} ms")
    assert len(files) > 100


def test_the_corpus_gets_the_same_verdicts_with_and_without_lenient() -> None:
    """Every key seen in a real Agent Harbor file is known (implemented, or accepted and ignored with a note),
    so `--ci` and `--ci --lenient` give every corpus file the same verdict: no unknown key decides it."""
    from workbench.timeline.prepare import prepare

    root = _root()
    differ = {}
    for rel in sorted(VERDICTS):
        strict, lenient = prepare(root / rel, strict=True), prepare(root / rel, strict=False)
        if [str(d) for d in strict.errors] != [str(d) for d in lenient.errors]:
            differ[rel] = [str(d) for d in strict.errors]
    assert differ == {}


def test_the_tool_element_of_the_older_mock_agent_is_a_tool_call() -> None:
    """`tool: [[ms, name], {args}, {result}, {status}]` inside `llmResponse`, as Agent Harbor's
    `interactive_development_scenario` writes it: a tool call, no longer skipped with a warning."""
    from workbench.scenario import model as m

    result = try_load(_root() / "tests/tools/mock-agent/scenarios/interactive_development_scenario.yaml")
    assert result.scenario is not None and result.diagnostics == [], [str(d) for d in result.diagnostics]
    tools = [p for e in result.scenario.timeline if isinstance(e, m.LlmResponse)
             for p in e.pieces if isinstance(p, m.ToolUse)]  # fmt: skip
    assert [(t.pos.line, t.tool_name) for t in tools[:4]] == [
        (54, "writeFile"), (86, "writeFile"), (113, "writeFile"), (136, "runCmd")]  # fmt: skip
    assert dict(tools[3].args) == {"command": "cd /workspace && python test_auth.py", "cwd": "."}
    assert (tools[3].result, tools[3].status) == ("Test completed successfully", "ok")
