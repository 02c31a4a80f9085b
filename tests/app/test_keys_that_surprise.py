"""Issue 22 point 6: keys do what a user of editors and debuggers expects, at 120x40 and 80x24."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import opened, run, wait_until
from workbench.app.screens.help import INTRO, HelpScreen
from workbench.app.themes import contrast_ratio

SIZES = [(120, 40), (80, 24)]


@pytest.mark.parametrize("size", SIZES)
def test_escape_keeps_the_editor_and_ctrl_home_end_move_through_the_file(
    work: Path, size: tuple[int, int]
) -> None:
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            main = pilot.app.main_screen
            main.editor.focus()
            await pilot.press("ctrl+end")
            last = main.editor.document.line_count - 1
            assert main.editor.cursor_location == (last, len(main.editor.document.get_line(last)))
            await pilot.press("escape", "x")  # Esc does not send the next keys elsewhere
            assert main.editor.has_focus and main.editor.document.get_line(last).endswith("x")
            await pilot.press("ctrl+home")
            assert main.editor.cursor_location == (0, 0)
            await pilot.press("?")  # text in the editor
            assert main.editor.text.startswith("?") and not isinstance(pilot.app.screen, HelpScreen)

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_question_mark_is_help_outside_text_and_the_list_filter_goes_once_a_file_opens(
    work: Path, size: tuple[int, int]
) -> None:
    folder = work / "scenarios"

    async def body() -> None:
        async with opened(folder, work, size) as pilot:
            main = pilot.app.main_screen
            await pilot.press("alt+1")
            await pilot.pause(0.05)
            assert main.browser.has_focus
            await pilot.press("?")
            assert isinstance(pilot.app.screen, HelpScreen) and main.browser.filter == ""
            await pilot.press("escape")
            await pilot.press(*"hello", "enter")
            await wait_until(pilot, lambda: main.path is not None and main.path.name == "hello-agent.yaml",
                             what="the file the filter found")  # fmt: skip
            assert main.browser.filter == "" and len(main.browser.entries) > 1

    run(body)


def test_f10_steps_as_in_debuggers_and_the_palette_shows_keys(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        async with opened(path, work, (120, 40)) as pilot:
            main = pilot.app.main_screen
            await pilot.press("f10")
            await wait_until(pilot, lambda: 0 in main.records, what="one step")
            assert main.live and main.session.run is not None and main.session.run.clock.state.paused
            from workbench.app.commands import WorkbenchCommands

            helps = {hit.text: hit.help async for hit in WorkbenchCommands(main, None).discover()}  # type: ignore[arg-type]
            assert str(helps["run: play"]).startswith("f5 · start a run")
            assert str(helps["run: step"]).startswith("f8, f10 · ")
            await pilot.press("escape")
            await wait_until(pilot, lambda: main.result is not None, what="the stop")

    run(body)


def test_help_and_readme_agree_on_recording_and_list_every_key(work: Path) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert "after the step that ran last" in " ".join(INTRO.split())
    assert "after the step that ran last" in " ".join(readme.split())

    async def body() -> None:
        async with opened(work / "scenarios" / "hello-agent.yaml", work, (120, 40)) as pilot:
            keys = {(row[1], row[2]) for row in pilot.app.key_rows()}
            assert (
                ("^g", "Keys to program") in keys
                and ("alt+r", "Record") in keys
                and ("f11", "Inspect step") in keys
            )

    run(body)


def test_the_terminal_title_is_readable_in_the_light_theme(work: Path) -> None:
    async def body() -> None:
        async with opened(
            work / "scenarios" / "hello-agent.yaml", work, (120, 40), theme_name="workbench-light"
        ) as pilot:
            terminal = pilot.app.main_screen.terminal
            title, background = terminal.styles.border_title_color, terminal.styles.background
            assert contrast_ratio(title, background) >= 4.5

    run(body)


@pytest.mark.parametrize("size", [(80, 24), (99, 30)])
def test_each_tab_names_the_key_that_brings_its_pane_forward_from_the_editor(
    work: Path, size: tuple[int, int]
) -> None:
    """One pane at a time, the tabs said "3 Terminal": in the editor 3 typed a 3. Each tab now names the key
    that works there too (alt+3), whole on the tab row; pressing it from the editor brings that pane forward."""
    from tests.app.conftest import screen_text
    from workbench.app.actions import VIEWS

    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            main = pilot.app.main_screen
            assert main.workspace.tabs
            text = main.editor.text
            row = screen_text(pilot.app)[0]
            labels = [str(tab.label) for tab in main.workspace.views().query("Tab")]
            assert len(labels) == len(VIEWS) and all(label in row for label in labels), (row, labels)
            for name, label in zip(VIEWS, labels, strict=True):
                main.workspace.action_view("editor")
                await pilot.pause(0.05)
                assert main.editor.has_focus
                await pilot.press(label.split(" ")[0])
                await pilot.pause(0.05)
                assert main.workspace.view_name == name, (label, main.workspace.view_name)
                assert main.editor.text == text, f"{label}: the editor typed the key"

    run(body)
