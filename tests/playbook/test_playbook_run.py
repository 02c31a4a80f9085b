"""Playbooks through the engine: a real pty, real tools, the run folder the app opens.

The same two-turn playbook (a command whose output a `.then` callback keeps, a
late-bound call that uses it, a final answer; then a second turn) drives the
built-in mock agent (in its LLM-client mode, with `mock_tools`) and pi, a real
agent (skipped unless installed; see tests/engine/test_real_agent.py).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.engine.test_real_agent import installed
from workbench.engine.options import RunOptions
from workbench.engine.trace import Trace
from workbench.playbook import Playbook, call, say, think, when
from workbench.playbook.run import EVENTS_FILE, run_playbook
from workbench.playbook.server import playbook_scenario
from workbench.scenario import model as m

pytestmark = pytest.mark.slow


def two_turns(ids: dict[str, str], **kwargs: object) -> Playbook:
    return Playbook(
        when("Make ticket.txt and show it", [
            think("Write the id, then show it."),
            call("runCmd", {"cmd": "echo T-$((40+2)) > ticket.txt && cat ticket.txt"}).then(
                lambda r: ids.update(ticket=r.text.strip())),
            call("runCmd", lambda: {"cmd": f"echo shown {ids['ticket']}"}),
            say("Ticket T-42 is written."),
        ]),
        when("What is its status?", [call("lookup", {"id": "T-42"}), say("T-42 is open.")]),
        **kwargs,  # type: ignore[arg-type]
    )  # fmt: skip


def options(tmp_path: Path) -> RunOptions:
    return RunOptions(out_dir=tmp_path / "runs", goldens_dir=tmp_path / "goldens", timeout_s=120)


def test_the_built_in_mock_agent_plays_a_playbook_with_mock_tools(tmp_path: Path) -> None:
    ids: dict[str, str] = {}
    playbook = two_turns(ids, name="ticket-mock", mock_tools={"lookup": lambda p: f"{p['id']}: open"})
    run = asyncio.run(run_playbook(playbook, options=options(tmp_path)))
    assert run.passed, run.explain()
    assert ids == {"ticket": "T-42"}
    events = run.events
    assert events.tool_sequence() == ["runCmd", "runCmd", "lookup"]
    assert events.tool_calls[1].input == {"cmd": "echo shown T-42"}
    assert [(r.text.strip(), r.mocked) for r in events.tool_results] == [
        ("T-42", False), ("shown T-42", False), ("T-42: open", True)]  # fmt: skip
    assert run.run_dir is not None
    trace = Trace.read(run.run_dir)
    screen = "\n".join(trace.steps[-1]["screen"])
    for text in ("Make ticket.txt and show it", "shown T-42", "T-42: open", "T-42 is open."):
        assert text in screen
    messages = [c["message"] for s in trace.steps for c in s["checks"]]
    assert 'playbook tool_call: runCmd {"cmd": "echo shown T-42"}' in messages, "events are in the trace"
    recorded = [json.loads(line) for line in (run.run_dir / EVENTS_FILE).read_text().splitlines()]
    assert [r["kind"] for r in recorded].count("tool_result") == 3
    assert not run.scenario_file.exists(), "played from memory, not written and read back"
    written = run.scenario_text
    assert written.split("timeline:")[1] == playbook.to_yaml().split("timeline:")[1], (
        "one schedule, two front-ends"
    )


def test_a_broken_playbook_fails_the_run_with_its_diagnostic(tmp_path: Path) -> None:
    playbook = Playbook(when("Say hi", [call("runCmd", {"cmd": "echo hi"})]), name="broken")
    run = asyncio.run(run_playbook(playbook, options=options(tmp_path)))
    assert run.result.status == "failed"
    assert "Playbook exhausted" in run.explain()
    assert [f.kind for f in run.failures] == ["exhausted"]
    assert run.run_dir is not None
    screen = "\n".join(Trace.read(run.run_dir).steps[-1]["screen"])
    assert "API Error (400 invalid_request_error): [PLAYBOOK EXHAUSTED]" in screen, "the agent was told"


def test_pi_plays_the_same_playbook(tmp_path: Path) -> None:
    installed("pi")
    ids: dict[str, str] = {}
    playbook = Playbook(two_turns(ids).turns[0], when("Thanks", [say("You're welcome.")]), name="ticket-pi")
    run = asyncio.run(run_playbook(playbook, agent="pi", options=options(tmp_path), terminal=(100, 30)))
    assert run.passed, run.explain()
    assert ids == {"ticket": "T-42"}
    calls = run.events.tool_calls
    assert [c.sent_as for c in calls] == ["bash", "bash"], "runCmd is pi's bash"
    assert calls[1].sent_input == {"command": "echo shown T-42"}
    assert [r.text.strip() for r in run.events.tool_results] == ["T-42", "shown T-42"]
    assert run.run_dir is not None
    screen = "\n".join(Trace.read(run.run_dir).steps[-1]["screen"])
    assert "You're welcome." in screen


def test_to_yaml_is_a_valid_scenario_with_the_same_turns() -> None:
    ids: dict[str, str] = {}
    text = two_turns(ids).to_yaml()
    assert text.startswith("# Written from the Python playbook `playbook` (workbench.playbook).\n"
                           "# These calls have params computed at run time (<late-bound>); here their args are empty:\n"
                           '#   turn 1: call("runCmd", <late-bound>)\n')  # fmt: skip
    scenario = playbook_scenario(two_turns(ids))
    prompts = [e.items[0].text for e in scenario.timeline if isinstance(e, m.UserInputs)]
    assert prompts == ["Make ticket.txt and show it", "What is its status?"]


def test_the_app_opens_and_steps_through_a_playbook_run(tmp_path: Path) -> None:
    """`workbench show RUN` on a playbook's run folder: read-only, every step's screen, the events as checks."""
    from tests.app.conftest import SIZE, make_app, settle
    from workbench.app.screens.show import ShowScreen

    ids: dict[str, str] = {}
    playbook = two_turns(ids, name="ticket-show", mock_tools={"lookup": "T-42: open"})
    run = asyncio.run(run_playbook(playbook, options=options(tmp_path)))
    assert run.passed and run.run_dir is not None, run.explain()
    steps = len(Trace.read(run.run_dir).steps)

    async def body() -> None:
        app = make_app(None, tmp_path, run_dir=run.run_dir)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            assert isinstance(main, ShowScreen) and len(main.timeline.marks) == steps
            assert "T-42 is open." in main.terminal.text()
            main.timeline.move_cursor(0)
            await pilot.pause(0.05)
            assert "T-42 is open." not in main.terminal.text()
            await pilot.press("f8")
            assert main.timeline.cursor == 1 and main.terminal.source == "recorded"

    asyncio.run(body())


def test_mock_ui_answers_the_agents_question_and_records_it(tmp_path: Path) -> None:
    """The agent asks whether to trust the folder before it starts: the playbook's `mock_ui` answers."""
    from workbench.playbook import UiRule
    from workbench.playbook.run import mock_agent_command

    agent = " ".join(f"'{word}'" for word in mock_agent_command("asks"))
    command = [
        "bash",
        "--norc",
        "-c",
        f"read -p 'Trust this folder? (y/n) ' a; [ \"$a\" = y ] && exec {agent}",
    ]
    playbook = Playbook(when("hi", [say("Hello!")]), name="asks",
                        mock_ui=[UiRule("Trust this folder?", "y<Enter>")])  # fmt: skip
    assert "onScreen:\n- {match: 'Trust this folder?', keys: y<Enter>, times: 1}" in playbook.to_yaml()
    run = asyncio.run(run_playbook(playbook, command=command, options=options(tmp_path)))
    assert run.passed, run.explain()
    assert [(u.rule, u.matched, u.keys) for u in run.events.ui] == [
        ("match 'Trust this folder?'", "Trust this folder?", "y<Enter>")]  # fmt: skip
    assert run.run_dir is not None
    assert "Hello!" in "\n".join(Trace.read(run.run_dir).steps[-1]["screen"])
