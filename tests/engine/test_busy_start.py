"""A program that asks for keys at once but drops them while it loads (tests/busy_start.py, as qwen-code 0.24
did on a busy machine) gets its first input only once it has gone idle: its screen quiet and its processes
no longer running (workbench/terminal/idle.py). Typed after a quiet screen alone, the input was lost and
the run waited for its timeout."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from tests.conftest import write
from tests.engine.test_real_agent import workbench
from workbench.terminal import idle

BUSY_START = Path(__file__).parent.parent / "busy_start.py"
AGENT = Path(__file__).parent.parent / "responses_agent.py"
ANY_AGENT = Path(__file__).parent.parent.parent / "scenarios" / "any-agent.yaml"

pytestmark = pytest.mark.skipif(not idle.available(), reason="the kernel keeps no run times of threads")


def test_a_program_that_drops_keys_while_it_loads_gets_its_input_once_idle(tmp_path: Path) -> None:
    command = [sys.executable, str(BUSY_START), "1.5", sys.executable, "-c", "print('got', input())"]
    write(tmp_path, "busy.yaml", f"name: busy\ncommand: {json.dumps(command)}\ntimeline:\n"
                                 '  - userInputs: [[0, "hello<Enter>"]]\n  - waitFor: got hello\n')  # fmt: skip
    done = workbench("run", "busy.yaml", "--timeout", "30", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_unseen_agent_that_drops_keys_while_it_loads_gets_the_scenarios_first_input(
    tmp_path: Path,
) -> None:
    line = shlex.join([sys.executable, str(BUSY_START), "1.5", sys.executable, str(AGENT)])
    done = workbench("run", "--ci", "--mode", "real-agent", str(ANY_AGENT), "--command", line,
                     "--timeout", "30", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
