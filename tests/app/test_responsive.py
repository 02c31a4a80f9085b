"""A program under test that floods its terminal or crashes leaves the app responsive."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from textual import events

from tests.app.conftest import SIZE, make_app, run, settle, wait_until

FLOOD = """\
name: flood
command: [python3, -c, "import sys, itertools\\nfor i in itertools.count(): sys.stdout.write(f'{i:>9} ' + 'x' * 70 + '\\\\n')"]
timeline:
  - advanceMs: 60000
"""

CRASH = """\
name: crash
command: [python3, -c, "import os, sys; sys.stdout.write('about to crash\\\\n'); sys.stdout.flush(); os.abort()"]
timeline:
  - advanceMs: 300
  - assert:
      text:
        contains: ["about to crash"]
expect:
  exitCode: 0
"""


def test_a_flooding_program_leaves_the_editor_and_the_panes_answering(work: Path) -> None:
    path = work / "flood.yaml"
    path.write_text(FLOOD)
    pids: list[int] = []
    workspaces: list[Path] = []

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f5")  # at 1x the flood goes on for a minute, unless the app ends it
            await wait_until(pilot, lambda: main.terminal.is_live and "xxxx" in main.terminal.text(),
                             what="the flood on screen")  # fmt: skip
            assert main.run is not None and main.run._session is not None
            pids.append(main.run._session.pid)
            assert main.run._workspace is not None
            workspaces.append(main.run._workspace.path)
            seen = main.terminal.text()
            main.editor.focus()
            main.editor.move_cursor((0, 0))
            # Keys as a terminal delivers them (Pilot.press would wait for an idle loop, which a flood never
            # leaves): each must be answered while the program still floods.
            for key, char in (("number_sign", "#"), ("space", " "), ("o", "o"), ("k", "k"), ("enter", "\r")):
                before = main.editor.text
                _press(app, key, char)
                await wait_until(pilot, lambda: main.editor.text != before, what=f"the key {key}")  # noqa: B023
            assert main.editor.text.startswith("# ok\n")
            _press(app, "ctrl+t", None)
            await wait_until(
                pilot, lambda: main.query_one("#panes").active == "tab-shots", what="the pane switch"
            )
            _press(app, "ctrl+t", None)
            await wait_until(  # the key is handled before the test goes on (none is left in flight at exit)
                pilot, lambda: main.query_one("#panes").active != "tab-shots", what="the pane switch back"
            )
            await wait_until(pilot, lambda: main.terminal.text() != seen, what="the pane to keep repainting")
            assert main.live and main.run._session.alive, "all of this happened during the flood"
        # leaving the app ends the run: the program (reaped, not a zombie) and its workspace are gone
        assert not _alive(pids[0])
        assert not workspaces[0].exists()

    run(body)


def _press(app: Any, key: str, char: str | None) -> None:
    """A key as the terminal driver posts it (Pilot.press and simulate_key wait for an idle loop)."""
    event = events.Key(key, char)
    event.set_sender(app)
    app.post_message(event)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_crashing_program_fails_the_run_and_the_app_runs_it_again(work: Path) -> None:
    path = work / "crash.yaml"
    path.write_text(CRASH)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f3", "f3", "f3", "f3", "f5")  # max speed
            await wait_until(pilot, lambda: main.result is not None, what="the run to end")
            result = main.result
            assert result is not None and result.status == "failed"
            assert any("exit" in f.message for f in result.failures), result.failures
            assert "about to crash" in main.terminal.text()
            assert main.browser.verdict_of(path) == "failed"
            await pilot.press("ctrl+r")  # and again: the app is fine
            await wait_until(pilot, lambda: main.result is not None and main.result is not result,
                             what="the second run")  # fmt: skip
            assert main.result is not None and main.result.status == "failed" and app.is_running

    run(body)
