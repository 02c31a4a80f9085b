"""`workbench run --mode acp`: the engine as the ACP client of a real (LLM-backed) ACP agent."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from tests.processes import running, unique_seconds
from workbench.engine.options import RunOptions
from workbench.engine.report import ScenarioResult
from workbench.engine.runner import run_scenario

from .helpers import scenario_file

AGENT = Path(__file__).parent / "llm_agent.py"

WRITE_AND_RUN = f"""\
name: acp-mode
command: ["{sys.executable}", "{AGENT}"]
server:
  llmApiStyle: anthropic
timeline:
  - userInputs:
      - relativeTime: 0
        input: 'Create hello.txt and show it'
  - llmResponse:
      - assistant:
          - relativeTime: 0
            content: 'Writing hello.txt.'
  - agentPermissionRequest:
      decision: {{outcome: selected, optionId: "ANSWER"}}
  - agentToolUse:
      toolName: writeFile
      args: {{path: hello.txt, content: "hi\\n"}}
      status: ok
  - agentToolUse:
      toolName: runCmd
      args: {{cmd: "cat hello.txt"}}
      status: ok
  - llmResponse:
      - assistant:
          - relativeTime: 0
            content: 'Done: hello.txt says hi.'
  - assert:
      fs:
        exists: [hello.txt]
"""


def _run(path: Path, tmp_path: Path, timeout: float = 120) -> ScenarioResult:
    options = RunOptions(mode="acp", out_dir=tmp_path / "out", timeout_s=timeout)
    return asyncio.run(run_scenario(path, options))


def _frames(result: ScenarioResult) -> list[dict[str, object]]:
    assert result.run_dir is not None
    return [json.loads(line) for line in (Path(result.run_dir) / "acp.jsonl").read_text().splitlines()]


def test_a_real_acp_agent_writes_a_file_and_runs_a_command_through_the_engine(tmp_path: Path) -> None:
    result = _run(scenario_file(tmp_path, WRITE_AND_RUN.replace("ANSWER", "yes")), tmp_path)
    assert (result.status, [f.message for f in result.failures]) == ("passed", [])
    methods = [f["message"].get("method") for f in _frames(result)]  # type: ignore[attr-defined]
    for method in ("initialize", "session/new", "session/prompt", "session/request_permission",
                   "fs/write_text_file", "terminal/create", "session/update"):  # fmt: skip
        assert method in methods


def test_the_scripted_refusal_stops_the_write_and_the_turn_is_checked_against_the_scenario(
    tmp_path: Path,
) -> None:
    result = _run(scenario_file(tmp_path, WRITE_AND_RUN.replace("ANSWER", "no")), tmp_path)
    messages = [(f.line, f.kind, f.message) for f in result.failures]
    assert result.status == "failed"
    line, kind, text = messages[0]
    assert (line, kind) == (15, "expect") and text.startswith("the agent's tool call \"writeFile ")
    assert text.endswith("ended 'failed'; the scenario's writeFile succeeds")
    assert any("hello.txt" in text and kind == "assert" for _, kind, text in messages), messages


def test_an_agent_that_never_answers_fails_in_time_with_the_last_messages_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    marker = unique_seconds(600)
    path = scenario_file(tmp_path, f"""\
        name: silent
        command: ["sleep", "{marker}"]
        timeline:
          - userInputs:
              - relativeTime: 0
                input: 'hello'
        """)  # fmt: skip
    result = _run(path, tmp_path, timeout=6)
    assert result.status == "failed"
    message = result.failures[0].message
    assert message.startswith("the agent did not answer initialize in time; the last ACP messages were:")
    assert 'client->agent: {"jsonrpc": "2.0", "id": 0, "method": "initialize"' in message
    assert running(marker) == []


def test_an_agent_that_writes_garbage_then_leaves_fails_clearly_without_a_traceback(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, f"""\
        name: noisy
        command: ["{sys.executable}", "-c", "print('not json', flush=True)"]
        timeline:
          - userInputs:
              - relativeTime: 0
                input: 'hello'
        """)  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "workbench", "run", str(path), "--mode", "acp", "--timeout", "60",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 1
    assert "the agent's stdout is not JSON-RPC: line 1 is not JSON" in done.stdout
    assert "the agent closed the connection during initialize" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_user_cancel_session_cancels_the_turn_and_its_command(tmp_path: Path) -> None:
    marker = unique_seconds(600)
    path = scenario_file(tmp_path, f"""\
        name: acp-cancel
        command: ["{sys.executable}", "{AGENT}"]
        timeline:
          - userInputs:
              - relativeTime: 0
                input: 'wait for it'
          - llmResponse:
              - assistant:
                  - relativeTime: 0
                    content: 'Waiting.'
          - agentToolUse:
              toolName: runCmd
              args: {{cmd: "sleep {marker}"}}
          - userCancelSession: true
        """)  # fmt: skip
    result = _run(path, tmp_path)
    assert (result.status, [f.message for f in result.failures]) == ("passed", [])
    frames = _frames(result)
    methods = [f["message"].get("method") for f in frames]  # type: ignore[attr-defined]
    assert "session/cancel" in methods
    assert {"stopReason": "cancelled"} in [f["message"].get("result") for f in frames]  # type: ignore[attr-defined]
    assert running(marker) == []


def test_a_model_step_with_no_prompt_before_it_fails_at_once_at_its_line(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, f"""\
        name: no-prompt
        command: ["{sys.executable}", "{AGENT}"]
        timeline:
          - llmResponse:
              - assistant:
                  - relativeTime: 0
                    content: 'nobody asked'
        """)  # fmt: skip
    result = _run(path, tmp_path)
    assert [(f.line, f.message) for f in result.failures][:1] == [
        (
            6,
            'no prompt is in flight for the model\'s step `assistant "nobody asked"`: a user input must come before it',
        )
    ]


def test_the_client_records_the_agents_extension_messages_and_answers_them_as_scripted(
    tmp_path: Path,
) -> None:
    """`--mode acp` against `workbench acp-agent` playing an agent that sends `_scp/html_panel/show` and asks
    `_scp/file_comment/show`: the engine's client answers as its scenario's `respond` says, each message is
    in the run's `acp.jsonl` (which `workbench show` and the app read), and a missing one fails the turn."""
    from workbench.app.core.session import RecordedRun
    from workbench.engine.acp_trace import step_messages

    from .test_acp_agent import EXTENSIONS

    agent = scenario_file(tmp_path, EXTENSIONS, "agent.yaml")
    command = f'command: ["{sys.executable}", "-m", "workbench", "acp-agent", "{agent}"]\n'
    # the same file as the client's expectations: the agent's extension messages, not its model steps
    client = EXTENSIONS.split("  - llmResponse:")[0].replace("timeline:\n", command + "timeline:\n")
    client += "  - agentExtension:\n      method: _scp/never/sent\n"
    result = _run(scenario_file(tmp_path, client, "client.yaml"), tmp_path)
    assert [(f.line, f.message) for f in result.failures] == [
        (client.count("\n") - 1, "the agent sent no extension message `_scp/never/sent` (it sent "
                                  "['_scp/html_panel/show', '_scp/file_comment/show'])")]  # fmt: skip
    frames = _frames(result)
    sent = [f["message"] for f in frames if str(f["message"].get("method", "")).startswith("_scp/")]  # type: ignore[attr-defined]
    assert [(f["method"], "id" in f) for f in sent] == [("_scp/html_panel/show", False),
                                                         ("_scp/file_comment/show", True)]  # fmt: skip
    direction = {f["dir"] for f in frames if f["message"] is sent[1]}  # type: ignore[index]
    answer = next(
        f["message"]
        for f in frames
        if f["dir"] not in direction  # type: ignore[index]
        and f["message"].get("id") == sent[1]["id"]
        and "result" in f["message"]
    )  # type: ignore[attr-defined]
    assert answer["result"] == {"accepted": True}, "the scripted answer went back"
    assert result.run_dir is not None
    run_dir = Path(result.run_dir)
    shown = [
        line for lines in step_messages(run_dir, RecordedRun.read(run_dir).steps).values() for line in lines
    ]
    assert any("_scp/html_panel/show" in line for line in shown), (
        "beside the steps in `workbench show` and the app"
    )


def test_an_agent_that_cannot_start_or_exits_at_once_fails_at_its_command_line_with_its_exit_code(
    tmp_path: Path,
) -> None:
    """A wrong `command` (not installed, or a program that is no ACP agent) fails where `command` is
    written, with the agent's exit code and its screen; it said 'its screen:' and 24 blank lines when
    the agent had printed nothing, and named the scenario's first line."""
    missing = scenario_file(tmp_path, """\
        name: missing
        timeline:
          - userInputs: [[0, hello]]
        command: [no-such-acp-agent-xyz]
        """)  # fmt: skip
    result = _run(missing, tmp_path, timeout=60)
    (failure,) = result.failures
    assert failure.line == 4, failure
    assert failure.message.startswith(
        "the agent closed the connection during initialize (it exited with code"
    )
    assert "cannot start 'no-such-acp-agent-xyz'" in failure.message
    silent = scenario_file(tmp_path, f"""\
        name: silent
        command: ["{sys.executable}", "-c", "import sys; sys.exit(5)"]
        timeline:
          - userInputs: [[0, hello]]
        """)  # fmt: skip
    result = _run(silent, tmp_path, timeout=60)
    (failure,) = result.failures
    assert (failure.line, failure.message) == (
        2,
        "the agent closed the connection during initialize (it exited with code 5); the screen was empty",
    )


def test_a_scenario_with_no_agent_names_the_acp_adapters(tmp_path: Path) -> None:
    """It said 'real-agent mode needs an agent: `--agent claude-code|codex|...`', agents acp mode refuses."""
    path = scenario_file(tmp_path, "name: no-agent\ntimeline:\n  - userInputs: [[0, hello]]\n")
    (failure,) = _run(path, tmp_path, timeout=60).failures
    assert failure.message.startswith("acp mode needs an ACP agent: `--agent claude-code-acp|"), failure
    assert "real-agent" not in failure.message


def test_a_permission_the_agent_never_asked_for_is_named_as_the_scenarios(tmp_path: Path) -> None:
    """It said only 'the agent asked for no permission', which read as a complaint about the client."""
    path = scenario_file(tmp_path, f"""\
        name: ask-before-run
        command: ["{sys.executable}", "{AGENT}"]
        server:
          llmApiStyle: anthropic
        timeline:
          - userInputs: [[0, 'Show the date']]
          - agentPermissionRequest:
              decision: {{outcome: selected, optionId: "yes"}}
          - agentToolUse:
              toolName: runCmd
              args: {{cmd: "echo today"}}
              status: ok
          - llmResponse:
              - assistant: [[0, 'It is today.']]
        """)  # fmt: skip
    result = _run(path, tmp_path)
    assert [(f.line, f.message) for f in result.failures] == [
        (7, "the scenario has the agent ask for permission here; it asked for none in this turn")
    ], result.failures


def test_the_acp_messages_sit_beside_the_steps_they_came_with(tmp_path: Path) -> None:
    """acp.jsonl counted its time from the ACP recorder's start and the trace from the run's, half a second
    of workspace setup earlier: every message looked that much earlier, and all of them fell to the first
    step (the app's step inspector, the HTML report)."""
    from workbench.app.core.session import RecordedRun
    from workbench.engine.acp_trace import step_messages

    result = _run(scenario_file(tmp_path, WRITE_AND_RUN.replace("ANSWER", "yes")), tmp_path)
    assert result.status == "passed" and result.run_dir is not None
    run = Path(result.run_dir)
    steps = RecordedRun.read(run).steps
    placed = step_messages(run, steps)
    first = min(placed)
    assert "→ initialize #0" in placed[first], placed
    actions = {s.index: s.action for s in steps}
    for request in ("fs/write_text_file", "terminal/create"):  # on the tool step whose call made it
        (where,) = {i for i, lines in placed.items() for line in lines if request in line}
        assert actions[where].startswith("tool"), (request, actions[where], placed)
