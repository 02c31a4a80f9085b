"""`workbench run --mode real-agent` end to end: real agents in our pty, the mock LLM
server playing the model, through the real CLI.

The agent tests are skipped unless the agent is installed: put its program
(`claude`, `pi`, `codex`, `gemini`) on PATH, or set WORKBENCH_AGENTS to npm
prefixes separated by `:` (`npm i --prefix DIR @anthropic-ai/claude-code@2.1.197`,
...; `.ci/run` does this in CI). Every agent of the registry
(`workbench.llm.agents.AGENTS`, with the version each was verified with) is
tested the same way.

In each, the model asks the agent to write a file and then to `cat` it: the file
must exist in the workspace (the scenario's `assert` and the kept workspace), the
command's output must reach the next request (the server compares the tool
result with the scenario's `result`; a difference fails the run), and the
screenshot must match the golden in `tests/engine/goldens/`.

Two kinds of screenshot are compared with goldens:

* print mode, taken after the agent exited: the agents print only the model's last
  text (Codex's transcript on stderr, with its timings and token counts, goes to
  `agent-stderr.log` in the run folder), so nothing on it varies;
* TUI mode, the agent's own TUI once the session is idle. It always shows volatile
  text, so the scenario's top-level `masks` (see `workbench/terminal/masks.py`)
  turn each match into one `*` before the comparison: versions, timings, the clock,
  token counts, the workspace path, Claude Code's random "Cooked/Baked/..." verb.
  The masks are narrow (each agent's `masks`, one comment each); where the agent pads
  text to the right of a volatile value (a border, a right-aligned model name) the
  mask takes the padding too, so a longer value does not move what follows. The
  workspace is made under a fixed short TMPDIR (`/tmp/wb-XXXXXXXX`) and its name has a fixed width
  (`workbench.tempfolders`), so that its path always has the same length and Codex's footer (120 columns
  wide) never wraps; the size of each
  screen (`TUI_SIZES`) keeps out what depends on the machine (pi's "fd not found"
  notices scroll off the top).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import write
from workbench.llm.agents import AGENTS

pytestmark = pytest.mark.slow

GOLDENS = Path(__file__).parent / "goldens"

SCENARIO = """\
name: real-{agent}
terminal: {{width: 80, height: {height}}}
timeline:
  - userInputs: [[0, "write hello.txt and show it"]]
  - llmResponse:
      - think: [[100, "Write, then cat."]]
      - assistant: [[100, "Writing hello.txt."]]
  - writeFile: {{path: hello.txt, content: "hello from {agent}\\n"}}
  - llmResponse:
      - assistant: [[50, "Now showing it."]]
  - runCmd: {{cmd: cat hello.txt, result: "hello from {agent}"}}
  - llmResponse:
      - assistant: [[50, "Done: hello.txt says hello."]]
  - assert:
      fs: {{exists: [hello.txt]}}
      text: {{contains: ["Done: hello.txt says hello."]}}
{screenshot}"""

AGENT_NAMES = list(AGENTS)
HEIGHT = 8

# TUI screens: tall enough for the whole session, wide enough that Codex's footer (model, workspace
# path, session name) stays on one line. Two are cut at the top on purpose: pi's so that its
# "fd/ripgrep not found" notices, which depend on the machine, are above it; Continue's cn so that its
# start-up tip, shown one time in five (two rows), is: the session below is the same either way.
TUI_SIZES = {
    "claude-code": (100, 40),
    "pi": (100, 24),
    "codex": (120, 40),
    "gemini-cli": (100, 40),
    "kilo": (100, 40),
    "continue": (100, 24),
}


def installed(preset: str) -> None:
    name = AGENTS[preset].program
    for prefix in filter(None, os.environ.get("WORKBENCH_AGENTS", "").split(":")):
        if (Path(prefix) / "node_modules" / ".bin" / name).exists():
            return
    if shutil.which(name) is None:
        pytest.skip(f"{name} is not installed (see this module's docstring)")


def workbench(*args: str, cwd: Path, tmp: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI, with its temporary files (workspaces, the agents' own) in ``tmp``, by default ``cwd/tmp``."""
    tmp = tmp or cwd / "tmp"
    tmp.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=240, env={**os.environ, "TMPDIR": str(tmp)})  # fmt: skip


def run_real(tmp_path: Path, scenario: Path, *extra: str, tmp: Path | None = None) -> dict:  # type: ignore[type-arg]
    done = workbench("run", "--ci", "--mode", "real-agent", str(scenario), "--goldens", str(GOLDENS),
                     "--report", "r.json", "--keep", "--timeout", "120", *extra, cwd=tmp_path, tmp=tmp)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert entry["mode"] == "real-agent" and entry["status"] == "passed", entry
    return entry  # type: ignore[no-any-return]


def workspace_of(tmp: Path) -> Path:
    """The workspace the run kept (`--keep`) in its TMPDIR ``tmp``."""
    (workspace,) = tmp.glob("wb-ws-*")
    return workspace


def test_every_tui_size_is_an_agent() -> None:
    assert set(TUI_SIZES) <= set(AGENTS)


@pytest.mark.parametrize("preset", AGENT_NAMES)
def test_agent_print_mode_writes_runs_and_matches_golden(tmp_path: Path, preset: str) -> None:
    installed(preset)
    scenario = write(tmp_path, f"real-{preset}.yaml", SCENARIO.format(
        agent=preset, height=HEIGHT, screenshot="  - screenshot: done\n"))  # fmt: skip
    entry = run_real(tmp_path, scenario, "--agent", preset, "--agent-ui", "print")
    assert [s["status"] for s in entry["screenshots"]] == ["match"]
    workspace = workspace_of(tmp_path / "tmp")
    try:
        assert (workspace / "hello.txt").read_text() == f"hello from {preset}\n"
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    (log,) = (tmp_path / "target/tmp/workbench").glob(f"real-{preset}/*/*/llm-requests.jsonl")
    assert len([json.loads(line) for line in log.read_text().splitlines()]) >= 3


@pytest.mark.parametrize("preset", list(TUI_SIZES))
def test_agent_tui_matches_golden_with_masks(tmp_path: Path, preset: str) -> None:
    """The agent's own TUI, idle after the session, against `goldens/real-<agent>/<size>/tui.golden`."""
    installed(preset)
    width, height = TUI_SIZES[preset]
    masks = "".join(f"  - {json.dumps(mask, ensure_ascii=False)}\n" for mask in AGENTS[preset].masks)
    text = SCENARIO.format(agent=preset, height=height, screenshot="  - screenshot: tui\n")
    text = text.replace("width: 80,", f"width: {width},", 1)
    scenario = write(tmp_path, f"real-{preset}.yaml", f"masks:\n{masks}{text}")
    # A short TMPDIR of fixed length: the workspace path is on screen (masked), its length is not.
    tmp = Path(tempfile.mkdtemp(prefix="wb-", dir="/tmp"))
    try:
        entry = run_real(tmp_path, scenario, "--agent", preset, "--agent-ui", "tui", tmp=tmp)
        assert [s["status"] for s in entry["screenshots"]] == ["match"]
        assert (workspace_of(tmp) / "hello.txt").read_text() == f"hello from {preset}\n"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_wrong_tool_result_fails_with_the_line(tmp_path: Path) -> None:
    installed("pi")
    text = SCENARIO.format(agent="pi", height=HEIGHT, screenshot="").replace('result: "hello from pi"',
                                                                         'result: "something else"')  # fmt: skip
    scenario = write(tmp_path, "real-pi.yaml", text)
    done = workbench("run", "--mode", "real-agent", "--agent", "pi", "--agent-ui", "print", str(scenario),
                     "--report", "r.json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    (failure,) = [f for f in entry["failures"] if f["kind"] == "tool"]
    assert failure["line"] == 11 and "something else" in failure["message"]


CLIENT = '''\
"""Any other agent: a tiny tool loop over the OpenAI Chat Completions API."""
import json, pathlib, subprocess, sys
import openai

base_url, key, prompt = sys.argv[1:4]
client = openai.OpenAI(base_url=base_url, api_key=key, max_retries=0)
tools = [
    {"type": "function", "function": {"name": "writeFile", "description": "write a file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "runCmd", "description": "run a command", "parameters": {
        "type": "object", "properties": {"cmd": {"type": "string"}}}}},
]
messages = [{"role": "user", "content": prompt}]
while True:
    reply = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
    message = reply.choices[0].message
    if message.content:
        print(message.content, flush=True)
    if not message.tool_calls:
        break
    messages.append(message.model_dump(exclude_none=True))
    for call in message.tool_calls:
        args = json.loads(call.function.arguments)
        if call.function.name == "writeFile":
            pathlib.Path(args["path"]).write_text(args["content"])
            output = "ok"
        else:
            output = subprocess.run(args["cmd"], shell=True, capture_output=True, text=True).stdout
        messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
'''


@pytest.mark.parametrize("given", ["in the file", "on the command line"])
def test_any_agent_from_a_command_with_placeholders(tmp_path: Path, given: str) -> None:
    """An agent of no preset runs from a `command` with placeholders, written in the file or given to every
    scenario with `run --command` (which replaces the file's: here one that would fail at once)."""
    client = write(tmp_path, "client.py", CLIENT)
    argv = [sys.executable, str(client), "{openai_base_url}", "{api_key}", "{prompt}"]
    text = SCENARIO.format(agent="client", height=8, screenshot="  - screenshot: done\n")
    if given == "in the file":
        scenario, extra = write(tmp_path, "real-client.yaml", f"command: {json.dumps(argv)}\n{text}"), ()
    else:
        scenario = write(tmp_path, "real-client.yaml", f'command: ["false"]\n{text}')
        extra = ("--command", shlex.join(argv))
    entry = run_real(tmp_path, scenario, *extra)
    assert [s["status"] for s in entry["screenshots"]] == ["match"]
    workspace = workspace_of(tmp_path / "tmp")
    try:
        assert (workspace / "hello.txt").read_text() == "hello from client\n"
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def test_real_agent_needs_an_agent(tmp_path: Path) -> None:
    scenario = write(tmp_path, "s.yaml", SCENARIO.format(agent="x", height=8, screenshot=""))
    done = workbench("run", "--mode", "real-agent", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert "--agent" in entry["failures"][0]["message"]
    bad = workbench("run", "--mode", "real-agent", "--agent", "nope", str(scenario), cwd=tmp_path)
    assert (
        bad.returncode == 2 and "unknown agent `nope` for mode real-agent; known: claude-code" in bad.stderr
    )
