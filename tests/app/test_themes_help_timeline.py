"""Issue 15, points 9-12: diagnostics, themes (contrast computed, remembered, --theme), help and a
stable footer, and drag-scrubbing on the timeline, at 120x40 and 80x24."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import make_app, play_to_end, run, screen_text, settle, wait_until
from workbench.app.themes import (
    AA,
    AAA,
    TEXT_PAIRS,
    contrast_ratio,
    contrast_report,
    load_themes,
    required_ratio,
    save_theme,
    saved_theme,
)
from workbench.scenario.diagnostics import count

SIZES = [(120, 40), (80, 24)]

BROKEN = """\
name: broken
timeline:
  - userInput: [[0, "x"]]
  - advanceMs: -5
"""


def test_every_text_colour_of_every_theme_meets_wcag() -> None:
    """Point 10: AA (4.5:1) for each theme, AAA (7:1) for high contrast, for every pair the app draws."""
    from textual.color import Color

    assert contrast_ratio(Color(0, 0, 0), Color(255, 255, 255)) == pytest.approx(21.0)
    assert contrast_ratio(Color(119, 119, 119), Color(255, 255, 255)) == pytest.approx(4.48, abs=0.01)
    themes, warnings = load_themes()
    assert warnings == [] and len(themes) >= 3
    failing = []
    for theme in themes:
        need = required_ratio(theme)
        assert need == (AAA if "high-contrast" in theme.name else AA)
        report = contrast_report(theme)
        assert len(report) == len(TEXT_PAIRS)
        failing += [
            f"{theme.name}: {fg} on {bg} is {ratio:.2f}:1" for fg, bg, ratio in report if ratio < need
        ]
    assert failing == []


def test_the_choice_of_theme_is_remembered(tmp_path: Path) -> None:
    config = tmp_path / "workbench" / "config.toml"
    assert saved_theme(config) is None
    save_theme("workbench-light", config)
    assert saved_theme(config) == "workbench-light"
    config.write_text('theme = "x"\n[keymap]\nplay = "ctrl+y"\n', encoding="utf-8")
    save_theme("workbench-dark", config)
    assert saved_theme(config) == "workbench-dark" and 'play = "ctrl+y"' in config.read_text()
    config.write_text("not [ toml", encoding="utf-8")
    save_theme("workbench-dark", config)  # a file we cannot read is never overwritten
    assert config.read_text() == "not [ toml"


def test_workbench_theme_flag_is_accepted() -> None:
    from workbench.cli import build_parser

    args = build_parser("edit").parse_args(["edit", "--theme", "workbench-light", "scenarios"])
    assert args.theme == "workbench-light"


@pytest.mark.parametrize("size", SIZES)
def test_themes_switch_everything_and_persist(work: Path, size: tuple[int, int]) -> None:
    """Point 10: the diff highlight and the syntax colours follow the theme; the next start uses it."""
    path = work / "scenarios" / "hello-agent.yaml"
    golden = work / "goldens" / "hello-agent" / "80x24" / "done.golden"
    golden.write_text("something else\n", encoding="utf-8")

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            assert app.theme == "workbench-dark"
            await play_to_end(pilot)
            main.workspace.show_view("shots")
            for name in ("workbench-light", "workbench-high-contrast"):
                app.theme = name
                await pilot.pause(0.1)
                changed = app.current_theme.variables["diff-changed"].lower()
                view = main.query_one("#actual-text")  # the side shown in a narrow pane, inside its border
                backgrounds = {seg.style.bgcolor.triplet.hex.lower() for seg in view.render_line(0)
                               if seg.style is not None and seg.style.bgcolor is not None
                               and seg.style.bgcolor.triplet is not None}  # fmt: skip
                assert changed in backgrounds, f"{name}: the diff highlight follows the theme"
                assert "#7a2e2e" not in backgrounds, "the dark theme's highlight is gone"
                assert main.editor.theme == name, "the syntax colours follow the theme"
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            assert app.theme == "workbench-high-contrast", "remembered in the user's config"
        assert (work / "config" / "workbench" / "config.toml").is_file()
        app = make_app(path, work, theme_name="nonsense")
        async with app.run_test(size=size, notifications=True) as pilot:
            await settle(pilot)
            assert app.theme == "workbench-dark"
            assert any("unknown theme 'nonsense'" in n.message for n in app._notifications)

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_diagnostics_say_one_error_and_keep_to_their_rows(work: Path, size: tuple[int, int]) -> None:
    """Point 9: did-you-mean for an event, a negative advance flagged beside another error, no "1 errors",
    and no rows spent on "no problems"."""
    path = work / "scenarios" / "broken.yaml"
    path.write_text(BROKEN, encoding="utf-8")

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            diagnostics = main.query_one("#diagnostics")
            messages = [d.message for d in diagnostics.diagnostics]
            assert any("did you mean `userInputs`" in m for m in messages)
            assert any("-5" in m for m in messages), "the negative advance is flagged with the other error"
            title = str(diagnostics.border_title)
            assert count(len(messages), "error") in title and "1 errors" not in title
            rows = screen_text(app)
            assert any("unknown event" in r for r in rows), "the message is on screen"
            main.editor.text = "name: fine\ntimeline:\n  - advanceMs: 5\n"
            await wait_until(  # the list empties first, the layout follows at the next refresh
                pilot,
                lambda: not diagnostics.diagnostics and diagnostics.region.height == 1,
                what="no problems, in one row",
            )
            assert "no problems" in str(diagnostics.border_title)

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_help_lists_every_key_and_the_footer_is_stable(work: Path, size: tuple[int, int]) -> None:
    """Point 11."""
    from workbench.app.screens.help import HelpScreen, binding_owners

    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            footers = []
            for widget in (main.editor, main.timeline, main.query_one("#diagnostics")):
                widget.focus()
                await wait_until(pilot, lambda: "Help" in screen_text(app)[-1], what="the footer")
                footers.append(screen_text(app)[-1])
            assert footers[0] == footers[1] == footers[2], "the footer does not move with the focus"
            assert footers[0].lstrip().startswith("f1 Help  ^q Quit")
            await pilot.press("f1")
            await pilot.pause(0.1)
            assert isinstance(app.screen, HelpScreen)
            ids = {row[3] for row in app.screen.rows}
            for _where, owner in binding_owners():
                for binding in owner.BINDINGS:
                    assert binding.id in ids, f"{owner.__name__}: {binding.id} is missing from the help"
            assert {"find-close", "terminal-leave-focus-mode", "accept-screenshot", "confirm-cancel"} <= ids

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_dragging_along_the_timeline_scrubs(work: Path, size: tuple[int, int]) -> None:
    """Point 12: the cursor and the recorded screen follow the pointer while the button is down."""
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            await play_to_end(pilot)
            timeline = main.timeline
            columns = timeline._columns(timeline._width())
            assert columns is not None
            left = timeline.gutter.left
            await pilot.mouse_down(timeline, offset=(left + columns[0], timeline.gutter.top))
            assert timeline.cursor == 0 and main.terminal.source == "recorded"
            first = main.terminal.text()
            await pilot.hover(timeline, offset=(left + columns[5], timeline.gutter.top))
            await pilot.pause(0.05)
            assert timeline.cursor == 5, "moved while the button is held, before any release"
            assert main.terminal.text() != first
            await pilot.hover(timeline, offset=(left + columns[-1], timeline.gutter.top))
            await pilot.pause(0.05)
            assert timeline.cursor == len(columns) - 1
            await pilot.mouse_up(timeline, offset=(left + columns[-1], timeline.gutter.top))
            await pilot.hover(timeline, offset=(left + columns[2], timeline.gutter.top))
            await pilot.pause(0.05)
            assert timeline.cursor == len(columns) - 1, "after the release, moving the pointer scrubs nothing"

    run(body)
