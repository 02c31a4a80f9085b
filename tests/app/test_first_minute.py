"""Issue 22 point 7: the first minute: a small example with a welcome, and a scenarios/ folder offered
(from a template) where there is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import opened, run, screen_text, settle, wait_until
from workbench.app.screens.confirm import ConfirmScreen
from workbench.app.screens.new import NewScenarioScreen

SIZES = [(120, 40), (80, 24)]


@pytest.mark.parametrize("size", SIZES)
def test_a_folder_opens_on_its_smallest_complete_example_with_a_welcome(
    work: Path, size: tuple[int, int]
) -> None:
    async def body() -> None:
        async with opened(
            work / "scenarios",
            work,
            size,
        ) as pilot:
            main = pilot.app.main_screen
            # not the 77-step reference file: the shortest one that shows a screenshot and an assert
            assert main.path is not None and main.path.name == "hello-agent.yaml"
            await wait_until(pilot, lambda: any(n.title == "Welcome" for n in pilot.app._notifications),
                             what="the welcome")  # fmt: skip
            welcome = [n for n in pilot.app._notifications if n.title == "Welcome"]
            assert len(welcome) == 1 and "F5 runs it" in welcome[0].message and "help" in welcome[0].message

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_the_welcome_goes_with_the_first_key_and_never_hides_the_text_after(
    work: Path, size: tuple[int, int]
) -> None:
    """The welcome says what to press first; the first key takes it away (and still moves the cursor), so it
    never sits over the editor's text for seconds, at 80x24 either. A resize across one-pane-at-a-time
    neither says it again nor opens the file again (the edits stay)."""

    async def body() -> None:
        async with opened(work / "scenarios", work, size) as pilot:
            app, main = pilot.app, pilot.app.main_screen
            await wait_until(pilot, lambda: bool(app._notifications), what="the welcome")
            assert [n.title for n in app._notifications] == ["Welcome"]
            main.editor.focus()
            await pilot.press("down")
            await settle(pilot)
            assert [n.title for n in app._notifications] == []
            assert main.editor.cursor_location == (1, 0)  # the key did its job too
            first_line = main.editor.document.get_line(0)
            shown = "\n".join(screen_text(app))
            assert first_line[: main.editor.scrollable_content_region.width - 8].rstrip() in shown
            main.editor.insert("# mine\n")
            for width, height in ((80, 24), (120, 40), size):
                await pilot.resize_terminal(width, height)
                await settle(pilot)
            assert main.editor.text.startswith("# mine\n") or "# mine\n" in main.editor.text
            assert [n.title for n in app._notifications] == []

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_without_a_scenarios_folder_the_app_offers_one_from_a_template(tmp_path: Path, size: tuple[int, int],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    folder = tmp_path / "scenarios"

    async def body() -> None:
        async with opened(folder, tmp_path, size) as pilot:
            app, main = pilot.app, pilot.app.main_screen
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the offer")
            assert "no" in str(app.screen.question) and "scenarios/ folder" in str(app.screen.question)
            await pilot.press("enter")  # make it
            await wait_until(pilot, lambda: isinstance(app.screen, NewScenarioScreen), what="the templates")
            assert folder.is_dir()
            await pilot.press(*"first", "enter")
            await wait_until(pilot, lambda: main.path == folder / "first.yaml", what="the new scenario")
            assert "\ntimeline:\n" in (folder / "first.yaml").read_text(encoding="utf-8")
            await wait_until(pilot, lambda: main.validation is not None and not main.validation.errors,
                             what="a valid first scenario")  # fmt: skip

    run(body)


def test_without_a_scenarios_folder_workbench_starts_instead_of_failing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The command line lets the default folder be missing (the app offers it); a typo still is an error."""
    import argparse

    import workbench.cli.edit as edit
    from workbench.names import DEFAULT_SCENARIOS_DIR
    from workbench.usage import UsageError

    with pytest.raises(UsageError, match="no such file or folder"):
        edit.run(argparse.Namespace(path=Path("no-such-folder"), web=False))
    opened_with: list[Path] = []
    monkeypatch.setattr(edit, "open_app", lambda **kw: opened_with.append(kw["path"]) or 0)
    args = argparse.Namespace(path=DEFAULT_SCENARIOS_DIR, web=False, goldens=Path("g"), out=Path("o"), theme=None,
                              mode="mock-agent", agent=None)  # fmt: skip
    assert edit.run(args) == 0 and opened_with == [DEFAULT_SCENARIOS_DIR]
