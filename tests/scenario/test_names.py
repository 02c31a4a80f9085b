"""A scenario's name names folders: a name that would lead elsewhere is a diagnostic, and never a path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.conftest import write
from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import load_scenario
from workbench.scenario.names import folder_name, name_problem


@pytest.mark.parametrize("name", ["../..", "..", ".", "/tmp/evil", "a/b", "a\\\\b", "x" * 200])
def test_a_name_that_is_not_one_folder_is_an_error_at_the_name(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, "s.yaml", f'timeline:\n  - log: hi\nname: "{name}"\n')
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.pos.line, diagnostic.pos.col) == (3, 7)
    assert "one plain folder name" in diagnostic.message


def test_a_claudeless_name_is_checked_too(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", '{"name": "../../x", "responses": []}')
    with pytest.raises(ScenarioError, match="one plain folder name"):
        load_scenario(path)


def test_names_with_spaces_and_dots_stay_as_they_are(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", 'name: "my scenario v1.2_final-ok"\ntimeline:\n  - log: hi\n')
    assert load_scenario(path).name == "my scenario v1.2_final-ok"


@given(name=st.text(max_size=300))
@example(name="../..")
@example(name="/etc")
@example(name="..")
@example(name="")
def test_folder_name_is_always_one_safe_component(name: str) -> None:
    folder = folder_name(name)
    assert folder not in ("", ".", "..")
    assert "/" not in folder and "\\" not in folder and "\x00" not in folder
    assert len(folder.encode("utf-8", "surrogatepass")) <= 255
    if name and name_problem(name) is None:
        assert folder == name  # goldens of every valid name stay where they were


def test_run_with_an_escaping_name_writes_nothing_outside(tmp_path: Path) -> None:
    work = tmp_path / "a" / "b" / "work"
    write(work, "s.yaml", 'name: "../.."\ntimeline:\n  - screenshot: shot\n')
    before = sorted(p for p in tmp_path.rglob("*"))
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "run", "s.yaml", "--out", "out", "--goldens", "g"],
        cwd=work, capture_output=True, text=True, check=False, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "s.yaml:1:7" in done.stdout + done.stderr
    assert sorted(p for p in tmp_path.rglob("*")) == before
