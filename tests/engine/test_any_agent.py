"""Real-agent mode with an agent nobody wrote a profile for: a small program on the
official OpenAI SDK whose tools have names and argument names of its own. The
canonical scenario drives it; when it offers nothing that can write a file, the
run stops at the scenario's line at once, naming each offered tool and why it
does not fit, and the report carries every mapping decision."""

from __future__ import annotations

import json
import subprocess
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


def run_real_agent(tmp_path: Path, scenario: Path, timeout: str) -> subprocess.CompletedProcess[str]:
    """`workbench run --mode real-agent` with the JSON report in ``tmp_path/r.json``."""
    return workbench("run", "--mode", "real-agent", str(scenario), "--report", "r.json", "--timeout", timeout,
                     cwd=tmp_path)  # fmt: skip


def _scenario(tmp_path: Path, tools: list[dict[str, object]]) -> Path:
    agent = write(tmp_path, "agent.py", AGENT.replace("{tools}", repr(tools)))
    command = json.dumps([sys.executable, str(agent), "{openai_base_url}", "{api_key}", "{prompt}"])
    return write(tmp_path, "any-agent.yaml", SCENARIO.format(command=command))


def test_a_canonical_scenario_drives_an_agent_with_tools_of_its_own(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, USABLE)
    done = run_real_agent(tmp_path, scenario, timeout="60")
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert entry["status"] == "passed"
    notes = entry["notes"]
    assert any(n.startswith("tool mapping: `writeFile` -> `save` (score ") for n in notes), notes
    assert any(n.startswith("tool mapping: `runCmd` -> `sh` (score ") for n in notes), notes


def test_nothing_maps_stops_the_run_at_the_line_at_once(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, USELESS)
    started = time.monotonic()
    done = run_real_agent(tmp_path, scenario, timeout="60")
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
    said = (done.stdout + done.stderr).count("`writeFile` maps to no tool the agent offers")
    assert said == 1, (
        "once, in the run's failures (the server's log printed it again on stderr)\n" + done.stderr
    )


SLOW_TUI = '''\
"""A TUI that starts slowly: quiet for a while, then raw mode (discarding what was typed before, as
tcsetattr's TCSAFLUSH does), then one line read key by key and sent to the model."""
import os, sys, termios, time, tty
import openai

base_url, key = sys.argv[1:3]
print("starting...", flush=True)
time.sleep(1.5)
tty.setraw(0, termios.TCSAFLUSH)
line = b""
while not line.endswith(b"\\r"):
    line += os.read(0, 1)
client = openai.OpenAI(base_url=base_url, api_key=key, max_retries=0)
reply = client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": line.decode().strip()}])
sys.stdout.write("\\r\\n" + (reply.choices[0].message.content or "") + "\\r\\n")
sys.stdout.flush()
'''

TYPED = """\
command: {command}
name: slow-tui
timeline:
  - userInputs: [[0, "hello there"]]
  - llmResponse:
      - assistant: [[0, "General Kenobi."]]
  - assert:
      text: {{contains: ["General Kenobi."]}}
"""


def test_the_first_input_waits_until_the_program_asks_for_input(tmp_path: Path) -> None:
    """Typed while the program is still starting, the line would be discarded: the run waits for the
    terminal to leave line mode (no preset, no ready text, no quiet period decides it)."""
    program = write(tmp_path, "slow.py", SLOW_TUI)
    command = json.dumps([sys.executable, str(program), "{openai_base_url}", "{api_key}"])
    scenario = write(tmp_path, "slow.yaml", TYPED.format(command=command))
    done = run_real_agent(tmp_path, scenario, timeout="60")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_program_that_never_asks_for_input_ends_the_run_with_its_screen(tmp_path: Path) -> None:
    # a shell prints at once (a Python program took over 3 s to print under a load of 8); the run's timeout is
    # the only way it ends, so it is long enough for a loaded machine to set up the workspace and start sh
    command = json.dumps(["sh", "-c", "echo busy forever; exec sleep 600"])
    scenario = write(tmp_path, "busy.yaml", TYPED.format(command=command))
    done = run_real_agent(tmp_path, scenario, timeout="8")
    assert done.returncode == 1
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    message = entry["failures"][0]["message"]
    assert "busy forever" in message and entry["failures"][0]["line"] == 4, entry["failures"]


REPL = '''\
"""A line-mode REPL over the OpenAI SDK: `> `, a line, the model's answer, again."""
import sys
import openai

client = openai.OpenAI(base_url=sys.argv[1], api_key=sys.argv[2], max_retries=0)
while True:
    try:
        line = input("> ")
    except EOFError:
        break
    reply = client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": line}])
    print(reply.choices[0].message.content, flush=True)
'''

IN_ORDER = """\
command: {command}
name: in-order
timeline:
  - userInputs: [[0, "hello"]]
  - screenshot: asked
  - llmResponse:
      - assistant: [[0, "Hi there!"]]
  - screenshot: answered
"""


def test_a_screenshot_before_a_reply_is_taken_before_the_reply_goes_out(tmp_path: Path) -> None:
    """The file says: typed, screenshot, then the model answers. The agent asked at once and the server
    answered at once, so the screenshot `asked` showed the answer (a race the reply won)."""
    agent = write(tmp_path, "repl.py", REPL)
    command = json.dumps([sys.executable, str(agent), "{openai_base_url}", "{api_key}"])
    scenario = write(tmp_path, "in-order.yaml", IN_ORDER.format(command=command))
    done = run_real_agent(tmp_path, scenario, timeout="60")
    assert done.returncode == 0, done.stdout + done.stderr
    shots = tmp_path / "screenshots" / "in-order" / "80x24"
    asked, answered = ("\n".join(row.rstrip() for row in (shots / f"{label}.golden").read_text().splitlines()).rstrip()
                       for label in ("asked", "answered"))  # fmt: skip
    assert asked.endswith("> hello") and "Hi there!" not in asked, asked
    assert "> hello\nHi there!\n>" in answered, answered


def test_print_ui_needs_the_prompt_placeholder_in_a_command(tmp_path: Path) -> None:
    """`--agent-ui print` gives the first input on the command line; a `command` without `{prompt}` has no
    place for it, so the first input was dropped untyped and the run waited for its timeout."""
    agent = write(tmp_path, "repl.py", REPL)
    command = json.dumps([sys.executable, str(agent), "{openai_base_url}", "{api_key}"])
    scenario = write(tmp_path, "in-order.yaml", IN_ORDER.format(command=command))
    started = time.monotonic()
    done = workbench("run", "--mode", "real-agent", "--agent-ui", "print", str(scenario), "--report", "r.json",
                     "--timeout", "60", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1 and time.monotonic() - started < 30, done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert (
        "--agent-ui print gives the first input (line 4) on the agent's command line"
        in entry["failures"][0]["message"]
    )
    assert "`{prompt}`" in entry["failures"][0]["message"]
    unknown = workbench("run", "--mode", "real-agent", "--agent", "forge", str(scenario), cwd=tmp_path)
    assert (
        unknown.returncode == 2
        and "an agent of your own is a module in the entry point group" in unknown.stderr
    )


TWO_TURNS = """\
command: {command}
name: two-turns
timeline:
  - userInputs: [[0, "write a.txt"]]
  - writeFile: {{path: a.txt, content: "a\\n"}}
  - llmResponse:
      - assistant: [[0, "Wrote a.txt."]]
  - advanceMs: 0
  - userInputs: [[0, "thanks"]]
  - llmResponse:
      - assistant: [[0, "You're welcome."]]
"""


def test_a_print_mode_agent_that_exits_before_the_second_input_says_why(tmp_path: Path) -> None:
    scenario = write(tmp_path, "two.yaml", TWO_TURNS.format(command=json.dumps(
        [sys.executable, str(write(tmp_path, "agent.py", AGENT.replace("{tools}", repr(USABLE)))),
         "{openai_base_url}", "{api_key}", "{prompt}"])))  # fmt: skip
    done = run_real_agent(tmp_path, scenario, timeout="60")
    assert done.returncode == 1, done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    message = entry["failures"][0]["message"]
    assert "the agent exited (code 0) before it took input" in message, message
    assert (
        "in print mode the agent answers its one prompt and exits, so the input at line 9 is never read"
        in message
    )
