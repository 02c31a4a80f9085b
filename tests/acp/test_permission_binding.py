"""Under `--mode acp` a scripted permission answer belongs to the tool it precedes in the scenario, as in
`workbench acp-agent`: an agent that asks before every tool gets the reject meant for `rm` on its `rm`
request, not on the first write it asks about; a tool no answer precedes is allowed."""

from __future__ import annotations

from pathlib import Path

from acp.schema import PermissionOption

from tests.conftest import write
from workbench.acp.expect import ScriptedAnswers, scripted_answers
from workbench.scenario.loader import load_scenario
from workbench.timeline import compile_schedule

SCENARIO = """\
name: bound
timeline:
  - userInputs: [[0, "tidy up"]]
  - agentToolUse: {toolName: writeFile, args: {path: notes.txt, content: "x"}, status: ok}
  - agentToolUse: {toolName: readFile, args: {path: notes.txt}, status: ok}
  - agentPermissionRequest:
      decision: {outcome: selected, optionId: reject}
  - agentToolUse: {toolName: runCmd, args: {cmd: rm -rf build}, status: error}
"""

OPTIONS = [PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
           PermissionOption(option_id="reject", name="Reject", kind="reject_once")]  # fmt: skip


def test_each_answer_goes_to_the_tool_it_precedes(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, "s.yaml", SCENARIO), env={})
    answers = scripted_answers(scenario, compile_schedule(scenario).steps)
    assert [(line, target) for line, _, target in answers] == [(6, ("execute", ("rm",)))]
    answer = ScriptedAnswers(answers)
    write_call = {
        "toolCallId": "t1",
        "kind": "edit",
        "title": "Write notes.txt",
        "rawInput": {"file_path": "/w/notes.txt"},
    }
    rm_call = {
        "toolCallId": "t2",
        "kind": "execute",
        "title": "rm -rf build",
        "rawInput": {"command": "rm -rf build"},
    }
    assert answer(write_call, OPTIONS) == "allow"  # arrival order would have given it the reject
    assert answer(rm_call, OPTIONS) == "reject"
    assert answer(rm_call, OPTIONS) == "allow"  # each answer is used once
    assert answer.problems == []


def test_an_answer_with_no_tool_after_it_goes_in_arrival_order(tmp_path: Path) -> None:
    text = SCENARIO.replace(
        "  - agentToolUse: {toolName: runCmd, args: {cmd: rm -rf build}, status: error}\n", ""
    )
    scenario = load_scenario(write(tmp_path, "s.yaml", text), env={})
    answer = ScriptedAnswers(scripted_answers(scenario, compile_schedule(scenario).steps))
    assert answer({"toolCallId": "t1", "kind": "edit", "title": "Write notes.txt"}, OPTIONS) == "reject"
