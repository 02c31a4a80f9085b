"""A playbook that cannot go on ends its pty run at once with its own diagnostic, never with the run's
timeout: a params function that raised, a call to a tool the agent lacks, a mock tool that crashed, an
agent that exited before the playbook's end. An error result is not one of them: it is recorded and the
playbook goes on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from workbench.engine.options import RunOptions
from workbench.playbook import Playbook, call, say, when
from workbench.playbook.run import PlaybookRun, run_playbook

pytestmark = pytest.mark.slow


def run(tmp_path: Path, playbook: Playbook, **kwargs: object) -> PlaybookRun:
    options = RunOptions(out_dir=tmp_path / "runs", goldens_dir=tmp_path / "goldens", timeout_s=300)
    return asyncio.run(run_playbook(playbook, options=options, **kwargs))  # type: ignore[arg-type]


def kinds(done: PlaybookRun) -> list[str]:
    return [f.kind for f in done.result.failures]


def test_params_that_raise_stop_the_run_with_the_step_and_traceback(tmp_path: Path) -> None:
    ids: dict[str, str] = {}
    playbook = Playbook(
        when("go", [call("runCmd", lambda: {"cmd": ids["missing"]}), say("ok")]),
        when("again", [say("never")]), name="params-raise",
    )  # fmt: skip
    done = run(tmp_path, playbook)
    assert done.result.status == "failed"
    assert [f.kind for f in done.failures] == ["params"], "no not-consumed or timeout after it"
    assert "timing" not in kinds(done) and "process" not in kinds(done)
    text = done.explain()
    written = playbook.turns[0].actions[0].at
    assert f'The params function of call("runCmd", <late-bound>) at step 1 (turn 1, {written}) raised' in text
    assert "KeyError: 'missing'" in text
    assert (done.consumed, done.remaining) == (1, 2)


def test_a_call_to_a_tool_the_built_in_agent_lacks_names_the_tools_it_has(tmp_path: Path) -> None:
    playbook = Playbook(when("go", [call("deploy", {"env": "prod"}), say("ok")]), name="no-tool",
                        mock_tools={"lookup": "open"})  # fmt: skip
    done = run(tmp_path, playbook)
    assert [f.kind for f in done.failures] == ["unknown-tool"]
    assert "timing" not in kinds(done)
    assert ("The agent offers: runCmd, readFile, writeFile, appendFile, editFile, grep, listDir, find, lookup"
            in done.explain()), "mock_tools' own tools are offered too"  # fmt: skip


def test_a_mock_tool_that_crashes_stops_the_playbook_unless_errors_are_not_propagated(tmp_path: Path) -> None:
    def lookup(params: dict[str, str]) -> str:
        raise RuntimeError(f"no ticket {params['id']}")

    turns = [when("go", [call("lookup", {"id": "T-9"}), say("looked")]), when("more", [say("done")])]
    done = run(tmp_path, Playbook(*turns, name="crash", mock_tools={"lookup": lookup}))
    assert [f.kind for f in done.failures] == ["tool-error"] and "timing" not in kinds(done)
    text = done.failures[0].message
    written = turns[0].actions[0].at
    assert text.startswith(
        f'Error during tool execution at playbook step 1 (turn 1, call "lookup", {written}):\nTraceback'
    )
    assert "RuntimeError: no ticket T-9" in text
    calm = run(tmp_path, Playbook(*turns, name="calm", mock_tools={"lookup": lookup}, propagate_errors=False))
    assert calm.passed, calm.explain()
    (result,) = calm.events.tool_results
    assert result.is_error and result.mocked and "RuntimeError: no ticket T-9" in result.text


def test_an_error_result_with_details_is_recorded_and_the_playbook_goes_on(tmp_path: Path) -> None:
    denied = {"content": "denied", "is_error": True, "details": {"reason": "policy"}}
    playbook = Playbook(when("go", [call("lookup", {"id": "T-1"}), call("runCmd", {"cmd": "echo next"}),
                                    say("ok")]), name="denied", mock_tools={"lookup": denied})  # fmt: skip
    done = run(tmp_path, playbook)
    assert done.passed, done.explain()
    first, second = done.events.tool_results
    assert (first.is_error, first.text, dict(first.details)) == (True, "denied", {"reason": "policy"})
    assert second.text.strip() == "next"
    assert (done.consumed, done.remaining) == (3, 0)


def test_an_agent_that_exits_early_gets_the_not_fully_consumed_text(tmp_path: Path) -> None:
    playbook = Playbook(when("go", [call("runCmd", {"cmd": "echo hi"}), say("ok")]), name="exits")
    done = run(tmp_path, playbook, command=["bash", "--norc", "-c", "read line; exit 0"])
    assert [f.kind for f in done.failures] == ["not-consumed"]
    assert kinds(done) == ["expect"], "neither a timeout nor 'the agent exited' on top"
    assert "Playbook not fully consumed after the run.\nConsumed 0 of 2 actions." in done.explain()


def test_a_run_that_times_out_also_says_what_the_playbook_had_left(tmp_path: Path) -> None:
    """An agent still busy (or silent) when the run's time is up: the timeout, and the playbook's own words."""
    playbook = Playbook(when("go", [call("runCmd", {"cmd": "sleep 60"}), say("slept")]), name="busy")
    options = RunOptions(out_dir=tmp_path / "runs", goldens_dir=tmp_path / "goldens", timeout_s=5)
    done = asyncio.run(run_playbook(playbook, options=options))
    assert kinds(done)[0] == "timing"
    assert [f.kind for f in done.failures] == ["not-consumed"]
    text = done.explain()
    written = playbook.turns[0].actions[1].at
    assert (
        "Playbook not fully consumed after the run." in text
        and f'  - say("slept") (turn 1, {written})' in text
    )
