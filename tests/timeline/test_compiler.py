"""The timeline compiler: segments, concurrency, and timing errors that name both steps."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import write
from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import load_scenario
from workbench.timeline import Schedule, compile_schedule


def schedule(tmp_path: Path, text: str) -> Schedule:
    return compile_schedule(load_scenario(write(tmp_path, "s.yaml", text), env={}))


def times(s: Schedule) -> list[tuple[int, str, str]]:
    return [(step.at_ms, step.actor, step.action) for step in s.steps]


def test_agent_events_run_one_after_another(tmp_path: Path) -> None:
    s = schedule(
        tmp_path,
        "timeline:\n  - llmResponse:\n      - think: [{relativeTime: 100, content: a}, {relativeTime: 300, content: b}]\n"
        "      - assistant: [[50, c], [25, d]]\n  - runCmd: {cmd: x, progress: [[10, p1], [20, p2]]}\n"
        "  - agentEdits: {path: f, linesAdded: 1}\n",
    )
    assert times(s) == [
        (100, "agent", "think"), (300, "agent", "think"), (350, "agent", "assistant"), (375, "agent", "assistant"),
        (375, "agent", "tool-start"), (385, "agent", "tool-progress"), (405, "agent", "tool-progress"),
        (405, "agent", "tool-result"), (405, "agent", "edit"),
    ]  # fmt: skip
    assert s.duration_ms == 405


def test_user_tuples_are_offsets_in_their_segment_and_run_concurrently(tmp_path: Path) -> None:
    s = schedule(
        tmp_path,
        "timeline:\n  - userInputs: [[100, hi]]\n  - llmResponse:\n      - assistant: [[500, answer]]\n"
        "  - advanceMs: 1000\n  - userInputs: [[50, again]]\n  - screenshot: end\n",
    )
    assert times(s) == [
        (100, "user", "input"), (500, "agent", "assistant"), (1000, "control", "advance"),
        (1050, "user", "input"), (1050, "control", "screenshot"),
    ]  # fmt: skip


def test_absolute_inputs_become_segment_offsets(tmp_path: Path) -> None:
    s = schedule(
        tmp_path,
        "timeline:\n  - advanceMs: 1000\n  - userInputs: [{relativeTime: 1200, input: a}]\n  - advanceMs: 300\n",
    )
    assert times(s) == [(1000, "control", "advance"), (1200, "user", "input"), (1300, "control", "advance")]


def test_next_segment_starts_after_the_agent_finishes(tmp_path: Path) -> None:
    s = schedule(tmp_path, "timeline:\n  - assistant: [[2000, slow]]\n  - advanceMs: 500\n  - log: next\n")
    assert times(s) == [(2000, "agent", "assistant"), (2000, "control", "advance"), (2000, "control", "log")]


def test_controls_wait_for_everything_written_before_them(tmp_path: Path) -> None:
    s = schedule(
        tmp_path, "timeline:\n  - userInputs: [[700, x]]\n  - screenshot: a\n  - assistant: [[100, y]]\n"
    )
    assert times(s) == [(100, "agent", "assistant"), (700, "user", "input"), (700, "control", "screenshot")]


def test_too_short_advance_names_both_steps(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as info:
        schedule(
            tmp_path, "timeline:\n  - userInputs:\n      - [100, a]\n      - [900, b]\n  - advanceMs: 500\n"
        )
    d = info.value.diagnostics[0]
    assert (d.pos.line, d.pos.col) == (5, 5)
    assert d.message == (
        "advanceMs 500 is shorter than the user input at line 4 (900 ms into this segment); it must be at least 900"
    )


def test_absolute_input_before_its_segment_is_time_going_backwards(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as info:
        schedule(
            tmp_path, "timeline:\n  - advanceMs: 1000\n  - userInputs: [{relativeTime: 400, input: a}]\n"
        )
    d = info.value.diagnostics[0]
    assert d.pos.line == 3
    assert (
        "time went backwards: input at relativeTime 400 ms is before the start of its segment, 1000 ms"
        in d.message
    )
    assert "line 2" in d.message


def test_tool_execution_offsets_count_from_the_tool_start(tmp_path: Path) -> None:
    s = schedule(
        tmp_path,
        "timeline:\n  - assistant: [[100, go]]\n  - agentToolUse:\n      toolName: runCmd\n"
        "      toolExecution: {events: [{type: stdout, timeMs: 40, content: o}, {type: completion, timeMs: 90, exitCode: 0}]}\n",
    )
    assert times(s)[1:] == [
        (100, "agent", "tool-start"), (140, "agent", "tool-output"), (190, "agent", "tool-output"),
        (190, "agent", "tool-result"),
    ]  # fmt: skip


def test_step_lookup_by_editor_line(tmp_path: Path) -> None:
    s = schedule(tmp_path, "timeline:\n  - log: a\n  - log: b\n  - log: c\n")
    step = s.step_at_line(3)
    assert step is not None and step.summary == 'log "b"'


# Property: whatever the shape, agent steps never overlap and the schedule is time-ordered.

event = st.one_of(
    st.builds(lambda a, b: f"  - assistant: [[{a}, x], [{b}, y]]", st.integers(0, 900), st.integers(0, 900)),
    st.builds(lambda a: f"  - runCmd: {{cmd: c, progress: [[{a}, p]]}}", st.integers(0, 900)),
    st.builds(lambda a: f"  - userInputs: [[{a}, u]]", st.integers(0, 900)),
    st.just("  - screenshot: s"),
    st.just("  - advanceMs: 1000"),
)


@settings(max_examples=150)
@given(st.lists(event, max_size=25))
def test_agent_steps_never_overlap_and_time_never_decreases(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str]
) -> None:
    tmp = tmp_path_factory.mktemp("p")
    path = write(tmp, "s.yaml", "timeline:\n" + "\n".join(lines) + ("\n" if lines else " []\n"))
    try:
        s = compile_schedule(load_scenario(path, env={}))
    except ScenarioError as exc:  # only a too-short advance can be rejected here
        assert "is shorter than the user input" in exc.diagnostics[0].message
        return
    ats = [step.at_ms for step in s.steps]
    assert ats == sorted(ats)
    agent = [step for step in s.steps if step.actor == "agent"]
    for before, after in itertools.pairwise(agent):
        assert after.at_ms >= before.end_ms
    assert s.duration_ms >= max(ats, default=0)


def test_an_input_the_clock_types_before_a_screenshot_above_it_is_a_warning(tmp_path: Path) -> None:
    """A second prompt written after the first turn's screenshot, with no `advanceMs` between, is typed at
    its segment's start: beside the agent's turn, before that screenshot. Valid, but not what the file
    reads as; `validate` said nothing and the screenshot showed the second prompt."""
    from tests.cli_process import workbench

    text = (
        "name: s\ntimeline:\n  - userInputs: [[0, first]]\n  - llmResponse:\n      - assistant: [[200, one]]\n"
        "  - screenshot: done\n  - userInputs: [[0, second]]\n  - llmResponse:\n      - assistant: [[50, two]]\n"
    )
    write(tmp_path, "s.yaml", text)
    done = workbench("validate", "s.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        "s.yaml:7:18: warning: this input is typed at 0.000 s, before the screenshot at line 6 above it "
        "(0.200 s): a user event's time counts from the start of its segment, so it runs beside the agent's "
        "turn; to type it after the steps above it, put an `advanceMs` before it (0 is enough)"
    ) in done.stderr, done.stderr
    fixed = text.replace("  - userInputs: [[0, second]]", "  - advanceMs: 0\n  - userInputs: [[0, second]]")
    write(tmp_path, "s.yaml", fixed)
    quiet = workbench("validate", "s.yaml", cwd=tmp_path)
    assert quiet.returncode == 0 and "warning" not in quiet.stderr, quiet.stderr
    order = [(at, action) for at, _, action in times(schedule(tmp_path, fixed))]
    assert order[2:5] == [(200, "screenshot"), (200, "advance"), (200, "input")]
