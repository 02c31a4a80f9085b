"""Completion (ctrl+space): the names the format's schema allows where the cursor is, in a half-written file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import opened, run, wait_until
from workbench.app.core.complete import Completion, complete_at, insertion
from workbench.app.screens.complete import CompleteScreen


def _at_end(text: str) -> Completion | None:
    lines = text.split("\n")
    return complete_at(lines, len(lines) - 1, len(lines[-1]))


def _names(text: str) -> list[str]:
    completion = _at_end(text)
    assert completion is not None, text
    return [choice.name for choice in completion.choices]


def test_a_top_level_key() -> None:
    assert _names("name: x\nti") == ["timeline"]
    assert {"name", "command", "terminal", "timeline", "expect"} <= set(_names("name: x\n"))


def test_the_events_of_a_timeline_item_come_first_and_by_prefix() -> None:
    assert _names("name: x\ntimeline:\n  - advanceMs: 300\n  - scr") == ["screenshot"]
    names = _names("timeline:\n  - advanceMs: 300\n  - ")
    assert names[0] == "llmResponse" and {"userInputs", "writeFile", "assert", "screenshot"} <= set(names)
    assert names.index("screenshot") < names.index("type"), "the typed step's keys come after the events"
    assert _names("timeline:\n- wri") == ["writeFile"], "a list written at its key's column"


def test_the_keys_of_an_event_and_of_what_is_inside_it() -> None:
    assert _names("timeline:\n  - writeFile:\n      pa") == ["path"]
    assert {"path", "content", "status"} <= set(_names("timeline:\n  - writeFile:\n      path: x\n      "))
    assert _names("timeline:\n  - assert:\n      text:\n        ") == ["contains"]
    assert _names("timeline:\n  - llmResponse:\n      - think:\n          - ") == ["relativeTime", "content"]
    assert _names("repo:\n  files:\n    - ") == ["path", "contents"]
    steps = "timeline:\n  - userInputs:\n      - [0, 'x']\n  # a comment\n\n  - assert:\n      "
    assert {"fs", "text"} <= set(_names(steps)), "list entries, comments and blank lines are passed over"


def test_values_after_a_key() -> None:
    assert _names("repo:\n  init: ") == ["true", "false"]
    assert _names("repo:\n  init: f") == ["false"]
    completion = _at_end("repo:\n  init: f")
    assert completion is not None and completion.start == len("  init: ") and not completion.is_key


def test_nothing_where_the_schema_says_nothing() -> None:
    assert _at_end("nonsense:\n  ") is None
    assert _at_end('name: "half a string') is None


def test_a_key_is_written_with_its_colon() -> None:
    completion = _at_end("timeline:\n  - scr")
    assert completion is not None
    assert insertion(completion.choices[0], completion) == "screenshot: "
    block = _at_end("timeline:\n  - writeF")
    assert block is not None and insertion(block.choices[0], block) == "writeFile:"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_ctrl_space_completes_in_the_editor(work: Path, size: tuple[int, int]) -> None:
    """A newcomer writing a step from scratch: one fitting name is written at once; several are listed beside
    the cursor (arrows, Enter); Esc closes the list; a letter closes it and is typed."""
    path = work / "scenarios" / "mine.yaml"
    path.write_text("name: mine\ntimeline:\n  - advanceMs: 100\n", encoding="utf-8")

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            app, editor = pilot.app, pilot.app.main_screen.editor
            editor.focus()
            editor.move_cursor((3, 0))
            await pilot.press(*"  - scr", "ctrl+space")
            await wait_until(pilot, lambda: "  - screenshot: " in editor.text, what="the one name written")
            await pilot.press(*"end", "enter")
            await pilot.press("home", "shift+end", "backspace", *"  - ", "ctrl+space")
            await wait_until(pilot, lambda: isinstance(app.screen, CompleteScreen), what="the list")
            assert app.screen.choices[0].name == "llmResponse"
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, CompleteScreen), what="closed")
            assert editor.text.endswith("  - ")
            await pilot.press("ctrl+space")
            await wait_until(pilot, lambda: isinstance(app.screen, CompleteScreen), what="the list again")
            await pilot.press("u")  # typing goes on: the list closes and the letter is typed
            await wait_until(pilot, lambda: editor.text.endswith("  - u"), what="the letter typed")
            await pilot.press(*"serI", "ctrl+space")
            await wait_until(pilot, lambda: editor.text.endswith("  - userInputs:"), what="userInputs")
            await pilot.press("enter", *"- ", "ctrl+space")
            await wait_until(pilot, lambda: isinstance(app.screen, CompleteScreen), what="its entry's keys")
            await pilot.press("enter")  # the first, highlighted: relativeTime
            await wait_until(pilot, lambda: "- relativeTime: " in editor.text, what="the chosen key")
            assert isinstance(app.screen, type(app.main_screen))

    run(body)


def test_ctrl_space_in_a_json_scenario_says_completion_is_for_yaml(work: Path) -> None:
    async def body() -> None:
        async with opened(work / "scenarios" / "tui-steps.json", work, (120, 40)) as pilot:
            app = pilot.app
            app.main_screen.editor.focus()
            before = app.main_screen.editor.text
            await pilot.press("ctrl+space")
            await pilot.pause(0.1)
            assert not isinstance(app.screen, CompleteScreen) and app.main_screen.editor.text == before
            assert any("is not YAML" in n.message for n in app._notifications)

    run(body)
