"""Themes (package data), the command palette, the help screen, key bindings with ids and the keymap file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.binding import Binding
from textual.screen import Screen

from tests.app.conftest import SIZE, make_app, opened, play_to_end, run, settle
from workbench.app.app import WorkbenchApp, load_keymap
from workbench.app.screens.help import HelpScreen
from workbench.app.screens.main import MainScreen
from workbench.app.themes import load_themes
from workbench.app.widgets.footer import StableFooter


def test_themes_load_from_files() -> None:
    themes, warnings = load_themes()
    assert warnings == []
    names = {t.name for t in themes}
    assert {"workbench-dark", "workbench-light", "workbench-high-contrast"} <= names
    assert all("actor-agent" in t.variables for t in themes)


def test_a_broken_theme_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("name = 'x'\n", encoding="utf-8")
    themes, warnings = load_themes([tmp_path])
    assert themes == [] and "bad.toml" in warnings[0]


def test_every_binding_has_an_id() -> None:
    from workbench.app.screens.confirm import ConfirmScreen
    from workbench.app.widgets.diff import ScreenshotDiff
    from workbench.app.widgets.terminal import TerminalView
    from workbench.app.widgets.timeline import TimelineBar

    owners = (WorkbenchApp, MainScreen, HelpScreen, ConfirmScreen, ScreenshotDiff, TimelineBar, TerminalView)
    ids: list[str] = []
    for owner in owners:
        for binding in owner.BINDINGS:
            assert isinstance(binding, Binding) and binding.id, f"{owner.__name__}: {binding}"
            ids.append(binding.id)
    assert len(ids) == len(set(ids)), "binding ids are unique, so a keymap entry means one thing"


def test_every_action_of_the_main_screen_is_in_the_palette() -> None:
    from workbench.app.actions import MAIN_ACTIONS
    from workbench.app.commands import COMMANDS
    from workbench.app.widgets.browser import ScenarioBrowser
    from workbench.app.widgets.diff import ScreenshotDiff
    from workbench.app.widgets.editor_pane import EditorPane
    from workbench.app.widgets.failures import FailuresList
    from workbench.app.widgets.inspector import StepInspector
    from workbench.app.widgets.run_controls import RunControls
    from workbench.app.widgets.terminal import TerminalView
    from workbench.app.widgets.workspace import Workspace

    panes = {"": MainScreen, "ScreenshotDiff": ScreenshotDiff, "EditorPane": EditorPane,
             "FailuresList": FailuresList, "ScenarioBrowser": ScenarioBrowser, "StepInspector": StepInspector, "Workspace": Workspace, "TerminalView": TerminalView, "RunControls": RunControls}  # fmt: skip
    in_palette = {action.split("(")[0] for _, action, _, pane in COMMANDS if not pane}
    actions = {name.removeprefix("action_") for name in dir(MainScreen) if name.startswith("action_")}
    actions -= {name.removeprefix("action_") for name in dir(Screen) if name.startswith("action_")}
    actions -= {"pane"}  # runs a pane's action (its keys anywhere, the palette's entries for it)
    assert actions <= in_palette, f"not in the palette: {sorted(actions - in_palette)}"
    assert in_palette <= actions
    for _, action, _, pane in COMMANDS:
        assert hasattr(panes[pane], "action_" + action.split("(")[0]), (pane, action)
    for entry in MAIN_ACTIONS:  # a pane's action is not forwarded by the screen
        assert not entry.pane or not hasattr(MainScreen, "action_" + entry.name), entry


def test_theme_switch_help_palette_and_keymap(work: Path) -> None:
    keymap = work / "keymap.toml"
    keymap.write_text('[keymap]\nplay = "ctrl+y"\n', encoding="utf-8")
    assert load_keymap(keymap)[0] == {"play": "ctrl+y"}
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work, keymap=load_keymap(keymap)[0], theme_name="workbench-light")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.theme == "workbench-light"
            app.theme = "workbench-high-contrast"
            await pilot.pause(0.05)
            await pilot.press("f1")
            await pilot.pause(0.05)
            assert isinstance(app.screen, HelpScreen)
            ids = {row[2] for row in app.screen.key_rows}
            assert {"step-back", "play", "save", "quit"} <= ids
            (play_key,) = [k for k, _, i in app.screen.key_rows if i == "play"]
            assert "y" in play_key.lower() and "f5" not in play_key.lower()
            await pilot.press("escape")
            await pilot.pause(0.05)
            assert isinstance(app.screen, MainScreen)
            # the palette runs the screen's actions
            await pilot.press("ctrl+p")
            await pilot.pause(0.1)
            await pilot.press(*"accept all")
            await pilot.pause(0.3)
            await pilot.press("enter")
            await pilot.pause(0.2)
            assert isinstance(app.screen, MainScreen)
            # the remapped key starts a run
            main = app.main_screen
            await play_to_end(pilot, "ctrl+y")
            assert main.result.status == "passed"

    run(body)


def test_cli_help_still_imports_no_textual_and_show_needs_a_trace(tmp_path: Path) -> None:
    from workbench.cli import main

    assert main(["show", str(tmp_path)]) == 2
    assert main(["edit", str(tmp_path / "missing-folder")]) == 2


def test_the_palette_leaves_the_screen_behind_it_as_it_was(work: Path) -> None:
    """The palette opens over the screen without re-tinting it: tinting every cell of a full screen (Textual's
    translucent backdrop) was most of the palette's opening time. Rows below the palette are unchanged."""
    from textual.command import CommandList, CommandPalette

    def rows(app: WorkbenchApp) -> list[list[tuple[str, object, object]]]:
        """The timeline and the footer as cells: character, background, and the colour of a visible one."""
        strips = app.screen._compositor.render_strips()
        return [[(c, s.style and s.style.bgcolor, s.style and c != " " and s.style.color)
                 for s in strip for c in s.text] for strip in strips[-3:]]  # fmt: skip

    async def body() -> None:
        app = make_app(work / "scenarios" / "hello-agent.yaml", work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.main_screen.editor.cursor_blink = False
            await pilot.pause(0.05)
            before = rows(app)
            await pilot.press("ctrl+p")
            for _ in range(100):
                await pilot.pause(0.02)
                screen = app.screen
                if isinstance(screen, CommandPalette) and any(
                    c.option_count > 3 for c in screen.query(CommandList)
                ):
                    break
            assert isinstance(app.screen, CommandPalette)
            assert rows(app) == before

    run(body)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_no_key_label_in_the_footer_is_cut(work: Path, size: tuple[int, int]) -> None:
    """The footer leaves out the keys that do not fit (the palette and help list them all); the ones it shows
    are whole, with the editor, the screenshot list (the most keys) or the terminal in focus mode focused."""
    from textual.widgets._footer import FooterKey

    from tests.app.conftest import screen_text, wait_until

    async def whole_keys(pilot: Any) -> list[str]:
        await pilot.pause(0.1)
        await settle(pilot)
        app = pilot.app
        footer = app.screen.query_one(StableFooter)
        keys = list(footer.query(FooterKey))
        palette = [k for k in keys if k.has_class("-command-palette")]
        assert palette, "the palette key is always shown"
        last_row = screen_text(app)[footer.region.y]
        labels = []
        for key in keys:
            label = f"{key.key_display} {key.description}"
            assert label in last_row, (label, last_row)
            assert key.region.right <= footer.region.right
            if key not in palette:
                assert key.region.right <= palette[0].region.x, (label, last_row)
            labels.append(label)
        return labels

    async def body() -> None:
        async with opened(work / "scenarios" / "hello-agent.yaml", work, size) as pilot:
            main = pilot.app.main_screen
            main.editor.focus()
            editing = await whole_keys(pilot)
            assert editing[:2] == ["f1 Help", "^q Quit"]
            await play_to_end(pilot)
            await pilot.press("ctrl+t")  # the screenshot list: accept, all, golden/actual, compare
            await wait_until(pilot, lambda: main.diff.has_focus_within, what="the screenshot list")
            shots = await whole_keys(pilot)
            assert shots[:2] == ["f1 Help", "^q Quit"]
            if size[0] >= 120:
                assert any("Accept" in label for label in shots)
            await pilot.resize_terminal(200, 50)
            wide = await whole_keys(pilot)
            assert len(wide) >= len(shots) and any("Golden/actual" in label for label in wide)

    run(body)
