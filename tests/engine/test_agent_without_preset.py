"""A real agent the product has no preset for, driven as a team would first try theirs: `workbench run
--mode real-agent --command '...'` with the placeholders, `scenarios/any-agent.yaml` unchanged, in its TUI
and in print mode. The agent is qwen-code (an Ink TUI on the OpenAI API, with tools of its own), pinned and
installed by `.ci/run`; skipped unless its `qwen` is in a prefix of WORKBENCH_AGENTS or on PATH.

Its TUI asks for keys and draws its prompt seconds before it takes them on a busy machine: the run types
once it has gone idle (workbench/terminal/idle.py)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.engine.test_real_agent import workbench

pytestmark = pytest.mark.slow

ANY_AGENT = Path(__file__).parent.parent.parent / "scenarios" / "any-agent.yaml"
QWEN = (
    "qwen --yolo --auth-type openai --openai-base-url {openai_base_url} --openai-api-key {api_key} --model m"
)


def qwen() -> str:
    """The path of qwen-code's program, or a skip."""
    for prefix in filter(None, os.environ.get("WORKBENCH_AGENTS", "").split(":")):
        program = Path(prefix) / "node_modules" / ".bin" / "qwen"
        if program.exists():
            return str(program)
    found = shutil.which("qwen")
    if found is None:
        pytest.skip("qwen is not installed (npm i --prefix DIR @qwen-code/qwen-code@0.24.4; see .ci/run)")
    return found


@pytest.mark.parametrize("ui", ["tui", "print"])
def test_an_agent_without_a_preset_passes_the_scenario_written_for_any_agent(tmp_path: Path, ui: str) -> None:
    command = QWEN.replace("qwen", qwen(), 1) + (" -p {prompt}" if ui == "print" else "")
    done = workbench("run", "--ci", "--mode", "real-agent", str(ANY_AGENT), "--command", command,
                     "--report", "r.json", "--timeout", "120", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert (entry["mode"], entry["status"], entry["failures"]) == ("real-agent", "passed", []), entry
