"""Issue 22 point 5: no pane shows old state: a stopped run's verdict and length, the last file's
screenshots, and an editor that follows the step a live run is at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.app.conftest import long_scenario, opened, play_to_end, run, settle, wait_until
from tests.app.test_layout_and_lifecycle import FAILING as LAYOUT_FAILING
from workbench.app.screens.confirm import ConfirmScreen

SIZES = [(120, 40), (80, 24)]
SLOW = (
    LAYOUT_FAILING.split("timeline:")[0].replace("failing", "slow")
    + """\
timeline:
  - userInputs:
      - [0, "print(40 + 2)<Enter>"]
  - advanceMs: 300
  - advanceMs: 60000
"""
)


@pytest.mark.parametrize("size", SIZES)
def test_a_run_stopped_to_open_another_file_is_cancelled_and_as_long_as_it_ran(
    work: Path, size: tuple[int, int]
) -> None:
    slow = work / "scenarios" / "slow.yaml"
    slow.write_text(SLOW, encoding="utf-8")
    other = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        async with opened(slow, work, size) as pilot:
            main, app = pilot.app.main_screen, pilot.app
            await pilot.press("f5")
            await wait_until(pilot, lambda: 1 in main.records, what="the first advance")
            await pilot.press("escape")
            await wait_until(pilot, lambda: main.result is not None, what="the stop")
            seconds = float(re.search(r"cancelled: ([\d.]+) s", main.timeline.status).group(1))  # type: ignore[union-attr]
            assert seconds < 60, f"as far as the run got, not the plan's 60.3 s: {main.timeline.status}"
            await pilot.press("f5")
            await wait_until(pilot, lambda: main.live and 0 in main.records, what="a second run")
            assert main.browser.verdict_of(slow) == "running"
            main.request_open(other)
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
            await pilot.press("enter")  # stop the run and open
            await wait_until(pilot, lambda: main.path == other, what="the other file")
            await settle(pilot)
            assert main.browser.verdict_of(slow) == "cancelled", "no running mark after the stop"

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_the_screenshots_pane_forgets_the_last_files_goldens(work: Path, size: tuple[int, int]) -> None:
    path = work / "scenarios" / "hello-agent.yaml"
    other = work / "scenarios" / "slow.yaml"
    other.write_text(SLOW, encoding="utf-8")

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            main = pilot.app.main_screen
            await play_to_end(pilot)
            assert main.diff.pairs and "golden" in str(main.diff.query_one("#golden-view").border_title)
            main.request_open(other)
            await settle(pilot)
            assert main.diff.pairs == []
            assert main.diff.store is None or "slow" in str(main.diff.store.folder), "accepts go to this file"
            assert str(main.diff.query_one("#golden-text").render()).strip() == ""
            assert not main.diff.query_one("#golden-view").border_title
            main.diff.redraw()  # a theme change draws again: still nothing of the last file
            assert str(main.diff.query_one("#actual-text").render()).strip() == ""

    run(body)


def test_the_editor_follows_the_running_step(work: Path) -> None:
    path = work / "scenarios" / "long.yaml"
    lines = long_scenario(path, 120)

    async def body() -> None:
        async with opened(path, work, (120, 40)) as pilot:
            main = pilot.app.main_screen
            assert main.editor.scroll_offset.y == 0
            await play_to_end(pilot)
            row = main.editor.current_step_line
            assert row is not None and row > lines // 2
            top = int(main.editor.scroll_offset.y)
            assert top <= row < top + main.editor.scrollable_content_region.height, "the step's line is shown"

    run(body)
