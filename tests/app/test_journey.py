"""A user's whole journey in one Pilot test: author a scenario from an empty file by typing it, save,
step through a run, step back, run to the end, accept the missing golden, run again, change the
scenario, see the screenshot mismatch, accept it, and find the new golden on disk."""

from __future__ import annotations

from pathlib import Path

from tests.app.conftest import SIZE, make_app, run, settle, wait_until
from workbench.app.screens.confirm import ConfirmScreen
from workbench.app.widgets.editor import yaml_indent
from workbench.app.widgets.timeline import PASSED

TYPED = """name: fresh
timeline:
- userInputs:
  - [0, "hi<Enter>"]
- llmResponse:
  - assistant:
    - [100, "hello"]
- screenshot: greeting
"""


def _keys(text: str) -> list[str]:
    return ["enter" if ch == "\n" else "space" if ch == " " else ch for ch in text]


def _typing(text: str) -> list[str]:
    """The keys a person presses to type ``text`` in the editor, which indents new lines itself."""
    keys: list[str] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        body = line.lstrip(" ")
        want = len(line) - len(body)
        have = yaml_indent(lines[i - 1]) if i else 0
        keys += ["backspace"] * (have - want) + ["space"] * (want - have) + _keys(body)
        if i < len(lines) - 1:
            keys.append("enter")
    return keys


def test_author_run_step_back_mismatch_accept(work: Path) -> None:
    path = work / "fresh.yaml"
    golden = work / "goldens" / "fresh" / "80x24" / "greeting.golden"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            assert main.editor.text == "" and not path.exists()
            main.editor.focus()
            await pilot.press(*_typing(TYPED))
            assert main.editor.text == TYPED
            await pilot.press("ctrl+s")
            assert path.read_text(encoding="utf-8") == TYPED
            await wait_until(pilot, lambda: len(main.timeline.marks) == 3, what="the compiled timeline")
            assert [m.actor for m in main.timeline.marks] == ["user", "agent", "control"]

            # step through on the virtual clock, then back
            await pilot.press("f8")
            await wait_until(pilot, lambda: 0 in main.records, what="step 1")
            assert main.run is not None and main.run.clock.state.paused and 1 not in main.records
            await pilot.press("f8")
            await wait_until(
                pilot, lambda: 1 in main.records and "hello" in main.terminal.text(), what="step 2"
            )
            await pilot.press("f7")
            assert main.timeline.cursor == 0 and main.terminal.source == "recorded"
            assert "hello" not in main.terminal.text() and "hi" in main.terminal.text()
            # and on to the end at full speed: the screenshot has no golden, and the app writes none by itself
            await pilot.press("f3", "f3", "f3", "f3", "f5")
            await wait_until(pilot, lambda: main.result is not None, what="the first run")
            assert main.result is not None and main.result.status == "failed"
            assert "no golden" in main.result.failures[0].message and not golden.exists()
            await pilot.press("ctrl+t")
            assert main.diff.current is not None and main.diff.current.status == "missing"
            main.diff.query_one("#shot-list").focus()
            await pilot.press("a")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
            await pilot.press("enter")  # Accept, the primary action, has the focus
            await wait_until(pilot, golden.exists, what="the accepted golden")
            assert "hello" in golden.read_text(encoding="utf-8")
            await pilot.press("ctrl+r")  # with its golden the scenario passes
            await wait_until(pilot, lambda: main.result is not None, what="the second run")
            assert main.result is not None and main.result.status == "passed", main.result.failures
            assert all(m.state == PASSED for m in main.timeline.marks)

            # change what the agent says: the screenshot no longer matches, and the golden stays
            row = TYPED.splitlines().index('    - [100, "hello"]')
            main.editor.focus()
            main.editor.move_cursor((row, len('    - [100, "hello')))
            await pilot.press(*_keys(" there"))
            await pilot.press("ctrl+r")  # restart saves first, then runs
            await wait_until(pilot, lambda: main.result is not None, what="the third run")
            assert "hello there" in path.read_text(encoding="utf-8")
            assert main.result is not None and main.result.status == "failed"
            assert "hello there" not in golden.read_text(encoding="utf-8")

            # the mismatch, accepted after a confirmation
            await pilot.press("ctrl+t")
            pair = main.diff.current
            assert pair is not None and pair.label == "greeting" and pair.status == "mismatch"
            main.diff.query_one("#shot-list").focus()
            await pilot.press("a")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
            await pilot.press("enter")  # Accept, the primary action, has the focus
            await wait_until(
                pilot, lambda: "hello there" in golden.read_text(encoding="utf-8"), what="the golden"
            )
            assert main.diff.current is not None and main.diff.current.status == "match"

    run(body)
