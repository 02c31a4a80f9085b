"""What a newcomer hit in a first session with the app (tmux at 120x40, 80x24 and 200x50): each test
shows one thing that was missing, cut or surprising, and stays as its guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import opened, play_to_end, run, screen_text, settle, wait_until
from workbench.app.screens.confirm import ConfirmScreen

SKIPPED = """\
name: needs-a-tool
timeline:
  - userCommand:
      program: bash
      env:
        TOOL_BIN: ${WORKBENCH_NEWCOMER_UNSET_BIN}
      args: [-lc, 'echo "$TOOL_BIN"']
"""


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_a_skipped_run_says_why_in_the_status_line_and_the_failures_pane(
    work: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scenario that cannot run here (a variable its command needs is unset) was shown as `skipped: 0 s
    of virtual time` and `skipped: no failures recorded`: `workbench run` says why, the app did not."""
    monkeypatch.delenv("WORKBENCH_NEWCOMER_UNSET_BIN", raising=False)
    path = work / "scenarios" / "needs-a-tool.yaml"
    path.write_text(SKIPPED)

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            main = pilot.app.main_screen
            result = await play_to_end(pilot)
            assert result.status == "skipped" and result.skip_reason
            assert "WORKBENCH_NEWCOMER_UNSET_BIN" in main.session.status_text()
            await pilot.press("f12")
            await settle(pilot)
            shown = "\n".join(screen_text(pilot.app))
            assert "WORKBENCH_NEWCOMER_UNSET_BIN" in shown, shown
            assert "no failures recorded" not in shown

    run(body)


def test_a_one_step_timeline_says_1_step(work: Path) -> None:
    """Before a run the timeline counts the steps: a held-out one-step file read `1 steps`."""
    path = work / "scenarios" / "one-step.yaml"
    path.write_text("name: one-step\ntimeline:\n  - advanceMs: 10\n")

    async def body() -> None:
        async with opened(path, work, (120, 40)) as pilot:
            shown = "\n".join(screen_text(pilot.app))
            assert " 1 step " in shown and "1 steps" not in shown, shown

    run(body)


@pytest.mark.parametrize("keys", [("right",), ("right", "right", "left"), ("left", "left")])
def test_arrow_keys_move_between_a_dialogs_buttons(work: Path, keys: tuple[str, ...]) -> None:
    """Quitting with unsaved edits asks Save / Quit without saving / Cancel. Right then Enter (to quit
    without saving) did nothing with the arrow and then saved: the edits a newcomer meant to drop were
    written to the file. The arrows move between the buttons, as in every dialog the user knows."""
    path = work / "scenarios" / "hello-agent.yaml"
    original = path.read_text(encoding="utf-8")

    async def body() -> None:
        async with opened(path, work, (120, 40)) as pilot:
            app, main = pilot.app, pilot.app.main_screen
            main.editor.focus()
            await pilot.press(*"# dropped")
            await pilot.press("ctrl+q")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the quit prompt")
            await pilot.press(*keys)
            assert app.screen.focused is not None and app.screen.focused.id == "choice-discard"
            await pilot.press("enter")
            await wait_until(pilot, lambda: not app.is_running, what="the app to quit")
        assert path.read_text(encoding="utf-8") == original

    run(body)


@pytest.mark.parametrize(("keys", "line"), [("\x06:3\r", 3), ("\x06:31\r", 31), ("\x06tags\x1b", 1)])
def test_a_character_typed_right_after_the_find_bar_closes_is_not_lost(
    work: Path, keys: str, line: int
) -> None:
    """ctrl+f `:31` Enter then `xyz` in one burst (tmux send-keys) typed `yz`: the `x` went to the closing
    find bar, which gave the focus back one message after the key was done; Esc lost a key the same way."""
    from textual import events
    from textual._xterm_parser import XTermParser

    path = work / "scenarios" / "hello-agent.yaml"
    want = "xyz" + path.read_text(encoding="utf-8").splitlines()[line - 1]

    async def body() -> None:
        async with opened(path, work, (200, 50)) as pilot:
            main = pilot.app.main_screen
            main.editor.focus()
            await pilot.pause()
            # posted at once, as the driver does with a burst (a lone ESC is a key only once its read ends)
            escape = [events.Key("escape", None)] if keys.endswith("\x1b") else []
            for event in [*XTermParser().feed(keys.rstrip("\x1b")), *escape, *XTermParser().feed("xyz")]:
                pilot.app.post_message(event)
            await wait_until(pilot, lambda: "yz" in main.editor.text, timeout=10, what="the typed keys")
            await settle(pilot)
            assert main.editor.document.get_line(line - 1) == want
            assert main.editor_pane.find_bar.value == keys[1:-1]

    run(body)


def test_a_recorded_run_shows_its_verdict_at_80x24(work: Path) -> None:
    """`workbench show RUN` in an 80x24 window cut the status line in the run folder's path, before the
    verdict: `read-only: target/tmp/workbench/hello-agent/80x24/2026...  ·  p…`. The verdict comes first."""
    import asyncio

    from tests.app.conftest import make_app
    from workbench.engine.runner import RunOptions, run_scenario

    path = work / "scenarios" / "hello-agent.yaml"
    options = RunOptions(goldens_dir=work / "goldens", out_dir=work / "runs" / "a-long-folder-name-of-ci")
    result = asyncio.run(run_scenario(path, options))
    assert result.status == "passed" and result.run_dir

    async def body() -> None:
        app = make_app(None, work, run_dir=Path(result.run_dir))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            status = next(row for row in screen_text(app) if "read-only" in row)
            assert "passed" in status and "11 of 11 steps" in status, status

    run(body)


@pytest.mark.parametrize("size", [(60, 20), (50, 16), (40, 12)])
def test_a_small_window_with_a_diagnostic_does_not_crash(work: Path, size: tuple[int, int]) -> None:
    """Resizing the window to 60x20 with a warning in the diagnostics list ended the app with a traceback
    (`ValueError: range() arg 3 must not be zero`: the list was asked its height wrapped at width 0)."""
    path = work / "scenarios" / "every-event.yaml"  # one warning (`assertVm`)

    async def body() -> None:
        async with opened(path, work, (120, 40)) as pilot:
            main = pilot.app.main_screen
            assert main.editor_pane.diagnostics.diagnostics
            for width, height in ((80, 24), size, (120, 40), size):
                await pilot.resize_terminal(width, height)
                await settle(pilot)
            assert pilot.app.is_running and pilot.app.return_code is None
            screen_text(pilot.app)

    run(body)
