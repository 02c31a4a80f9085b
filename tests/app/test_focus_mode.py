"""Focus mode: the terminal pane hands every key to the program under test until ctrl+]."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import SIZE, make_app, run, settle, wait_until
from workbench.app.widgets.terminal import key_bytes

SCENARIO = """\
name: typing
command: [sh, -c, "echo ready; exec cat"]  # the engine types once the program has drawn something
terminal: {width: 60, height: 10}
timeline:
  - userInputs:
      - [0, "from the scenario<Enter>"]
  - advanceMs: 100
  - userInputs:
      - [0, "<C-d>"]
  - advanceMs: 100
"""


@pytest.mark.parametrize(
    ("key", "character", "app_cursor", "expected"),
    [
        ("a", "a", False, b"a"),
        ("é", "é", False, "é".encode()),
        ("enter", "\r", False, b"\r"),
        ("ctrl+c", "\x03", False, b"\x03"),
        ("ctrl+t", None, False, b"\x14"),
        ("ctrl+right_square_bracket", None, False, b"\x1d"),
        ("ctrl+space", None, False, b"\x00"),
        ("escape", "\x1b", False, b"\x1b"),
        ("backspace", "\x08", False, b"\x7f"),
        ("up", None, False, b"\x1b[A"),
        ("up", None, True, b"\x1bOA"),
        ("ctrl+left", None, False, b"\x1b[1;5D"),
        ("shift+pagedown", None, False, b"\x1b[6;2~"),
        ("f5", None, False, b"\x1b[15~"),
        ("shift+tab", None, False, b"\x1b[Z"),
        ("alt+x", None, False, b"\x1bx"),
        ("ctrl+shift+f13", None, False, b""),
    ],
)
def test_key_bytes_are_what_xterm_sends(
    key: str, character: str | None, app_cursor: bool, expected: bytes
) -> None:
    assert key_bytes(key, character, application_cursor=app_cursor) == expected


def test_focus_mode_types_into_the_program_and_ctrl_bracket_leaves(work: Path) -> None:
    path = work / "typing.yaml"
    path.write_text(SCENARIO)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("ctrl+g")  # nothing runs yet: a warning, no focus mode
            assert not main.terminal.passthrough
            await pilot.press("f8")  # start paused and let the first step run: cat echoes the line
            await wait_until(
                pilot, lambda: "from the scenario" in main.terminal.text(), what="the first step"
            )
            await pilot.press("ctrl+g")
            assert main.terminal.passthrough and main.terminal.has_focus
            # every key goes to cat, F5 (play) and ctrl+t (switch pane) included: the tty echoes them
            await pilot.press("h", "i", "z", "f5", "ctrl+t", "enter")
            await wait_until(
                pilot, lambda: "hiz^[[15~^T" in main.terminal.text(), what="the echo of typed keys"
            )
            from textual.widgets._footer import FooterKey

            await pilot.pause(0.1)
            shown = [key.description for key in main.query(FooterKey)]
            assert "Leave focus mode" in shown and "Zoom" not in shown  # z is the program's here
            assert main.run is not None and main.run.clock.state.paused, "F5 must not have resumed the run"
            assert main.query_one("#panes").active == "tab-terminal", "ctrl+t must not have switched panes"
            await pilot.press("ctrl+right_square_bracket")
            assert not main.terminal.passthrough
            await pilot.press("f5")  # the app's keys are the app's again: play to the end
            await wait_until(pilot, lambda: main.result is not None, what="the run to finish")
            assert main.result is not None and main.result.status == "passed", main.result.failures
            assert not main.terminal.passthrough

    run(body)
