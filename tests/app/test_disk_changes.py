"""The open file changing on disk: taken when there are no unsaved edits, a prompt when there are."""

from __future__ import annotations

from pathlib import Path

from tests.app.conftest import SIZE, make_app, run, settle, wait_until
from workbench.app.screens.confirm import ConfirmScreen

FIRST = "name: on-disk\ntimeline:\n  - advanceMs: 10\n"
SECOND = "name: on-disk\ntimeline:\n  - advanceMs: 20\n"


def _write_elsewhere(path: Path, text: str) -> None:
    """What another editor does: write a new file and rename it over the old one."""
    tmp = path.with_name(path.name + ".other")
    tmp.write_text(text)
    tmp.replace(path)


def test_a_clean_buffer_follows_the_file_on_disk(work: Path) -> None:
    path = work / "on-disk.yaml"
    path.write_text(FIRST)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.pause(0.3)  # the watcher is set up
            _write_elsewhere(path, SECOND)
            await wait_until(pilot, lambda: main.editor.text == SECOND, what="the reload")
            assert not main.editor.dirty and not isinstance(app.screen, ConfirmScreen)
            path.write_text(SECOND + "# appended in place\n")  # a plain in-place write too
            await wait_until(pilot, lambda: main.editor.text.endswith("in place\n"), what="the second reload")

    run(body)


def test_unsaved_edits_and_a_change_on_disk_ask_first(work: Path) -> None:
    path = work / "on-disk.yaml"
    path.write_text(FIRST)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.pause(0.3)
            main.editor.focus()
            main.editor.move_cursor((0, 0))
            await pilot.press("#", " ", "m", "i", "n", "e", "enter")
            mine = "# mine\n" + FIRST
            assert main.editor.text == mine and main.editor.dirty
            _write_elsewhere(path, SECOND)
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the conflict prompt")
            await pilot.press("enter")  # the default is to keep my edits
            assert not isinstance(app.screen, ConfirmScreen)
            assert main.editor.text == mine and main.editor.dirty
            assert path.read_text() == SECOND, "nothing is written without a save"
            await pilot.press("ctrl+s")
            assert path.read_text() == mine
            await pilot.pause(0.6)  # our own save is not a change on disk: no prompt, no reload
            assert not isinstance(app.screen, ConfirmScreen) and not main.editor.dirty

            # again, and this time take the disk version: ctrl+z brings the edits back
            await pilot.press("end", "!")
            _write_elsewhere(path, SECOND)
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the second prompt")
            await pilot.pause()  # the dialog is laid out
            await pilot.press("tab", "enter")  # from the primary action (keep) to "Load the disk version"
            await wait_until(pilot, lambda: main.editor.text == SECOND, what="the disk version")
            assert not main.editor.dirty
            main.editor.focus()
            await pilot.press("ctrl+z")
            assert main.editor.text == mine.replace("on-disk", "on-disk!") and main.editor.dirty

    run(body)


def test_a_file_deleted_on_disk_keeps_the_text_and_can_be_saved_again(work: Path) -> None:
    path = work / "on-disk.yaml"
    path.write_text(FIRST)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.pause(0.3)
            path.unlink()
            await wait_until(pilot, lambda: main.editor.dirty, what="the deletion to be noticed")
            assert main.editor.text == FIRST and "deleted on disk" in str(main.editor.border_title)
            await pilot.press("ctrl+s")
            assert path.read_text() == FIRST

    run(body)
