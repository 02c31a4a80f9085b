"""The timeline scrubber places marks along virtual time, one cell per step, and clicks pick the nearest."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st
from textual.app import App, ComposeResult

from tests.app.conftest import run, screen_text
from workbench.app.widgets.timeline import Mark, TimelineBar


def _marks(times: list[int]) -> list[Mark]:
    return [Mark(i, at, "agent", "say", f"step {i}", i + 1) for i, at in enumerate(sorted(times))]


def _columns(times: list[int], width: int) -> list[int] | None:
    bar = TimelineBar()
    bar.marks = _marks(times)
    return bar._columns(width)


def test_spaced_steps_sit_at_their_virtual_time() -> None:
    assert _columns([0, 500, 1000], 11) == [0, 5, 10]
    assert _columns([0, 100, 1000], 21) == [0, 2, 20]


def test_crowded_steps_are_nudged_apart_and_too_many_scroll() -> None:
    assert _columns([0, 0, 0, 1000], 10) == [0, 1, 2, 9]
    assert _columns([0, 1000, 1000, 1000], 10) == [0, 7, 8, 9]
    assert _columns(list(range(11)), 10) is None


@given(st.lists(st.integers(0, 100_000), min_size=1, max_size=60), st.integers(1, 120))
def test_columns_are_increasing_and_inside_the_width(times: list[int], width: int) -> None:
    columns = _columns(times, width)
    if len(times) > width:
        assert columns is None
        return
    assert columns is not None and len(columns) == len(times)
    assert all(0 <= c < width for c in columns)
    assert all(a < b for a, b in itertools.pairwise(columns))


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield TimelineBar(id="bar")


def test_a_click_moves_the_cursor_to_the_nearest_mark() -> None:
    async def body() -> None:
        app = _Host()
        async with app.run_test(size=(60, 8)) as pilot:
            bar = app.query_one(TimelineBar)
            bar.set_steps(_marks([0, 1000, 5000]))
            await pilot.pause()
            columns = bar._columns(bar._width())
            assert columns is not None and columns[0] == 0 and columns[-1] == bar._width() - 1
            await pilot.click(TimelineBar, offset=(bar.gutter.left + columns[2] - 1, bar.gutter.top))
            assert bar.cursor == 2
            await pilot.click(TimelineBar, offset=(bar.gutter.left + columns[1] + 1, bar.gutter.top))
            assert bar.cursor == 1
            assert "─" in bar.render().plain.splitlines()[0]

    run(body)


def test_a_long_summary_is_cut_never_the_steps_state_or_line() -> None:
    """At the width of a narrow pane the detail row keeps the step, its time, line and state whole; the
    summary (whole in the Step view) is what the ellipsis cuts."""

    async def body() -> None:
        app = _Host()
        async with app.run_test(size=(60, 8)) as pilot:
            bar = app.query_one(TimelineBar)
            long = Mark(0, 20_200, "agent", "assistant", "assistant " + "word " * 40, 89, "passed")
            bar.set_steps([long, Mark(1, 21_000, "agent", "say", "short", 90, "failed")])
            bar.cursor = 0
            await pilot.pause()
            (row,) = [row for row in screen_text(app) if "step 1/2" in row]
            detail = row[row.index("step 1/2") :].rstrip(" │")
            assert detail.startswith("step 1/2  20.200s  line 89  passed  agent assistant  as")
            assert detail.endswith("…")
            bar.cursor = 1
            await pilot.pause()
            detail = bar.render().plain.splitlines()[1]
            assert detail == "step 2/2  21.000s  line 90  failed  agent say  short"

    run(body)
