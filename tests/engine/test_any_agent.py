"""Real-agent mode with an agent nobody wrote a profile for: a small program on the
official OpenAI SDK whose tools have names and argument names of its own. The
canonical scenario drives it; when it offers nothing that can write a file, the
run stops at the scenario's line at once, naming each offered tool and why it
does not fit, and the report carries every mapping decision."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import write
from tests.engine.test_real_agent import CLIENT, workbench

pytestmark = pytest.mark.slow

# the tool loop of test_real_agent's CLIENT, with tools of its own: `save {file, body}`, `sh {commands: [...]}`
AGENT = (
    CLIENT.replace("tools = [", "tools = {tools}\n_ = [", 1)
    .replace('call.function.name == "writeFile"', 'call.function.name == "save"')
    .replace(
        'pathlib.Path(args["path"]).write_text(args["content"])',
        'pathlib.Path(args["file"]).write_text(args["body"])',
    )
    .replace(
        'subprocess.run(args["cmd"], shell=True, capture_output=True, text=True).stdout',
        '"".join(subprocess.run(c, shell=True, capture_output=True, text=True).stdout for c in args["commands"])',
    )
)

USABLE = [
    {"type": "function", "function": {"name": "save", "description": "Save text to a file", "parameters": {
        "type": "object", "properties": {"file": {"type": "string"}, "body": {"type": "string"}},
        "required": ["file", "body"]}}},
    {"type": "function", "function": {"name": "sh", "description": "Run shell commands", "parameters": {
        "type": "object", "properties": {"commands": {"type": "array", "items": {"type": "string"}}},
        "required": ["commands"]}}},
]  # fmt: skip

USELESS = [
    {"type": "function", "function": {"name": "weather", "description": "Today's weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
]  # fmt: skip

SCENARIO = """\
command: {command}
name: any-agent
timeline:
  - userInputs: [[0, "write hello.txt and show it"]]
  - llmResponse:
      - assistant: [[0, "Writing hello.txt."]]
  - writeFile: {{path: hello.txt, content: "hello\\n"}}
  - runCmd: {{cmd: "cat {{workspace}}/hello.txt", result: "hello"}}
  - llmResponse:
      - assistant: [[0, "Done."]]
  - assert:
      fs: {{exists: [hello.txt]}}
"""


def _scenario(tmp_path: Path, tools: list[dict[str, object]]) -> Path:
    agent = write(tmp_path, "agent.py", AGENT.replace("{tools}", repr(tools)))
    command = json.dumps([sys.executable, str(agent), "{openai_base_url}", "{api_key}", "{prompt}"])
    return write(tmp_path, "any-agent.yaml", SCENARIO.format(command=command))


def test_a_canonical_scenario_drives_an_agent_with_tools_of_its_own(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, USABLE)
    done = workbench("run", "--mode", "real-agent", str(scenario), "--report", "r.json", "--timeout", "60",
                     cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert entry["status"] == "passed"
    notes = entry["notes"]
    assert any(n.startswith("tool mapping: `writeFile` -> `save` (score ") for n in notes), notes
    assert any(n.startswith("tool mapping: `runCmd` -> `sh` (score ") for n in notes), notes


def test_nothing_maps_stops_the_run_at_the_line_at_once(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, USELESS)
    started = time.monotonic()
    done = workbench("run", "--mode", "real-agent", str(scenario), "--report", "r.json", "--timeout", "60",
                     cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert time.monotonic() - started < 50  # stopped, not timed out
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    first = entry["failures"][0]
    assert first["line"] == 7 and first["kind"] == "tool", entry["failures"]
    assert first["message"] == (
        "scenario tool `writeFile` maps to no tool the agent offers (offered: `weather`); "
        "`weather`: no property takes the path"
    )
    assert "timed out" not in done.stdout
