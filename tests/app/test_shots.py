"""The screenshot diff pane: a mismatched screenshot, highlighted, accepted with confirmation, golden on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import SIZE, make_app, opened, play_to_end, run, screen_text, settle, wait_until
from workbench.app.screens.confirm import ConfirmScreen


def _wrong_golden(work: Path) -> tuple[Path, str]:
    golden = work / "goldens" / "hello-agent" / "80x24" / "done.golden"
    golden.parent.mkdir(parents=True, exist_ok=True)
    wrong = "\n".join(["this is not the screen".ljust(80)] + [" " * 80] * 23)
    golden.write_text(wrong, encoding="utf-8")
    return golden, wrong


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_a_narrow_pane_shows_one_whole_screenshot_at_a_time(work: Path, size: tuple[int, int]) -> None:
    """Issue 22 point 2: golden or actual, all 24 rows (the view scrolls), marked cells, v toggles."""
    path = work / "scenarios" / "hello-agent.yaml"
    _wrong_golden(work)

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            await play_to_end(pilot)
            await pilot.press("ctrl+t")
            await pilot.pause(0.1)
            diff = pilot.app.main_screen.diff
            golden, actual = diff.query_one("#golden-view"), diff.query_one("#actual-view")
            assert diff.stacked and diff.sides == "actual"
            assert actual.display and not golden.display
            shown = diff.query_one("#actual-text")
            assert shown.outer_size.height == 24, "the whole screenshot, never a cut one (its view scrolls)"
            assert "cells in" in str(diff.query_one("#shot-message").render())
            assert actual.region.height > 0 and actual.max_scroll_y > 0, "less room than rows: it scrolls"
            await pilot.press("v")  # the list has the focus (ctrl+t): v shows the golden
            await pilot.pause(0.05)
            assert golden.display and not actual.display
            assert diff.query_one("#golden-text").outer_size.height == 24
            assert "this is not the screen" in str(diff.query_one("#golden-text").render())
            await pilot.press("v")
            await pilot.pause(0.05)
            assert actual.display and not golden.display

    run(body)


def test_accept_a_mismatched_screenshot_writes_the_golden(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"
    golden, wrong = _wrong_golden(work)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await play_to_end(pilot)
            assert main.result.status == "failed"
            assert golden.read_text(encoding="utf-8") == wrong  # a run never writes over a golden
            await pilot.press("ctrl+t")
            await pilot.pause(0.05)
            pair = main.diff.current
            assert pair is not None and pair.label == "done" and pair.status == "mismatch"
            assert "Hello, World!" in str(main.query_one("#actual-text").render())
            # accept asks first; cancelling writes nothing
            main.diff.query_one("#shot-list").focus()
            await pilot.press("a")
            await pilot.pause(0.05)
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("escape")
            await pilot.pause(0.05)
            assert golden.read_text(encoding="utf-8") == wrong
            await pilot.press("a")
            await pilot.pause(0.05)
            await pilot.click("#choice-accept")
            await pilot.pause(0.1)
            actual = pair.actual_path.read_text(encoding="utf-8")
            assert golden.read_text(encoding="utf-8") == actual and "Hello, World!" in actual
            assert main.diff.current is not None and main.diff.current.status == "match"

    run(body)


def test_compare_now_shows_the_golden_against_the_screen_shown_and_writes_nothing(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await play_to_end(pilot)
            assert main.result.status == "passed"  # the example's golden matches
            golden_dir = work / "goldens" / "hello-agent" / "80x24"
            before = {p: p.read_bytes() for p in golden_dir.rglob("*") if p.is_file()}
            main.timeline.move_cursor(0)  # step back to the first step's screen
            await pilot.pause(0.05)
            await pilot.press("ctrl+t")  # the screenshot list takes the focus: its keys work at once
            await pilot.press("c")  # compare now
            await pilot.pause(0.05)
            assert main.query_one("#panes").active == "tab-shots"
            actual_view = str(main.query_one("#actual-text").render())
            assert "Create hello.py" in actual_view and "Done:" not in actual_view
            message = str(main.query_one("#shot-message").render())
            assert "done: mismatch" in message and "the screen now" in message
            after = {p: p.read_bytes() for p in golden_dir.rglob("*") if p.is_file()}
            assert after == before, "comparing writes nothing"

    run(body)


TWO_SHOTS = """\
name: two-shots
timeline:
  - llmResponse:
      - assistant:
          - [100, "first"]
  - screenshot: one
  - llmResponse:
      - assistant:
          - [100, "second"]
  - screenshot: two
"""


def test_accept_all_asks_once_and_writes_every_mismatched_or_missing_golden(work: Path) -> None:
    path = work / "two-shots.yaml"
    path.write_text(TWO_SHOTS)
    goldens = work / "goldens" / "two-shots" / "80x24"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            (goldens / "one.golden").parent.mkdir(parents=True)
            (goldens / "one.golden").write_text("an old one\n")
            await play_to_end(pilot)
            assert main.result is not None and main.result.status == "failed"
            assert [(p.label, p.status) for p in main.pairs] == [("one", "mismatch"), ("two", "missing")]
            assert not (goldens / "two.golden").exists(), "the app writes no golden without an accept"
            main.run_command("accept_all", "ScreenshotDiff")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
            await pilot.press("escape")  # cancel: nothing is written
            await pilot.pause(0.05)
            assert (goldens / "one.golden").read_text() == "an old one\n"
            assert not (goldens / "two.golden").exists()
            main.run_command("accept_all", "ScreenshotDiff")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
            await pilot.press("enter")  # the primary action has the focus: Enter accepts
            await wait_until(pilot, lambda: all(p.status == "match" for p in main.pairs), what="accepted")
            assert "first" in (goldens / "one.golden").read_text()
            assert "second" in (goldens / "two.golden").read_text()

    run(body)


@pytest.mark.parametrize("sidecar", ["[1, 2]", "42", '"rows"', '{"rows": [], "cursor": [3, 4]}', "{"])
def test_a_sidecar_that_is_not_an_object_gives_the_screenshot_without_colours(
    tmp_path: Path, sidecar: str
) -> None:
    """A style sidecar edited by hand (a list, a number, a cursor that is not an object) never crashes accept."""
    from workbench.app.model import ShotPair, actual_shot

    actual_path = tmp_path / "done.actual"
    actual_path.write_text("hello".ljust(10) + "\n" + " " * 10, encoding="utf-8")
    (tmp_path / "done.style.json").write_text(sidecar, encoding="utf-8")
    pair = ShotPair(
        "done", tmp_path / "done.golden", actual_path, None, actual_path.read_text(encoding="utf-8")
    )
    shot = actual_shot(pair, 10, 2)
    assert shot.rows[0].rstrip() == "hello"
    assert shot.width == 10 and shot.height == 2


TALL = """\
name: tall
command: [python3, -c, "import time; print('top row'); print('\\\\n' * 40 + 'bottom row'); time.sleep(30)"]
terminal:
  width: 100
  height: 46
timeline:
  - waitFor: bottom row
  - screenshot: tall
"""


@pytest.mark.parametrize("size", [(200, 50), (120, 40)])
def test_a_screenshot_taller_than_its_pane_scrolls_under_its_title(work: Path, size: tuple[int, int]) -> None:
    """At wide sizes the pane scrolled golden and actual together, borders and all: scrolled down to see a
    screenshot's last rows, the "actual" box's title (what it is, which file) was gone. Each side now scrolls
    inside its own border, by keyboard once tabbed to."""
    path = work / "scenarios" / "tall.yaml"
    path.write_text(TALL, encoding="utf-8")
    golden = work / "goldens" / "tall" / "100x46" / "tall.golden"
    golden.parent.mkdir(parents=True)
    golden.write_text("\n".join(["an old screen".ljust(100)] + [" " * 100] * 45), encoding="utf-8")

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            app, main = pilot.app, pilot.app.main_screen
            await play_to_end(pilot)
            await pilot.press("ctrl+t")  # the screenshot list has the keyboard
            await wait_until(pilot, lambda: main.diff.current is not None, what="the screenshot")
            await pilot.press("tab", "end")  # to the screenshot shown, then its last rows
            await pilot.pause(0.2)
            shown = "\n".join(screen_text(app))
            assert "bottom row" in shown, "scrolled to the screenshot's last row"
            assert "actual: " in shown, "the title stays where it was"
            await pilot.press("home")
            await pilot.pause(0.1)
            assert "top row" in "\n".join(screen_text(app))

    run(body)


def test_a_maximized_screenshot_pane_shows_golden_and_actual_side_by_side(work: Path) -> None:
    """At 200x50 ctrl+o gave the screenshots pane the whole width, room for two 80-column screens, and it went on
    showing one at a time: whether they sit side by side follows the pane's own width."""
    path = work / "scenarios" / "hello-agent.yaml"
    _wrong_golden(work)

    async def body() -> None:
        async with opened(path, work, (200, 50)) as pilot:
            await play_to_end(pilot)
            await pilot.press("ctrl+t")
            await pilot.pause(0.1)
            diff = pilot.app.main_screen.diff
            golden, actual = diff.query_one("#golden-view"), diff.query_one("#actual-view")
            assert diff.stacked and actual.display and not golden.display, "beside the editor: one at a time"
            await pilot.press("ctrl+o")
            await pilot.pause(0.2)
            assert not diff.stacked and golden.display and actual.display
            assert golden.region.right <= actual.region.x and golden.region.y == actual.region.y
            assert "golden: " in "\n".join(screen_text(pilot.app)) and "actual: " in "\n".join(
                screen_text(pilot.app)
            )
            await pilot.press("ctrl+o")
            await pilot.pause(0.2)
            assert diff.stacked and actual.display and not golden.display

    run(body)
