"""A bug in the mock agent or in one of its tools is an internal error: status `error`, exit 3, a crash file.

The bug is injected for real: a ``sitecustomize`` on ``PYTHONPATH`` replaces a
tool with one that raises, in every Python process the run starts (the mock
agent included), so nothing in the product knows it is a test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import write

INJECT = """\
import workbench.agent.tools as tools

def _boom(args, ctx):
    raise KeyError("injected bug in readFile")

tools._TOOLS["readFile"] = _boom
"""


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        cwd=cwd, capture_output=True, text=True, check=False, timeout=120, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def injected(tmp_path: Path, code: str) -> dict[str, str]:
    """An environment whose Python runs ``code`` at start-up (a ``sitecustomize`` on ``PYTHONPATH``)."""
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(code)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(inject), env.get("PYTHONPATH", "")) if p)
    return env


def test_a_tool_that_raises_is_an_error_result_with_exit_3_and_the_crash_file(tmp_path: Path) -> None:
    env = injected(tmp_path, INJECT)
    write(tmp_path, "s.yaml", """\
name: crashing-tool
repo:
  files:
    - {path: a.txt, contents: "a\\n"}
timeline:
  - readFile: {path: a.txt}
""")  # fmt: skip
    done = run_cli("run", "s.yaml", "--ci", "--report", "report.json", "--out", "out", cwd=tmp_path, env=env)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "closed the control channel" not in done.stdout
    found = re.search(r"the traceback is in (\S+\.txt)", done.stdout)
    assert found, done.stdout
    crash = Path(found.group(1))
    assert "injected bug in readFile" in crash.read_text() and "_boom" in crash.read_text()
    crash.unlink()
    report = json.loads((tmp_path / "report.json").read_text())
    (result,) = report["scenarios"] if "scenarios" in report else report["results"]
    assert result["status"] == "error"


def test_find_with_any_bracket_name_is_a_tool_result(tmp_path: Path) -> None:
    write(tmp_path, "s.yaml", """\
name: bracket-names
repo:
  files:
    - {path: "]", contents: "x"}
timeline:
  - find: {name: "[]"}
  - find: {name: "[!]"}
  - find: {name: "[]a]", result: "]"}
  - find: {name: "[z-a]", result: ""}
""")  # fmt: skip
    done = run_cli("run", "s.yaml", "--ci", "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


EARLY = """\
import workbench.agent.control as control

def _boom(self, path):
    raise RuntimeError("injected bug before connecting")

control.AgentLink.__init__ = _boom
"""


def test_a_crash_before_the_agent_connects_is_reported_at_once_with_its_crash_file(tmp_path: Path) -> None:
    env = injected(tmp_path, EARLY)
    write(tmp_path, "s.yaml", "name: early-crash\ntimeline:\n  - assistant: hi\n")
    done = run_cli("run", "s.yaml", "--ci", "--out", "out", "--timeout", "100", cwd=tmp_path, env=env)
    assert done.returncode == 3, done.stdout + done.stderr
    found = re.search(r"the traceback is in (\S+\.txt)", done.stdout)
    assert found, done.stdout
    assert "injected bug before connecting" in Path(found.group(1)).read_text()
    Path(found.group(1)).unlink()
    assert "did not connect" not in done.stdout  # not a wait for a connection that cannot come
