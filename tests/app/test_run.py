"""Runs through the engine: play to the end, step, step back, run to the cursor, speed, read-only show."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.app.conftest import SIZE, make_app, opened, play_to_end, run, settle, wait_until
from workbench.app.actions import MAIN_ACTIONS
from workbench.app.screens.main import MainScreen
from workbench.app.screens.show import WRITING_ACTIONS, ShowScreen
from workbench.app.widgets.timeline import FAILED, PASSED, PENDING
from workbench.engine.runner import RunOptions, run_scenario


def test_play_hello_agent_to_the_end_then_step_back(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f3", "f3", "f3", "f3")  # up to max speed
            assert main.speed is None
            golden = work / "goldens" / "hello-agent" / "80x24" / "done.golden"
            before = golden.stat().st_mtime_ns
            await pilot.press("f5")
            await wait_until(pilot, lambda: main.result is not None, what="the run to finish")
            await pilot.pause(0.05)
            assert main.result.status == "passed", main.result.failures
            assert golden.stat().st_mtime_ns == before, "the app never writes a golden by itself"
            assert "Hello, World!" in main.terminal.text()
            assert "Done: hello.py prints Hello, World!" in main.terminal.text()
            marks = main.timeline.marks
            assert marks and all(m.state == PASSED for m in marks)
            assert main.browser.verdict_of(path) == "passed"
            # step back: the recorded screen of earlier steps, no replay
            last = len(marks) - 1
            assert main.timeline.cursor == last
            await pilot.press("f7")
            assert main.timeline.cursor == last - 1 and main.terminal.source == "recorded"
            main.timeline.move_cursor(0)
            await pilot.pause(0.05)
            first = main.terminal.text()
            assert "Create hello.py" in first and "Done:" not in first
            assert (
                first.splitlines() == [r.rstrip() for r in main.records[0].screen][: len(first.splitlines())]
            )
            # the editor cursor followed the step's line
            assert main.editor.cursor_location[0] == marks[0].line - 1
            # the recorded screen keeps its colours, and the step that wrote a file says so
            assert any(main.terminal._runs), "the recorded screen lost its colours"
            [write] = [m for m in marks if m.files]
            assert write.summary.startswith("tool writeFile") and write.files == ("+hello.py",)
            main.timeline.move_cursor(write.index)
            await pilot.pause(0.05)
            assert "files: +hello.py" in main.timeline.render().plain

    run(body)


def test_step_runs_one_step_at_a_time_on_the_virtual_clock(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f8")
            await wait_until(pilot, lambda: 0 in main.records, what="step 0")
            await pilot.pause(0.3)
            assert list(main.records) == [0]  # held at the gate of step 1
            assert main.run is not None and main.run.clock.paused and main.live
            assert main.timeline.marks[0].state == PASSED and main.timeline.marks[1].state == PENDING
            assert main.terminal.is_live and "Create hello.py" in main.terminal.text()
            await pilot.press("f8")
            await wait_until(pilot, lambda: 1 in main.records, what="step 1")
            await pilot.pause(0.2)
            assert sorted(main.records) == [0, 1]
            # run to the cursor: put it on step 4, the engine holds once step 4 has run
            main.timeline.move_cursor(4)
            await pilot.press("f9")
            await wait_until(pilot, lambda: 4 in main.records, what="step 4")
            await pilot.pause(0.3)
            assert sorted(main.records) == [0, 1, 2, 3, 4] and main.run.clock.paused
            # speed changes go to the run's clock
            await pilot.press("f2")
            assert main.run.clock.speed == 0.5
            await pilot.press("f3", "f3", "f3", "f3", "f3")
            assert main.run.clock.speed is None
            await pilot.press("f5")
            await wait_until(pilot, lambda: main.result is not None, what="the end")
            assert main.result.status == "passed"

    run(body)


def test_f8_pressed_faster_than_the_steps_run_is_as_many_steps(work: Path) -> None:
    """No F8 is lost: three presses in a row (the first starts the run) are three steps, then the run holds."""
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f8", "f8", "f8")
            await wait_until(pilot, lambda: 2 in main.records, what="step 2")
            await pilot.pause(0.3)
            assert sorted(main.records) == [0, 1, 2]
            assert main.run is not None and main.run.clock.paused and main.live

    run(body)


def test_each_step_event_marks_only_the_steps_new_since_the_last(work: Path) -> None:
    """A live run's marks are updated one new record per step, not every record at every step (quadratic)."""
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            marked: list[int] = []
            set_record = main.timeline.set_record
            main.timeline.set_record = lambda record: (marked.append(record.index), set_record(record))[1]  # type: ignore[method-assign]
            for step in range(4):
                await pilot.press("f8")
                await wait_until(pilot, lambda step=step: marked[-1:] == [step], what=f"step {step} marked")
                await pilot.pause(0.05)
            assert marked == [0, 1, 2, 3]
            assert [m.state for m in main.timeline.marks[:5]] == [PASSED] * 4 + [PENDING]
            await pilot.press("f5")
            await wait_until(pilot, lambda: main.result is not None, what="the end")
            assert main.result.status == "passed"
            assert all(m.state == PASSED for m in main.timeline.marks)
            # a second run starts its marks again from its first step
            marked.clear()
            await pilot.press("f8")
            await wait_until(
                pilot, lambda: 0 in main.records and marked[:1] == [0], what="the new run's step 0"
            )
            await pilot.pause(0.05)
            assert marked[0] == 0 and main.timeline.marks[1].state == PENDING

    run(body)


def test_the_screen_result_appears_with_the_verdict_not_before(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine finishes a moment before the screen hears of it: ``result`` waits for the panes and verdict."""
    path = work / "scenarios" / "hello-agent.yaml"
    heard = MainScreen._session_event

    def late(screen: MainScreen, event: str) -> None:  # the message of the end arrives 0.3 s late
        if event == "finished":
            screen.set_timer(0.3, lambda: heard(screen, event))
        else:
            heard(screen, event)

    monkeypatch.setattr(MainScreen, "_session_event", late)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f5")
            await wait_until(pilot, lambda: main.session.result is not None, what="the engine to finish")
            assert main.result is None, "the screen still shows the run as going"
            await wait_until(pilot, lambda: main.result is not None, what="the screen to show the end")
            assert main.browser.verdict_of(path) == "passed" and "(passed)" in str(main.failures.border_title)

    run(body)


def test_a_failing_step_is_marked_failed(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"
    path.write_text(path.read_text().replace('contains: ["Hello, World!"]', 'contains: ["Goodbye"]'))

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await play_to_end(pilot)
            assert main.result.status == "failed"
            failed = [m for m in main.timeline.marks if m.state == FAILED]
            assert [m.action for m in failed] == ["assert"]
            assert main.browser.verdict_of(path) == "failed"

    run(body)


def test_show_opens_a_recorded_run_read_only(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"
    options = RunOptions(goldens_dir=work / "goldens", out_dir=work / "runs")
    result = asyncio.run(run_scenario(path, options))
    assert result.status == "passed" and result.run_dir
    run_dir = Path(result.run_dir)

    async def body() -> None:
        app = make_app(None, work, run_dir=run_dir)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            assert isinstance(main, ShowScreen) and main.editor.read_only
            marks = main.timeline.marks
            assert len(marks) == 11 and all(m.state == PASSED for m in marks)
            assert "Hello, World!" in main.terminal.text()
            main.timeline.move_cursor(0)
            await pilot.pause(0.05)
            assert "Done:" not in main.terminal.text()
            await pilot.press("f8")  # step: the next recorded step
            assert main.timeline.cursor == 1 and main.terminal.source == "recorded"
            await pilot.press("f7")
            assert main.timeline.cursor == 0
            await pilot.press("f5", "ctrl+r", "ctrl+g")  # no runs from a recorded trace: hidden keys
            await pilot.pause(0.1)
            assert main.run is None
            names = {entry.target: entry.name for entry in MAIN_ACTIONS}  # a pane's keys anywhere: its action
            shown = {names.get(b.binding.action, b.binding.action) for b in app.active_bindings.values()}
            assert "step" in shown and "step_back" in shown and not shown & WRITING_ACTIONS
            assert [p.label for p in main.pairs] == ["done"]

    run(body)


def test_the_editor_cursor_selects_the_step_written_at_its_line(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            marks = main.timeline.marks
            run_cmd = next(m for m in marks if m.summary.startswith("tool runCmd"))
            main.editor.focus()
            main.editor.move_cursor((run_cmd.line - 1, 4))
            await pilot.pause(0.05)
            assert main.timeline.cursor == run_cmd.index
            main.editor.move_cursor((marks[0].line - 1, 0))
            await pilot.pause(0.05)
            assert main.timeline.cursor == 0

    run(body)


BROKEN = {
    "yaml": ("name: broken\ntimeline:\n  - userInputs:\n      - [0, 'hi'\n  - complete: true\n", (5, 3)),
    "schema": ("name: broken\ntimeline:\n  - userInputs:\n      - [0, 'hi']\n  - complet: true\n", (5, 5)),
}


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_run_keys_on_a_scenario_that_does_not_load_say_why_and_start_nothing(
    work: Path, kind: str, size: tuple[int, int]
) -> None:
    """F5 on a YAML or schema error started a run anyway (which ended at once as "error: 1 failure", its toast
    over the program's pane): a run must not start; the user is told the first error with its line and
    column, and the keyboard stays where it was. So for text typed a moment ago, not validated yet."""
    text, (line, column) = BROKEN[kind]
    path = work / "scenarios" / "broken.yaml"
    path.write_text(text, encoding="utf-8")

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            app, main = pilot.app, pilot.app.main_screen
            main.editor.focus()
            main.editor.move_cursor((1, 4))
            for key in ("f5", "f8", "f9", "ctrl+r"):
                app.clear_notifications()
                await pilot.press(key)
                await pilot.pause(0.05)
                assert main.session.run is None, f"{key} started a run"
                said = [n for n in app._notifications if n.severity == "error"]
                assert said and f"line {line}, column {column}" in said[-1].message, [n.message for n in said]
                assert app.focused is main.editor and main.editor.cursor_location == (1, 4)
            # fixed and broken again in one breath, F5 before the validation's debounce: still nothing runs
            main.editor.load_text(text.replace("complet:", "complete:").replace("'hi'\n", "'hi']\n"))
            main.editor.insert("  - nonsense: 1\n", (2, 0))
            await pilot.press("f5")
            await pilot.pause(0.05)
            assert main.session.run is None
            assert any("line 3, column 5" in n.message for n in app._notifications)

    run(body)


# A program that waits, under a scenario of one minute's wait: a run that goes on until it is stopped.
LONG_WAIT = """\
name: long-wait
command: [python3, -c, "import time; time.sleep(120)"]
timeline:
  - advanceMs: 60000
"""


def test_running_at_moves_during_a_long_wait_and_stands_still_when_paused(work: Path) -> None:
    """ "running at N ms" moved only when a step's wait ended: during a minute of advanceMs it stood at 0 and the
    run looked dead. It now reads the virtual clock while time runs, and holds when the run is paused."""
    import re

    path = work / "scenarios" / "long-wait.yaml"
    path.write_text(LONG_WAIT)

    def shown_ms(main: MainScreen) -> int:
        found = re.search(r"(running|paused) at (\d+) ms", main.timeline.status)
        return int(found.group(2)) if found else -1

    async def body() -> None:
        async with opened(path, work) as pilot:
            main = pilot.app.main_screen
            await pilot.press("f5")
            await wait_until(
                pilot, lambda: main.live and main.session.run.clock.reading_ms() > 0, what="the wait"
            )
            await wait_until(pilot, lambda: shown_ms(main) > 0, timeout=10, what="the status to move")
            assert main.session.run.clock.now_ms == 0, "still inside the one long wait"
            await pilot.press("f6")
            await wait_until(pilot, lambda: "paused at" in main.timeline.status, what="the pause")
            held = main.timeline.status
            await pilot.pause(0.6)  # more than two ticks
            assert main.timeline.status == held, "a paused run's time stands still"
            await pilot.press("escape")
            await wait_until(pilot, lambda: main.result is not None, what="the stop")

    run(body)


def test_pause_is_in_the_footer_only_while_a_run_goes_on(work: Path) -> None:
    """F6 Pause was in the footer before a run, after it and while paused, where it did nothing."""
    from tests.app.conftest import screen_text

    path = work / "scenarios" / "long-wait.yaml"
    path.write_text(LONG_WAIT)

    async def body() -> None:
        async with opened(path, work, (120, 40)) as pilot:
            main = pilot.app.main_screen

            def footer() -> str:
                return screen_text(pilot.app)[-1]

            assert "Play" in footer() and "Pause" not in footer()
            await pilot.press("f5")
            await wait_until(pilot, lambda: "f6 Pause" in footer(), what="Pause while it runs")
            await pilot.press("f6")
            await wait_until(pilot, lambda: "Pause" not in footer(), what="no Pause while paused")
            assert main.live and main.session.run.clock.paused
            await pilot.press("f6")  # does nothing, as the footer says
            await pilot.press("f5")
            await wait_until(pilot, lambda: "f6 Pause" in footer(), what="Pause once it runs again")
            await pilot.press("escape")
            await wait_until(pilot, lambda: main.result is not None, what="the stop")
            await wait_until(pilot, lambda: "Pause" not in footer(), what="no Pause after the run")

    run(body)
