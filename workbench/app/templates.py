"""Starting points for "New scenario": one small, valid scenario per kind of program under test.

Each template validates and runs as it is (a test checks that, as a `--ci` run
like the app's), so a new file starts green and the user edits from something
that works. Each line fits the 60 columns the editor always shows
(``workbench.app.layout.YAML_COLUMNS``), so nothing of a new file is out of sight. None has a `screenshot` step: a new file has no goldens yet, and
the app adds one with its golden when the user records (alt+r, ctrl+backslash).
``{name}`` is replaced by the scenario's name. No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Template:
    key: str
    title: str
    mode: str  # the `run --mode` it is meant for
    text: str

    def render(self, name: str) -> str:
        return self.text.replace("{name}", name)


MOCK_AGENT = """\
# The built-in mock agent plays the timeline: the user asks,
# the agent thinks, works with real tools in a private
# workspace, and the screen is checked.
name: {name}
tags: [mock-agent]
repo:
  init: true
timeline:
  - userInputs:
      - [0, "Create notes.md"]
  - llmResponse:
      - think:
          - relativeTime: 200
            content: The user wants a notes file.
      - assistant:
          - relativeTime: 200
            content: I'll create notes.md.
  - writeFile:
      path: notes.md
      content: "# notes\\n"
      status: ok
  - llmResponse:
      - assistant:
          - [150, "Done: notes.md is there."]
  - assert:
      fs:
        exists: [notes.md]
  - complete: true
"""

PROGRAM = """\
# Any terminal program is the program under test: `command`
# is its argv (here the Python REPL). Write its keys here or
# record them: alt+r starts a run and what you type becomes
# steps (ctrl+backslash adds a screenshot, ctrl+] ends).
name: {name}
tags: [program]
command: [env, PYTHON_BASIC_REPL=1, python3, -q]
terminal:
  width: 60
  height: 12
timeline:
  - advanceMs: 300
  - userInputs:
      - [0, "print(6 * 7)<Enter>"]
  - advanceMs: 300
  - assert:
      text:
        contains: ["42"]
  - userInputs:
      - [0, "<C-d>"]
  - advanceMs: 100
"""

REAL_AGENT = """\
# A real coding agent talks to the mock LLM server, which
# answers with the `llmResponse` steps below. Run it with
#   workbench run --mode real-agent --agent claude-code
# and this file; in the app, choose the mode in the command
# palette ("run: mode real-agent").
name: {name}
tags: [real-agent]
repo:
  init: true
timeline:
  - userInputs:
      - [0, "Say hello"]
  - llmResponse:
      - assistant:
          - [100, "Hello!"]
  - assert:
      text:
        contains: [Hello]
  - complete: true
"""

SIMULATION = """\
# Simulation: the program under test is a *client* of an
# agent service. The mock REST/SSE server plays the timeline
# as a session and runs `command` as the client, with
# {rest_base_url}, {session_id} and {scenario_dir} filled in
# (also $WORKBENCH_REST_URL and $WORKBENCH_SESSION_ID):
#   command: [python3, "{scenario_dir}/my_client.py",
#             "{rest_base_url}", "{session_id}"]
# Without a `command`, as here, a built-in viewer prints one
# line per event.
name: {name}
mode: simulation
tags: [simulation]
initialPrompt: Make the tests pass
terminal:
  width: 72
  height: 12
timeline:
  - llmResponse:
      - think:
          - [200, "Run the tests first"]
  - agentToolUse:
      toolName: runCmd
      args: {cmd: "make test"}
      toolExecution:
        events:
          - {type: stdout, timeMs: 100, content: 12 passed}
          - {type: completion, timeMs: 200, exitCode: 0}
      result: "all tests pass"
  - llmResponse:
      - assistant:
          - [100, "The tests pass."]
  - complete: true
  - assert:
      text:
        contains:
          - "runCmd: all tests pass"
          - "status: completed"
"""

TEMPLATES: tuple[Template, ...] = (
    Template("mock-agent", "Mock agent: a scripted agent with real tools", "mock-agent", MOCK_AGENT),
    Template("program", "Program: any terminal program (a REPL, a TUI)", "program", PROGRAM),
    Template(
        "real-agent", "Real agent: Claude Code, Codex or pi against the mock LLM", "real-agent", REAL_AGENT
    ),
    Template("simulation", "Simulation: a client of an agent service (REST/SSE)", "simulation", SIMULATION),
)


def template_named(key: str) -> Template:
    for template in TEMPLATES:
        if template.key == key:
            return template
    raise KeyError(f"no template {key!r}; templates: {', '.join(t.key for t in TEMPLATES)}")


def new_file_name(name: str) -> str:
    """A file name for a scenario name: lower case, words joined by ``-``, ``.yaml``."""
    cleaned = "".join(ch if ch.isalnum() else "-" for ch in name.strip().lower())
    cleaned = "-".join(part for part in cleaned.split("-") if part)
    return f"{cleaned or 'new-scenario'}.yaml"
