"""How a batch keeps its runs fast: forkable between runs (-j 1), the costliest started first (-j N)."""

from __future__ import annotations

import asyncio
import io
import threading
from pathlib import Path
from typing import Any

import pytest

from workbench.engine.batch import Console, Selection, collect, run_batch, start_order
from workbench.engine.options import RunOptions

USER_COMMAND = "name: {name}\ntimeline:\n  - userCommand:\n      cmd: 'true'\n"


def _steps(name: str, n: int) -> str:
    step = "  - llmResponse:\n      - assistant:\n          - [10, 'hi']\n"
    return f"name: {name}\ntimeline:\n" + step * n


class ThreadsAtStart(Console):
    """Notes which threads run when each scenario starts."""

    def __init__(self) -> None:
        super().__init__(io.StringIO(), total=0, live=False)
        self.seen: list[set[str]] = []

    def started(self, name: str) -> None:
        self.seen.append({t.name for t in threading.enumerate()})


def test_a_sequential_batch_leaves_no_thread_between_runs(tmp_path: Path) -> None:
    """A `userCommand` runs in a worker thread; the next scenario must still start with only the
    threads there were before the batch, or its mock agent could not be forked from the engine."""
    (tmp_path / "a.yaml").write_text(USER_COMMAND.format(name="a"))
    (tmp_path / "b.yaml").write_text(USER_COMMAND.format(name="b"))
    (tmp_path / "c.yaml").write_text(_steps("c", 1))
    candidates = collect([tmp_path], Selection(), [])
    options = RunOptions(goldens_dir=tmp_path / "goldens", out_dir=tmp_path / "out")
    before = {t.name for t in threading.enumerate()}
    console = ThreadsAtStart()
    report = run_batch(candidates, options, 1, console)
    assert [r.status for r in report.results] == ["passed", "passed", "passed"], [
        f.message for r in report.results for f in r.failures
    ]
    assert console.seen == [before, before, before]
    assert {t.name for t in threading.enumerate()} == before


def test_collect_notes_what_a_run_may_cost(tmp_path: Path) -> None:
    (tmp_path / "command.yaml").write_text(USER_COMMAND.format(name="command"))
    (tmp_path / "three.yaml").write_text(_steps("three", 3))
    costs = {c.name: c.cost for c in collect([tmp_path], Selection(), [])}
    assert costs == {"command": (1, 1), "three": (0, 3)}


def test_real_commands_start_first_then_the_longest(tmp_path: Path) -> None:
    """A real command may take seconds that no script states: started last, it would keep the batch
    running on one worker while the others sit idle."""
    files = {
        "a-one.yaml": _steps("a-one", 1),
        "b-five.yaml": _steps("b-five", 5),
        "c-one.yaml": _steps("c-one", 1),
        "d-command.yaml": USER_COMMAND.format(name="d-command"),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    candidates = collect([tmp_path], Selection(), [])
    assert [c.name for c in candidates] == ["a-one", "b-five", "c-one", "d-command"]
    assert [c.name for c in start_order(candidates)] == ["d-command", "b-five", "a-one", "c-one"]


def test_a_batch_reads_and_compiles_each_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The collection's load is the run's: the file is not read and compiled a second time."""
    from workbench.engine import batch, runner

    loads: list[Path] = []
    real = batch.prepare

    def counted(path: Path, **kwargs: Any) -> Any:
        loads.append(path)
        return real(path, **kwargs)

    monkeypatch.setattr(batch, "prepare", counted)
    monkeypatch.setattr(runner, "prepare", counted)
    (tmp_path / "a.yaml").write_text(_steps("a", 2))
    (tmp_path / "b.yaml").write_text(_steps("b", 1))
    candidates = collect([tmp_path], Selection(), [], strict=True)
    options = RunOptions(goldens_dir=tmp_path / "goldens", out_dir=tmp_path / "out")
    report = run_batch(candidates, options, 1, Console(io.StringIO(), total=2, live=False))
    assert [(r.name, r.status) for r in report.results] == [("a", "passed"), ("b", "passed")]
    assert sorted(p.name for p in loads) == ["a.yaml", "b.yaml"]
    # a run that no batch collected (the app's, the pytest plugin's) loads its file itself
    again = asyncio.run(runner.run_scenario(tmp_path / "a.yaml", options))
    assert again.status == "passed" and [p.name for p in loads].count("a.yaml") == 2
