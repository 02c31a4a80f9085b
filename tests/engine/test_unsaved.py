"""A scenario the engine is given prepared (loaded from text, never saved) plays without a file: the forked
mock agent plays the engine's own compiled scenario, and a mock agent started as a new process reads the text
from an in-memory file it inherits. The pytest fixture's in-memory scenarios take this path."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from workbench.engine.options import RunOptions
from workbench.engine.runner import run_scenario
from workbench.playbook.pytest_plugin import _scenario_source
from workbench.timeline.prepare import prepare

SCENARIO = """\
name: unsaved
timeline:
  - userInputs: [[0, "make a note"]]
  - writeFile: {path: note.txt, content: "from memory\\n"}
  - llmResponse:
      - assistant: [[0, "hello from memory"]]
  - assert: {fs: {exists: [note.txt]}, text: {contains: [hello from memory]}}
"""


@pytest.mark.parametrize("agent_process", ["forked", "new"])
def test_an_unsaved_scenario_plays_in_either_agent_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent_process: str
) -> None:
    if agent_process == "new":
        monkeypatch.setenv("WORKBENCH_NO_FORK", "1")
    path = tmp_path / "unsaved.yaml"  # where it is said to be; never written
    prepared = prepare(path, text=SCENARIO)
    assert prepared.ok and prepared.text == SCENARIO
    options = RunOptions(out_dir=tmp_path / "runs", goldens_dir=tmp_path / "goldens", ci=False, keep=True)
    result = asyncio.run(run_scenario(path, options, prepared=prepared))
    assert result.status == "passed", result.failures
    assert not path.exists() and not [p for p in tmp_path.rglob("*") if p.suffix in (".yaml", ".json")]


def test_the_fixture_keeps_a_scenario_written_in_a_test_in_memory(tmp_path: Path) -> None:
    assert _scenario_source(SCENARIO, tmp_path, 1) == (tmp_path / "scenario-1.yaml", SCENARIO)
    assert _scenario_source({"name": "m"}, tmp_path, 2) == (tmp_path / "scenario-2.json", '{"name": "m"}')
    assert list(tmp_path.iterdir()) == []


def test_run_reads_and_compiles_each_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`workbench run` loads a file once for the batch; the run takes it from there, and the forked mock
    agent plays it without loading it again (a load in the agent would fail the run here)."""
    from workbench.agent import mock_agent
    from workbench.cli import main
    from workbench.timeline import prepare as preparing

    loads: list[Path] = []
    load = preparing.load_scenario

    def counted(path: Path, **kwargs: object) -> object:
        loads.append(path)
        return load(path, **kwargs)  # type: ignore[arg-type]

    def refused(*args: object, **kwargs: object) -> object:
        raise AssertionError("the mock agent loaded the scenario again")

    monkeypatch.setattr(preparing, "load_scenario", counted)
    monkeypatch.setattr(mock_agent, "load_scenario", refused)
    monkeypatch.delenv("WORKBENCH_NO_FORK", raising=False)
    path = tmp_path / "once.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    code = main(["run", str(path), "--out", str(tmp_path / "runs"), "--goldens", str(tmp_path / "goldens")])
    assert code == 0 and loads == [path]
