"""Without `--mode`, a flag of the mode the files declare needs no `--mode`: `--drift` on a recording (its
file says `mode: real-agent`), `--agent codex-acp` on a `mode: acp` file. Both were refused (`--drift needs
--mode real-agent`; `unknown agent codex-acp for mode real-agent`): the mode was chosen before the files
were read."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.conftest import write
from tests.engine.test_real_agent import workbench

AGENT = Path(__file__).parent.parent / "responses_agent.py"

SCENARIO = """\
name: {name}
mode: {mode}
{command}
timeline:
  - userInputs: [[0, "say hi"]]
  - llmResponse:
      - assistant: [[0, "hi"]]
"""


def run(tmp_path: Path, mode: str, *flags: str) -> tuple[int, str, dict]:  # type: ignore[type-arg]
    command = f"command: {json.dumps([sys.executable, str(AGENT)])}" if mode == "real-agent" else ""
    path = write(tmp_path, "s.yaml", SCENARIO.format(name=f"in-{mode}", mode=mode, command=command))
    done = workbench("run", str(path), "--report", "r.json", "--timeout", "60", *flags, cwd=tmp_path)
    out = done.stdout + done.stderr
    assert done.returncode != 2, out
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    return done.returncode, out, entry


def test_drift_on_a_real_agent_file_needs_no_mode(tmp_path: Path) -> None:
    """The check is made: the file has no recorded requests beside it to compare with."""
    code, out, entry = run(tmp_path, "real-agent", "--drift", "warn")
    assert (code, entry["mode"]) == (1, "real-agent"), out
    assert "s.requests.json: no recorded requests to compare with" in out, out


def test_an_acp_adapter_on_an_acp_file_needs_no_mode(tmp_path: Path) -> None:
    _, out, entry = run(tmp_path, "acp", "--agent", "codex-acp")
    assert entry["mode"] == "acp", out


def test_a_flag_no_declared_mode_takes_is_still_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", SCENARIO.format(name="plain", mode="mock-agent", command=""))
    done = workbench("run", str(path), "--drift", "warn", cwd=tmp_path)
    assert done.returncode == 2 and "--drift needs --mode real-agent" in done.stderr, done.stderr
