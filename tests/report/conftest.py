"""Runs to report on, made by the real CLI (the reports are opened with the ``browser`` of tests/conftest.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli_process import workbench
from tests.conftest import SCENARIOS, write

BROKEN = (
    (SCENARIOS / "hello-agent.yaml")
    .read_text(encoding="utf-8")
    .replace("name: hello-agent", "name: broken-agent")
)


def make_project(root: Path) -> Path:
    """A project with a scenario that fails twice (a golden that differs in one cell, an assert) and one that passes.

    The goldens are written by a first run, then one cell of the failing one is changed, as a
    person's edit of the program would change the screen.
    """
    write(root, "scenarios/broken-agent.yaml", BROKEN)
    shutil.copy(SCENARIOS / "hello-agent.yaml", root / "scenarios" / "hello-agent.yaml")
    first = workbench("run", "scenarios", cwd=root)
    assert first.returncode == 0, first.stdout + first.stderr
    golden = root / "screenshots/broken-agent/80x24/done.golden"
    golden.write_text(
        golden.read_text(encoding="utf-8").replace("Done: hello.py", "Done: hallo.py"), encoding="utf-8"
    )
    scenario = root / "scenarios/broken-agent.yaml"
    scenario.write_text(BROKEN.replace('contains: ["Hello, World!"]', 'contains: ["Hello, World!", "Goodbye"]'),
                        encoding="utf-8")  # fmt: skip
    shutil.rmtree(root / "target")
    return root


@pytest.fixture(scope="module")
def failed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project after `workbench run --ci --html report --report report.json` (which failed)."""
    root = make_project(tmp_path_factory.mktemp("project"))
    done = workbench("run", "--ci", "scenarios", "--html", "report", "--report", "report.json", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "HTML report: report/index.html" in done.stdout
    return root


def data_of(path: Path) -> Any:
    """A data script of the report (``WB.call(args...);``) as its JSON arguments."""
    text = path.read_text(encoding="utf-8")
    return json.loads("[" + text[text.index("(") + 1 : text.rstrip().rindex(")")] + "]")
