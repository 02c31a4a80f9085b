"""`workbench mock-agent` on its own: print mode, real tools in the given workspace, --checkpoint-cmd."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import SCENARIOS, write


def mock_agent(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", "mock-agent", *args],
        cwd=cwd, capture_output=True, text=True, check=False, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_print_mode_runs_the_tools_in_the_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    done = mock_agent(str(SCENARIOS / "hello-agent.yaml"), "--workspace", str(workspace), "--speed", "max",
                      "--print", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (workspace / "hello.py").read_text() == "print('Hello, World!')\n"
    assert "Hello, World!" in done.stdout and "Bash(python3 hello.py)" in done.stdout


def test_a_result_mismatch_exits_1_and_says_why(tmp_path: Path) -> None:
    scenario = write(tmp_path, "s.yaml", "timeline:\n  - runCmd: {cmd: echo one, result: two}\n")
    done = mock_agent(str(scenario), "--workspace", str(tmp_path), "--speed", "max", "--print", cwd=tmp_path)
    assert done.returncode == 1
    assert "expected result 'two', got 'one'" in done.stdout


def test_checkpoint_cmd_runs_after_each_tool_and_edit(tmp_path: Path) -> None:
    scenario = write(tmp_path, "s.yaml", """\
timeline:
  - writeFile: {path: a.txt, content: "a\\n"}
  - runCmd: {cmd: "true"}
  - agentEdits: {path: a.txt, linesAdded: 2, linesRemoved: 1}
""")  # fmt: skip
    done = mock_agent(str(scenario), "--workspace", str(tmp_path), "--speed", "max", "--print",
                      "--checkpoint-cmd", "echo tick >> checkpoints.log", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "checkpoints.log").read_text().splitlines() == ["tick"] * 3
    assert (tmp_path / "a.txt").read_text().count("\n") == 2


def test_invalid_speed_and_scenario_exit_2(tmp_path: Path) -> None:
    assert mock_agent(str(SCENARIOS / "hello-agent.yaml"), "--speed", "fast", cwd=tmp_path).returncode == 2
    bad = write(tmp_path, "bad.yaml", "timeline:\n  - fly: away\n")
    done = mock_agent(str(bad), cwd=tmp_path)
    assert done.returncode == 2 and "bad.yaml:2:5: error: unknown event `fly`" in done.stderr


def test_tool_execution_is_not_played_the_real_tool_runs(tmp_path: Path) -> None:
    """Agent Harbor: the mock agent skips `toolExecution` (simulated output is simulation mode's)."""
    scenario = write(tmp_path, "s.yaml", """\
timeline:
  - agentToolUse:
      toolName: runCmd
      args: {cmd: "echo real output"}
      result: "real output"
      toolExecution:
        startTimeMs: 0
        events:
          - {type: stdout, timeMs: 10, content: "SIMULATED LINE"}
          - {type: stderr, timeMs: 15, content: "SIMULATED ERROR"}
          - {type: completion, timeMs: 20, exitCode: 3}
""")  # fmt: skip
    done = mock_agent(str(scenario), "--workspace", str(tmp_path), "--speed", "max", "--print", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "real output" in done.stdout
    assert "SIMULATED" not in done.stdout and "exit 3" not in done.stdout


def test_print_mode_without_a_workspace_prepares_the_scenarios_repo_as_run_does(tmp_path: Path) -> None:
    """`mock-agent SCENARIO -p` seeds its fresh workspace from `repo:` (files, `git init`), so a scenario
    that `workbench run` passes passes here too; a `repo.dir` that is not there is an error at its line."""
    (tmp_path / "seed").mkdir()
    write(tmp_path / "seed", "data.txt", "from the dir\n")
    scenario = write(tmp_path, "s.yaml", """\
repo:
  init: true
  dir: seed
  files: [{path: notes.txt, contents: "remember the milk\\n"}]
timeline:
  - runCmd: {cmd: "cat notes.txt data.txt && git rev-parse --is-inside-work-tree", result: "remember the milk\\nfrom the dir\\ntrue\\n"}
""")  # fmt: skip
    other = tmp_path / "elsewhere"
    other.mkdir()
    done = mock_agent(str(scenario), "--speed", "max", "-p", cwd=other)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cannot open" not in done.stdout
    run = subprocess.run([sys.executable, "-m", "workbench", "run", str(scenario)], cwd=other, capture_output=True,
                         text=True, check=False, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    bad = write(tmp_path, "bad.yaml", "repo: {dir: no-such-dir}\ntimeline:\n  - assistant: [[0, hi]]\n")
    done = mock_agent(str(bad), "--speed", "max", "-p", cwd=other)
    assert done.returncode == 2 and "bad.yaml:1:13: error: `repo.dir` `no-such-dir` not found" in done.stderr
