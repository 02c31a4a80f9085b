"""A first-time user with a failing scenario (a screenshot that differs from its golden, an expect that fails),
by keyboard only: step through it, find the failing step, see what differed, accept the golden, run it green."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import SCENARIOS, opened, play_to_end, run, screen_text, wait_until
from workbench.app.screens.confirm import ConfirmScreen

SIZES = [(120, 40), (80, 24), (200, 50)]


def failing_copy(work: Path) -> Path:
    """hello-agent saying another greeting (its golden shows the old one) and expecting a file it never makes."""
    text = (SCENARIOS / "hello-agent.yaml").read_text(encoding="utf-8")
    text = text.replace("Hello, World!", "Hello, Workbench!").replace('pattern: "*.py"', 'pattern: "*.txt"')
    path = work / "scenarios" / "hello-agent.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("size", SIZES)
def test_enter_on_a_failure_gives_the_keyboard_to_the_pane_that_tells_more(
    work: Path, size: tuple[int, int]
) -> None:
    """Enter on a failure showed the step inspector but left the keyboard on the failures list, hidden then:
    PgDn did nothing, and nothing had the focus. A screenshot's failure now opens its golden and actual with
    that capture highlighted, so `a` accepts it at once; an expect's (no step shows it) its line in the editor,
    where it is fixed (it showed the terminal)."""
    path = failing_copy(work)

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            app, main = pilot.app, pilot.app.main_screen
            result = await play_to_end(pilot)
            assert [f.kind for f in result.failures] == ["screenshot", "expect"]
            await pilot.press("f12", "enter")
            await pilot.pause(0.1)
            assert main.panes.active == "tab-shots" and main.diff.current is not None
            assert main.diff.current.label == "done" and main.diff.current.status == "mismatch"
            assert app.focused is not None and main.diff in app.focused.ancestors_with_self
            await pilot.press("a")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the accept question")
            await pilot.press("escape")
            await pilot.press("f12", "down", "enter")  # the expect: no step shows it, its line does
            await pilot.pause(0.1)
            expect = main.failures.failures[1]
            assert app.focused is main.editor and main.editor.cursor_location[0] + 1 == expect.line

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_a_screenshot_step_just_stepped_over_shows_its_capture(work: Path, size: tuple[int, int]) -> None:
    """Stepping with F8, the screenshot step turned red on the timeline, but the screenshots pane said "no
    capture" (of a scenario never run before) and the failures pane "no run yet" until the run ended. A
    screenshot step's capture is shown as soon as the step has run, and the failures so far are listed."""
    path = failing_copy(work)

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            app, main = pilot.app, pilot.app.main_screen
            shot_step = next(mark.index for mark in main.timeline.marks if mark.action == "screenshot")
            for step in range(shot_step + 1):
                await pilot.press("f8")
                await wait_until(pilot, lambda n=step: len(main.records) > n or main.result is not None,
                                 what="a step")  # fmt: skip
            assert main.live and shot_step in main.records, "paused just after the screenshot step"
            await pilot.press("ctrl+t")
            await pilot.pause(0.1)
            assert main.panes.active == "tab-shots" and app.focused is not None
            pair = main.diff.current
            assert pair is not None and pair.label == "done" and pair.status == "mismatch", pair
            await pilot.press("f12")  # and the failures so far say why, the run still paused
            await pilot.pause(0.1)
            assert main.live and [f.kind for f in main.failures.failures] == ["screenshot"]
            assert "so far" in str(main.failures.border_title)

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_a_scenario_whose_last_run_failed_says_why_when_opened(work: Path, size: tuple[int, int]) -> None:
    """A scenario that failed in `workbench run` opened with an empty failures pane ("no run yet"): nothing
    said it had failed, or why, until it ran again. Its last run's failures are listed; Enter on the
    screenshot's opens its golden and actual to accept, on the expect's goes to its line."""
    import asyncio

    from workbench.engine.runner import RunOptions, run_scenario

    path = failing_copy(work)
    options = RunOptions(speed=None, goldens_dir=work / "goldens", out_dir=work / "runs", ci=True)
    assert asyncio.run(run_scenario(path, options)).status == "failed"

    async def body() -> None:
        async with opened(path.parent, work, size) as pilot:  # the folder: with a welcome
            app, main = pilot.app, pilot.app.main_screen
            await wait_until(pilot, lambda: bool(main.failures.failures), what="the last run's failures")
            assert [f.kind for f in main.failures.failures] == ["screenshot", "expect"]
            assert "last run: failed" in str(main.failures.border_title)
            await pilot.pause(0.1)
            if main.workspace.tabs:  # the editor stays in front; the status line says it
                assert "Last run failed: 2 failures: F12 lists them" in "\n".join(screen_text(app))
            else:  # in front beside the editor, with no welcome over it
                assert main.panes.active == "tab-failures"
                assert not [n for n in app._notifications if n.title == "Welcome"]
                assert "[screenshot] screenshot `done` does" in "\n".join(screen_text(app))
            await pilot.press("f12", "enter")
            await pilot.pause(0.1)
            assert main.panes.active == "tab-shots" and main.diff.current is not None
            assert main.diff.current.label == "done" and main.diff.current.status == "mismatch"
            await pilot.press("f12", "down", "enter")
            await pilot.pause(0.1)
            expect = main.failures.failures[1]
            assert app.focused is main.editor and main.editor.cursor_location[0] + 1 == expect.line
            await pilot.press("f12", "f8")  # a new run: its program comes forward, its failures are its own
            await wait_until(pilot, lambda: main.live and 0 in main.records, what="the first step")
            assert main.panes.active == "tab-terminal" and main.failures.failures == []
            assert "running" in str(main.failures.border_title)

    run(body)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_stepping_in_the_editor_one_pane_at_a_time_says_where_the_program_is(
    work: Path, size: tuple[int, int]
) -> None:
    """At 80x24 F8 in the editor ran a step of a program out of sight, and the tabs said "3 Terminal", a key the
    editor types: while a run goes on and another pane is shown, the status line names the key that shows it."""
    path = failing_copy(work)

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            main = pilot.app.main_screen
            await pilot.press("f8")
            await wait_until(pilot, lambda: 0 in main.records, what="the first step")
            await pilot.pause(0.1)
            assert ("alt+3: the program" in main.timeline.status) == main.workspace.tabs, main.timeline.status
            await pilot.press("alt+3")
            await pilot.pause(0.1)
            assert main.workspace.view_name == "terminal" and "the program" not in main.timeline.status

    run(body)
