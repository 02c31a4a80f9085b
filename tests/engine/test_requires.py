"""A scenario that needs a program this machine lacks is skipped with that reason, not failed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write
from workbench.engine.requires import (
    expand_env,
    first_program,
    missing_programs,
    skip_reason,
    unset_variables,
)
from workbench.scenario.loader import load_scenario


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("cargo nextest run x", "cargo"),
        ("RUST_LOG=debug cargo test", "cargo"),
        ("cd sub && make", None),
        ("echo hi > f", None),
        ("$TOOL --x", None),
        ("'unterminated", None),
    ],
)
def test_first_program(command: str, program: str | None) -> None:
    assert first_program(command) == program


def test_missing_programs_of_user_commands_and_run_cmds(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, "s.yaml", """\
timeline:
  - userCommand: {args: [task, create], expect: {exitCode: 0}}
  - runCmd: {cmd: "wb-no-such-tool --build", result: ok}
  - runCmd: {cmd: "wb-missing-on-purpose", status: error}
  - runCmd: {cmd: "sh -c true"}
  - userCommand: {cmd: "wb-no-such-tool again"}
"""))  # fmt: skip
    env = {"PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p)}
    assert missing_programs(scenario, env) == [("ah", 2), ("wb-no-such-tool", 3)]


def test_a_proxy_whose_toolchain_is_not_set_up_counts_as_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Like rustup's `cargo`: a link to a multiplexer that needs the user's HOME; a program that fails
    `--version` everywhere (dash as `sh`) is not counted."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    proxy = write(bin_dir, "toolchain-proxy", '#!/bin/sh\n[ -f "$HOME/.toolchain" ] || exit 1\n')
    strict = write(bin_dir, "strict-shell", "#!/bin/sh\nexit 2\n")
    for target, name in ((proxy, "cargoish"), (strict, "shish")):
        target.chmod(0o755)
        (bin_dir / name).symlink_to(target.name)
    home = tmp_path / "home"
    write(home, ".toolchain", "stable")
    monkeypatch.setenv("HOME", str(home))
    scenario = load_scenario(write(tmp_path, "s.yaml", """\
timeline:
  - runCmd: {cmd: "cargoish build"}
  - runCmd: {cmd: "shish -c true"}
"""))  # fmt: skip
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    assert missing_programs(scenario, env) == [("cargoish", 2)]


def test_workbench_run_skips_it_and_says_why(tmp_path: Path) -> None:
    scenario = write(tmp_path, "task.yaml", """\
name: task
timeline:
  - userCommand: {args: [task, create, x], expect: {exitCode: 0}}
""")  # fmt: skip
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "ah").exists())
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", str(scenario), "--report", "r.json"], cwd=tmp_path,
        capture_output=True, text=True, check=False, timeout=120, env={**os.environ, "PATH": path},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SKIPPED task" in done.stdout and "needs `ah` (line 3)" in done.stdout
    [entry] = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert entry["status"] == "skipped" and entry["failures"] == []


@pytest.mark.parametrize(
    ("value", "environ", "expanded"),
    [
        ("${AH_BIN:-}", {}, ""),
        ("${AH_BIN:-}", {"AH_BIN": "/x/ah"}, "/x/ah"),
        ("${AH_BIN-/usr/bin/ah}", {}, "/usr/bin/ah"),
        ("$HOME/bin:${P}", {"HOME": "/h", "P": "p"}, "/h/bin:p"),
        ("plain $ and ${ not a name", {}, "plain $ and ${ not a name"),
    ],
)
def test_user_command_env_values_expand_as_a_shell_would(
    value: str, environ: dict[str, str], expanded: str
) -> None:
    assert expand_env(value, environ) == expanded


def test_a_user_command_needing_an_unset_variable_is_skipped_with_its_name(tmp_path: Path) -> None:
    text = """\
timeline:
  - userCommand:
      program: bash
      env: {TOOL_BIN: "${WB_TEST_UNSET_TOOL:-}", FALLBACK: "${WB_TEST_UNSET_OTHER:-ok}"}
      args: [-c, 'test -n "$TOOL_BIN" && "$TOOL_BIN" --version']
"""
    scenario = load_scenario(write(tmp_path, "s.yaml", text))
    assert unset_variables(scenario, {}) == [("WB_TEST_UNSET_TOOL", 2)]
    assert unset_variables(scenario, {"WB_TEST_UNSET_TOOL": "/bin/true"}) == []
    reason = skip_reason(scenario, {"PATH": os.environ["PATH"]})
    assert reason is not None and "`$WB_TEST_UNSET_TOOL` (line 2)" in reason
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", "s.yaml", "--report", "r.json"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["scenarios"][0]["status"] == "skipped"
    env = {**os.environ, "WB_TEST_UNSET_TOOL": "/bin/true"}
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", "s.yaml", "--report", "r.json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr  # the value reached the command expanded
    assert json.loads((tmp_path / "r.json").read_text())["scenarios"][0]["status"] == "passed"


def test_an_ah_scenario_without_ah_is_skipped_with_the_reason(tmp_path: Path) -> None:
    """The format's own `ah:` example (Agent Harbor's `simulation_smoke`): without `ah` it cannot pass or
    fail on its merits, so it is skipped, as for any missing program; with `$WORKBENCH_AH` it runs."""
    write(tmp_path, "smoke.yaml", """\
name: simulation_smoke
initialPrompt: Investigate intermittent CI test failure
ah:
  cmd: ah tui
  flags: [--remote-server, http://127.0.0.1:38180/api/v1]
timeline:
  - llmResponse:
      - think: [{content: Inspecting CI build artifacts, relativeTime: 120}]
  - advanceMs: 300
""")  # fmt: skip
    env = {**os.environ, "PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p)}
    env.pop("WORKBENCH_AH", None)
    scenario = load_scenario(tmp_path / "smoke.yaml")
    assert missing_programs(scenario, {"PATH": str(tmp_path)}) == [("ah", 4)]
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", "smoke.yaml", "--report", "r.json"],
        cwd=tmp_path, env={**env, "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"},
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cannot start" not in done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    assert entry["status"] == "skipped"
    assert "needs `ah` (line 4), not installed here" in done.stdout
    fake = write(tmp_path, "fake-ah", "#!/bin/sh\necho ah ran\n")
    fake.chmod(0o755)
    assert missing_programs(scenario, {"PATH": str(tmp_path), "WORKBENCH_AH": str(fake)}) == []


def test_simulation_never_starts_ah_so_it_does_not_need_it(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, "s.yaml", "ah: {cmd: tui}\ntimeline:\n  - log: hi\n"))
    assert missing_programs(scenario, {"PATH": str(tmp_path)}) == [("ah", 1)]
    assert missing_programs(scenario, {"PATH": str(tmp_path)}, tools_run=False) == []
