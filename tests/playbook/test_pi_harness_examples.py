"""The pi harness's own integration tests (`marcfargas/pi-test-harness` 0.5.0, `__tests__/integration.test.ts`,
as the reference lists them), written in their Python form with its names (`calls`, `says`, `mock_tools`,
`mock_ui`, `.then`, late-bound params) and run against the built-in mock agent in a real pty. The last test
is the unhappy path pi never tested: a playbook not fully consumed fails."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from workbench.engine.options import RunOptions
from workbench.playbook import MockUi, Playbook, calls, says, when
from workbench.playbook.run import PlaybookRun, mock_agent_command, run_playbook

pytestmark = pytest.mark.slow


def run(tmp_path: Path, playbook: Playbook, **kwargs: Any) -> PlaybookRun:
    options = RunOptions(out_dir=tmp_path / "runs", goldens_dir=tmp_path / "goldens", timeout_s=120)
    return asyncio.run(run_playbook(playbook, options=options, **kwargs))


def test_a_say_only_playbook(tmp_path: Path) -> None:
    done = run(tmp_path, Playbook(when("Hello", [says("Hi there!")]), name="say-only"))
    assert done.passed, done.explain()
    assert (done.consumed, done.remaining) == (1, 0)


def test_calls_bash_with_a_mocked_result(tmp_path: Path) -> None:
    playbook = Playbook(when("List files", [calls("bash", {"command": "ls"}), says("Done")]), name="mocked-bash",
                        mock_tools={"bash": "file1.txt\nfile2.txt"})  # fmt: skip
    done = run(tmp_path, playbook)
    assert done.passed, done.explain()
    (result,) = done.events.tool_results_for("bash")
    assert (result.mocked, result.text) == (True, "file1.txt\nfile2.txt")


def test_multi_turn(tmp_path: Path) -> None:
    playbook = Playbook(when("First", [says("one")]),
                        when("Second", [calls("runCmd", {"cmd": "echo two"}), says("two")]), name="multi-turn")  # fmt: skip
    done = run(tmp_path, playbook)
    assert done.passed, done.explain()
    assert done.consumed == 3 and done.events.tool_sequence() == ["runCmd"]


def test_then_and_late_bound_id_chaining(tmp_path: Path) -> None:
    ids: dict[str, str] = {}
    playbook = Playbook(
        when("Create a thing and show it", [
            calls("create_thing", {"name": "x"}).then(lambda r: ids.update(id=r.text)),
            calls("show_thing", lambda: {"id": ids["id"]}),
            says("Done"),
        ]),
        name="chaining",
        mock_tools={"create_thing": "THING-abc123", "show_thing": lambda p: f"Showing {p['id']}"},
    )  # fmt: skip
    done = run(tmp_path, playbook)
    assert done.passed, done.explain()
    assert ids == {"id": "THING-abc123"}
    assert done.events.tool_calls_for("show_thing")[0].input == {"id": "THING-abc123"}
    assert done.events.tool_results_for("show_thing")[0].text == "Showing THING-abc123"


def test_mock_ui_confirm_false_is_recorded_with_its_value(tmp_path: Path) -> None:
    agent = " ".join(f"'{word}'" for word in mock_agent_command("confirm"))
    command = ["bash", "--norc", "-c", f"read -p 'Proceed? (y/n) ' a; [ \"$a\" = n ] && exec {agent}"]
    playbook = Playbook(when("hi", [says("Hello!")]), name="confirm", mock_ui=MockUi(confirm=False))
    done = run(tmp_path, playbook, command=command)
    assert done.passed, done.explain()
    assert [(u.value, u.keys) for u in done.events.ui_calls_for("confirm")] == [(False, "n<Enter>")]


def test_a_playbook_not_fully_consumed_fails(tmp_path: Path) -> None:
    playbook = Playbook(when("First", [says("one")]), when("Second", [says("two")]), name="left-over")
    done = run(tmp_path, playbook, command=["bash", "--norc", "-c", "read line; exit 0"])
    assert not done.passed
    assert "Playbook not fully consumed after the run.\nConsumed 0 of 2 actions." in done.explain()
