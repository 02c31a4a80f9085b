"""An agent the product has never seen (tests/responses_agent.py: the OpenAI Responses API, tools of its own,
its prompt on its command line or read from its terminal) under a scenario written for any agent, as a team
would first try it: `workbench run --mode real-agent --command '...'`, with nothing of the agent's in the
product."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from tests.engine.test_real_agent import workbench

pytestmark = pytest.mark.slow

AGENT = Path(__file__).parent.parent / "responses_agent.py"
ANY_AGENT = Path(__file__).parent.parent.parent / "scenarios" / "any-agent.yaml"
PROMPT = "Create notes.txt, fix its last line and show it"  # the first input of scenarios/any-agent.yaml


def run_any_agent(tmp_path: Path, *command: str) -> tuple[int, str, dict]:  # type: ignore[type-arg]
    """scenarios/any-agent.yaml under ``command`` (--command), with the JSON report's entry."""
    line = shlex.join([sys.executable, str(AGENT), *command])
    done = workbench("run", "--ci", "--mode", "real-agent", str(ANY_AGENT), "--command", line,
                     "--report", "r.json", "--timeout", "30", cwd=tmp_path)  # fmt: skip
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    return done.returncode, done.stdout + done.stderr, entry


def shown(tmp_path: Path, name: str) -> str:
    """What the agent wrote to its terminal in the run of scenario ``name`` (its recording's output)."""
    cast = next(tmp_path.glob(f"target/tmp/workbench/{name}/*/*/terminal.cast")).read_text()
    return "".join(json.loads(line)[2] for line in cast.splitlines()[1:] if json.loads(line)[1] == "o")


def test_an_agent_that_reads_its_prompt_from_the_terminal_passes(tmp_path: Path) -> None:
    code, out, entry = run_any_agent(tmp_path)
    assert code == 0, out
    notes = "\n".join(entry["notes"])
    for mapping in ("`runCmd` -> `exec`", "`readFile` -> `open_file`", "`editFile` -> `patch_file`"):
        assert mapping in notes, notes


def test_an_agent_given_the_scenarios_prompt_on_its_command_line_is_not_typed_to(tmp_path: Path) -> None:
    """It asks the model before anything is typed and never reads its terminal: the replay waited for it to
    ask for input while the model's answer waited for that input to be typed (until --timeout)."""
    code, out, _ = run_any_agent(tmp_path, PROMPT)
    assert code == 0, out
    assert PROMPT not in shown(tmp_path, "any-agent")  # typed, the terminal would have echoed it


def test_an_agent_with_a_prompt_of_its_own_fails_at_once_naming_both(tmp_path: Path) -> None:
    code, out, entry = run_any_agent(tmp_path, "Delete every file here")
    assert code == 1, out
    assert (
        "scenarios/any-agent.yaml:9: process: the agent asked the model before the input at line 9 was typed"
        in out
    )
    assert "('Delete every file here')" in out and f"({PROMPT!r})" in out and "`{prompt}`" in out
    assert "timed out" not in out and entry["failures"][0]["line"] == 9, out
    # the HTML report shows the two prompts side by side at the input's step
    assert [(m["line"], m["what"], m["expected"], m["actual"]) for m in entry["mismatches"]] == [
        (9, "prompt", PROMPT, "Delete every file here")
    ], entry


INITIAL_PROMPT = """\
name: initial-prompt
initialPrompt: Create test.txt
command: {command}
timeline:
  - llmResponse:
      - think: [[0, "Writing it."]]
  - agentToolUse:
      toolName: writeFile
      args: {{path: test.txt, text: "some text"}}
  - llmResponse:
      - assistant: [[0, "Created test.txt."]]
expect:
  exitCode: 0
"""


def test_a_scenario_whose_prompt_is_its_initial_prompt_is_typed_and_the_session_ended(tmp_path: Path) -> None:
    """Agent Harbor's files for its mock agent have an `initialPrompt` (the mock agent's argument) and no
    `userInputs`, and `expect.exitCode`: the agent's TUI was never given the prompt, then the run waited
    for an agent that waits for its next prompt to exit (both until --timeout)."""
    command = json.dumps([sys.executable, str(AGENT)])
    path = tmp_path / "initial-prompt.yaml"
    path.write_text(INITIAL_PROMPT.format(command=command), encoding="utf-8")
    done = workbench("run", "--mode", "real-agent", str(path), "--timeout", "30", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    out = shown(tmp_path, "initial-prompt")
    assert out.startswith("quill> Create test.txt\r\n") and out.endswith("Created test.txt.\r\nquill> "), out


def test_an_agent_of_ones_own_without_the_agent_mode_is_told_why_no_model_answers(tmp_path: Path) -> None:
    """`--command` alone runs in mock-agent mode, where the command replaces the built-in mock agent and
    nothing serves the model: the agent failed on its first request and the run said only that the files
    and the screen were not as the scenario says."""
    line = shlex.join([sys.executable, str(AGENT)])
    done = workbench("run", "--ci", str(ANY_AGENT), "--command", line, "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert entry["mode"] == "mock-agent"
    assert any("nothing serves a model API" in w and "--mode real-agent" in w for w in entry["warnings"]), (
        entry
    )
    assert "nothing serves a model API" in done.stdout
