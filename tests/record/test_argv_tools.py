"""A recording of an agent whose shell tool takes an argv (tests/responses_agent.py: `exec {argv: [...]}`,
the OpenAI Responses API) replays under `--ci`, also under an agent whose shell tool takes a string."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.engine.test_real_agent import workbench
from tests.record.helpers import agent_command, record, serve_llm
from workbench.scenario import model as m
from workbench.scenario.loader import load_scenario

AGENT = Path(__file__).parent.parent / "responses_agent.py"

UPSTREAM = """\
name: upstream
timeline:
  - userInputs: [[0, "make app.py greet and run it"]]
  - llmResponse:
      - assistant: [[0, "Writing it."]]
  - writeFile: {path: app.py, content: "print('hello there')\\n"}
  - llmResponse:
      - assistant: [[0, "Running it."]]
  - runCmd: {cmd: python3 app.py}
  - llmResponse:
      - assistant: [[0, "Done: app.py greets."]]
"""


def test_a_command_sent_as_an_argv_is_recorded_as_one_string(tmp_path: Path) -> None:
    """The argv came back as `runCmd cmd: [bash, -lc, ...]`, which `--ci` refuses (`cmd` must be a string):
    the recording did not replay."""
    with serve_llm(tmp_path, UPSTREAM) as url:
        done = record(tmp_path, url, "scenarios/greet.yaml", [sys.executable, str(AGENT)],
                      "--prompt", "make app.py greet and run it")  # fmt: skip
    assert done.returncode == 0, done.stderr
    scenario = tmp_path / "scenarios" / "greet.yaml"
    calls = [(e.tool_name, dict(e.args), e.result) for e in load_scenario(scenario, env={}).timeline
             if isinstance(e, m.ToolUse)]  # fmt: skip
    assert ("runCmd", {"cmd": "python3 app.py"}, "hello there") in calls, calls
    same = workbench("run", "scenarios", "--mode", "real-agent", "--ci", cwd=tmp_path)
    assert same.returncode == 0, same.stdout + same.stderr
    text = scenario.read_text()
    scenario.write_text(text.replace(repr([sys.executable, str(AGENT)]).replace("'", '"'),
                                     repr(agent_command("openai-chat")).replace("'", '"')))  # fmt: skip
    assert scenario.read_text() != text
    # its own screen: goldens of its own
    other = workbench("run", "scenarios", "--mode", "real-agent", "--goldens", "other", cwd=tmp_path)
    assert other.returncode == 0, other.stdout + other.stderr
