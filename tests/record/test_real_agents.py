"""Record each real agent of the registry (Claude Code, Codex, pi, Gemini CLI, as `.ci/run` installs them)
through the proxy, with `workbench serve llm` as the upstream, then replay the recording with `run --ci`.

Skipped for an agent that is not installed (see tests/engine/test_real_agent.py). The workspace lives
under a short TMPDIR of fixed length, as there: its path is on the agents' screens (masked), its length
is not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.engine.test_real_agent import TUI_SIZES, installed
from tests.record.helpers import serve_llm
from workbench.llm.agents import AGENTS
from workbench.scenario import model as m
from workbench.scenario.loader import load_scenario

pytestmark = pytest.mark.slow

UPSTREAM = """\
name: upstream
timeline:
  - userInputs: [[0, "write hello.txt and show it"]]
  - llmResponse:
      - think: [[100, "Write, then cat."]]
      - assistant: [[100, "Writing hello.txt."]]
  - writeFile: {path: hello.txt, content: "hello from the agent\\n"}
  - llmResponse:
      - assistant: [[50, "Now showing it."]]
  - runCmd: {cmd: cat hello.txt, result: "hello from the agent"}
  - llmResponse:
      - assistant: [[50, "Done: hello.txt says hello."]]
"""


# Volatile text a preset's masks do not cover yet: Claude Code draws its effort indicator ("● high · /effort")
# at the right of the footer a moment after the rest, so a settled screen may or may not show it.
EXTRA_MASKS = {"claude-code": ["(?<=← for agents).*"]}


def cli(*args: str, cwd: Path, tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=300, stdin=subprocess.DEVNULL, env={**os.environ, "TMPDIR": str(tmp)})  # fmt: skip


# Recorded in their TUIs: the agents whose TUI is verified (tests/engine/test_real_agent.py's TUI_SIZES);
# Continue's cn is verified in print mode only so far.
@pytest.mark.parametrize("agent", list(TUI_SIZES))
def test_a_real_agent_is_recorded_and_replays_green(tmp_path: Path, agent: str) -> None:
    installed(agent)
    width, height = TUI_SIZES[agent]
    tmp = Path(tempfile.mkdtemp(prefix="wb-", dir="/tmp"))
    try:
        with serve_llm(tmp_path, UPSTREAM) as url:
            done = cli("record", "--upstream", url, "-o", f"scenarios/{agent}.yaml", "--agent", agent,
                       "--size", f"{width}x{height}", "--prompt", "write hello.txt and show it",
                       *(f"--mask={mask}" for mask in EXTRA_MASKS.get(agent, ())), cwd=tmp_path, tmp=tmp)  # fmt: skip
        assert done.returncode == 0, done.stderr
        scenario = load_scenario(tmp_path / "scenarios" / f"{agent}.yaml", env={})
        assert scenario.masks == (*AGENTS[agent].masks, *EXTRA_MASKS.get(agent, ()))
        tools = [e for e in scenario.timeline if isinstance(e, m.ToolUse)]
        assert len(tools) == 2 and all(t.status == "ok" for t in tools), tools
        replies = [e for e in scenario.timeline if isinstance(e, m.LlmResponse)]
        said = [i.text for r in replies for p in r.pieces if isinstance(p, m.Assistant) for i in p.items]
        assert "".join(said).endswith("Done: hello.txt says hello.")
        golden = tmp_path / "screenshots" / agent / f"{width}x{height}" / "turn-1.golden"
        assert "Done: hello.txt says hello." in golden.read_text()
        replay = cli("run", f"scenarios/{agent}.yaml", "--mode", "real-agent", "--agent", agent, "--ci",
                     "--timeout", "120", cwd=tmp_path, tmp=tmp)  # fmt: skip
        assert replay.returncode == 0, replay.stdout + replay.stderr
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
