"""Keys that arrive in one read are all handled, in order (a paste without bracketed paste, key repeat,
``tmux send-keys`` with several keys).

Textual runs a key's non-priority bindings only once the key has bubbled back up to
the app, so a burst of keys let characters overtake Backspace or ctrl+f
(:mod:`workbench.app.keys_in_order`). The first test is the user's case end to end:
the app in a real pty, 50+ mixed keys written with one ``write``, the file saved
and read back. The second feeds Textual's own parser the same bytes in-process.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from tests.app.conftest import make_app, run, settle, wait_until
from workbench.terminal import PtySession

START = "name: t\ntimeline:\n  - assert\n"
# ctrl+f :3 Enter (go to line 3), End, eight Backspaces, then a step typed over them; Left, Backspace and a
# digit edit the number; Home, ctrl+k (delete to the line end) and Enter; a second step typed below.
KEYS = (
    b"\x06:3\r" + b"\x1b[F" + b"\x7f" * 8 + b"- advanceMs: 15" + b"\x1b[D\x7f2"
    + b"\x1b[H" + b"\x1b[B" + b"\x0b" + b"  - advanceMs: 9"
)  # fmt: skip
EXPECTED = "name: t\ntimeline:\n  - advanceMs: 25\n  - advanceMs: 9"


def test_fifty_mixed_keys_in_one_write_reach_the_document_in_order(work: Path) -> None:
    assert len(KEYS.replace(b"\x1b[", b"\x1b")) >= 50  # one key per byte, escape sequences counted once
    path = work / "t.yaml"
    path.write_text(START)

    async def body() -> None:
        env = dict(os.environ, XDG_CONFIG_HOME=str(work / "config"), WORKBENCH_KEYMAP=str(work / "none.toml"))
        session = await PtySession.spawn(
            [sys.executable, "-m", "workbench", str(path)], env=env, cwd=str(work), width=120, height=40
        )
        async with session:
            await session.wait_for_text("timeline item", timeout=60)  # validated: the editor is ready
            session.write_bytes(KEYS)
            await session.wait_for_text("advanceMs: 9", timeout=30)
            session.write_bytes(b"\x13")  # ctrl+s
            deadline = time.monotonic() + 30
            while path.read_text() != EXPECTED and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert path.read_text() == EXPECTED
            session.write_bytes(b"\x11")  # ctrl+q

    asyncio.run(body())


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_keys_parsed_from_one_read_are_handled_in_order_in_process(work: Path, size: tuple[int, int]) -> None:
    from textual._xterm_parser import XTermParser

    path = work / "t.yaml"
    path.write_text(START)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            main.editor.focus()
            await pilot.pause()
            for event in XTermParser().feed(KEYS.decode()):  # as the driver does with one read
                app.post_message(event)
            await wait_until(pilot, lambda: main.editor.text.rstrip("\n") == EXPECTED, timeout=30,
                             what=f"the typed document (now {main.editor.text!r})")  # fmt: skip

    run(body)


def test_alt_digits_switch_panes_from_the_editor_as_a_terminal_sends_them(work: Path) -> None:
    """A terminal sends alt+4 as ESC 4, which Textual reads as macOS's option+4 character (¢)."""
    from textual._xterm_parser import XTermParser

    path = work / "t.yaml"
    path.write_text(START)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            main = app.main_screen
            main.editor.focus()
            await pilot.pause()
            for event in XTermParser().feed("\x1b4"):  # what tmux and xterm send for alt+4
                app.post_message(event)
            await wait_until(pilot, lambda: main.panes.display and main.panes.active == "tab-step",
                             what="the Step pane")  # fmt: skip
            assert main.editor.text == START, "no ¢ typed into the scenario"

    run(body)
