"""Architecture of the modes: one driver protocol, one registry, layers that import-linter enforces.

The README's "Adding a mode" example is run here as written: a new mode is a
module plus a registry entry, and `run --mode` offers it with no other change.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO, write
from workbench.engine import drivers
from workbench.engine.options import RunOptions
from workbench.engine.runner import CONTROL_STEPS, run_scenario
from workbench.scenario import model as m

PACKAGE = REPO / "workbench"


def _readme_example() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Adding a mode", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    return code


def test_the_readme_example_mode_is_one_module_and_one_registry_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "transcript_example.py").write_text(_readme_example(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    (path, summary) = re.findall(
        r'"transcript": Mode\("([^"]+)", "([^"]+)"\),', (REPO / "README.md").read_text(encoding="utf-8")
    )[0]
    assert path == "workbench.engine.drivers.transcript:TranscriptDriver"
    # the README's registry line, with the module where this test wrote it
    monkeypatch.setitem(
        drivers.DRIVERS, "transcript", drivers.Mode("transcript_example:TranscriptDriver", summary)
    )
    from workbench.cli import build_parser

    args = build_parser("run").parse_args(["run", "--mode", "transcript", str(tmp_path)])
    assert args.mode == "transcript"  # `run --mode` offers the new mode with no other change
    assert drivers.driver_summaries()["transcript"] == "the agent's messages typed into `cat`"
    scenario = write(tmp_path, "chat.yaml", """\
name: chat
timeline:
  - llmResponse:
      - assistant:
          - [100, "Hello from the new mode"]
  - screenshot: said
  - assert:
      text:
        contains: ["agent: Hello from the new mode"]
""")  # fmt: skip
    options = RunOptions(mode="transcript", goldens_dir=tmp_path / "goldens", out_dir=tmp_path / "runs")
    result = asyncio.run(run_scenario(scenario, options))
    assert result.status == "passed", [f.message for f in result.failures]
    golden = tmp_path / "goldens" / "chat" / "80x24" / "said.golden"
    assert "agent: Hello from the new mode" in golden.read_text(encoding="utf-8")


def test_every_registered_mode_implements_the_protocol() -> None:
    assert drivers.driver_names()[0] == drivers.DEFAULT_MODE
    assert {"mock-agent", "program", "real-agent"} <= set(drivers.DRIVERS)
    for name, mode in drivers.DRIVERS.items():
        cls = drivers.driver_class(name)
        for method in ("start", "play", "settle", "finish", "stop"):
            assert asyncio.iscoroutinefunction(getattr(cls, method)), (name, method)
        assert mode.summary and "\n" not in mode.summary


def test_listing_the_modes_imports_no_driver() -> None:
    code = (
        "import sys\nfrom workbench.engine.drivers import driver_summaries\ndriver_summaries()\n"
        "from workbench.cli import build_parser\nbuild_parser('run'); build_parser('edit')\n"
        "print(sorted(m for m in sys.modules if m.startswith('workbench.engine.drivers.') or m.split('.')[0] == 'acp'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


def test_an_unknown_mode_name_in_code_names_the_modes() -> None:
    with pytest.raises(KeyError, match="modes: mock-agent, acp"):
        drivers.driver_class("simulaton")


def test_an_unknown_mode_is_a_usage_error_naming_the_modes(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", "--mode", "simulaton", str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "mock-agent" in done.stderr and "real-agent" in done.stderr


def test_the_runner_dispatches_step_kinds_through_its_table_not_by_name() -> None:
    source = (PACKAGE / "engine" / "runner.py").read_text(encoding="utf-8")
    assert "_do_" not in source and not re.search(r"getattr\(\s*(self|type\(self\))", source)
    assert "match step.kind:" in source and "assert_never(unknown)" in source
    assert {m.Screenshot, m.Assert, m.AssertGit, m.UserCommand} <= set(CONTROL_STEPS)


def test_drivers_never_import_the_runner() -> None:
    """An import-linter contract (run by the layers test below) keeps the runner out of every driver."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (contract,) = [c for c in contracts if c["name"] == "Drivers never import the runner"]
    assert contract["type"] == "forbidden"
    assert (contract["source_modules"], contract["forbidden_modules"]) == (
        ["workbench.engine.drivers"],
        ["workbench.engine.runner"],
    )
    for path in (PACKAGE / "engine" / "drivers").glob("*.py"):
        assert "._ctx" not in path.read_text(encoding="utf-8")


def test_the_layers_are_an_import_linter_layers_contract_and_it_holds() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c for c in contracts if c["type"] == "layers"]
    level = {name.strip(" ()"): i for i, layer in enumerate(layers["layers"]) for name in layer.split("|")}
    chain = ["cli", "app", "playbook", "engine", "llm", "agent", "terminal", "clock", "timeline", "scenario"]
    assert [level[f"workbench.{n}"] for n in chain] == sorted({level[f"workbench.{n}"] for n in chain})
    assert level["workbench.llm"] == level["workbench.rest"] == level["workbench.acp"]  # independent siblings
    assert level["workbench.terminal"] == level["workbench.workspace"]
    assert any(c["type"] == "forbidden" and "textual" in c["forbidden_modules"] for c in contracts)
    done = subprocess.run(
        ["lint-imports"], cwd=REPO, capture_output=True, text=True, check=False, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_import_hides_from_the_contract() -> None:
    hidden = re.compile(
        r"""import_module\(\s*["']workbench\.["']\s*\+|["']workbench\.["']\s*\+|__import__\("""
    )
    offenders = [
        str(path.relative_to(REPO))
        for path in PACKAGE.rglob("*.py")
        if hidden.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_llm_package_does_not_pull_in_the_cli() -> None:
    code = "import sys, workbench.llm; print(sorted(m for m in sys.modules if m.startswith('workbench.cli')))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
