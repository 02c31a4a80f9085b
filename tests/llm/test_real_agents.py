"""Real agents in print mode against the server: each writes a file and runs a command.

Every agent of the registry (`workbench.llm.agents.AGENTS`), through its own
preset. Skipped unless the agent is installed: put its program on PATH, or set
WORKBENCH_AGENTS to npm prefixes (`npm i --prefix DIR @anthropic-ai/claude-code`
and so on) separated by `:`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.llm.conftest import Running, load
from workbench.llm.agents import AGENTS, Endpoint, find_program, pi
from workbench.llm.profiles import GENERIC

pytestmark = pytest.mark.slow

SCENARIO = """\
name: real-{agent}
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
"""
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "TERM": "xterm-256color"}
PROMPT = "write hello.txt and show it"
# every agent of the registry, and pi once per API style it speaks
CASES = [(name, None) for name in AGENTS] + [("pi", "mock-chat"), ("pi", "mock-responses")]


def run_agent(argv: tuple[str, ...], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env={**BASE_ENV, **env}, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=180, check=False)  # fmt: skip


@pytest.mark.parametrize(("name", "provider"), CASES, ids=lambda v: v or "default")
def test_agent_in_print_mode(
    tmp_path: Path, serve: Callable[..., Running], name: str, provider: str | None
) -> None:
    """The agent's own preset (HOME, environment, argv) against a strict server."""
    agent = AGENTS[name]
    exe = find_program(agent.program)
    if exe is None:
        pytest.skip(f"{agent.program} is not installed (see this module's docstring)")
    work, home = tmp_path / "work", tmp_path / "run" / "home"
    work.mkdir()
    home.mkdir(parents=True)
    # strict where a profile knows the agent's tools; the others are spoken to by what their tools do
    strict = agent.profile is not GENERIC
    srv = serve(load(tmp_path, SCENARIO.format(agent=name)), workspace=work, strict_tools=strict, speed=8.0)
    endpoint = Endpoint(srv.url, "test", work, home, PROMPT)
    launch = pi.build(exe, endpoint, "print", provider) if provider else agent.launch(endpoint, "print")
    done = run_agent(launch.argv, {"HOME": str(home), **launch.env}, work)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Done: hello.txt says hello." in done.stdout + done.stderr  # `kilo run` writes to stderr
    assert (work / "hello.txt").read_text() == f"hello from {name}\n"
    assert srv.finish() == [] and srv.failures == []
