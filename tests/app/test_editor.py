"""The editor: diagnostics as you type, jumping to them, atomic saves, no edit lost on quit."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import pytest

from tests.app.conftest import SIZE, long_scenario, make_app, run, settle, wait_until
from workbench.app.model import validate_text
from workbench.app.screens.confirm import ConfirmScreen
from workbench.atomic import write_atomic
from workbench.scenario.diagnostics import Severity, count


def test_opens_a_folder_with_every_format_and_the_first_scenario(work: Path) -> None:
    async def body() -> None:
        app = make_app(work / "scenarios", work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            suffixes = {e.path.suffix for e in main.browser.entries}
            assert {".yaml", ".json"} <= suffixes
            assert main.path is not None and main.editor.text == main.path.read_text(encoding="utf-8")
            assert (
                main.editor.language == {".yaml": "yaml", ".json": "yaml", ".toml": "toml"}[main.path.suffix]
            )

    run(body)


def test_an_invalid_edit_shows_diagnostics_and_never_crashes(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            assert main.editor.language == "yaml"
            assert main.validation is not None and not main.validation.errors
            assert len(main.timeline.marks) > 5
            # type a broken line by hand, then an unknown event, as a user would
            main.editor.focus()
            main.editor.move_cursor((main.editor.document.line_count - 1, 0))
            await pilot.press("enter", *"  - nonsense: [1, 2", "enter")
            await wait_until(
                pilot, lambda: bool(main.validation and main.validation.errors), what="diagnostics"
            )
            errors = main.validation.errors
            assert errors and all(d.severity == Severity.ERROR for d in errors)
            diagnostics = main.query_one("#diagnostics")
            assert count(len(errors), "error") in str(diagnostics.border_title)
            assert main.editor.dirty and "●" in str(main.editor.border_title)
            # jump to the first problem
            await pilot.press("f4")
            assert main.editor.cursor_location[0] == errors[0].pos.line - 1
            # the message is shown at its line, after the text; other lines carry none
            await pilot.pause(0.05)
            row = errors[0].pos.line - 1
            shown = main.editor.render_line(row - main.editor.scroll_offset.y).text
            assert f"◀ {errors[0].message.splitlines()[0]}"[:20] in shown
            top = main.editor.scroll_offset.y
            clean = next(r for r in range(top, row) if r not in main.editor.problems)
            assert "◀" not in main.editor.render_line(clean - top).text
            # more garbage keeps the app alive, then undo brings the valid text back
            main.editor.insert("\t\x00{{{]]]\n")
            await pilot.pause(0.4)
            await settle(pilot)
            assert app.is_running
            main.editor.load_text(path.read_text(encoding="utf-8"))
            main.editor_pane.validate_now()
            await wait_until(
                pilot, lambda: bool(main.validation and not main.validation.errors), what="valid"
            )

    run(body)


def test_diagnostics_are_debounced_and_run_off_the_ui_thread(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            calls: list[str] = []
            original = main.editor_pane._validate

            def counting(p: Path, text: str) -> object:
                calls.append(text)
                return original(p, text)

            main.editor_pane._validate = counting  # type: ignore[method-assign]
            main.editor.focus()
            original_text = main.editor.text
            main.editor.move_cursor((0, 0))
            for ch in "# a comment typed quickly":  # a burst of edits inside the debounce window
                main.editor.insert(ch)
            await pilot.pause(0.6)
            await settle(pilot)
            # one validation for the burst, not one per key
            assert [text[:30] for text in calls] == ["# a comment typed quickly" + original_text[:5]], calls

    run(body)


def test_save_is_atomic_and_keeps_the_file_whole(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"
    os.chmod(path, 0o640)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            before = path.stat().st_ino
            main.editor.focus()
            main.editor.move_cursor((0, 0))
            await pilot.press(*"# saved by the app", "enter")
            await pilot.press("ctrl+s")
            await settle(pilot)
            text = path.read_text(encoding="utf-8")
            assert text.startswith("# saved by the app\n") and text == main.editor.text
            assert not main.editor.dirty
            assert path.stat().st_ino != before  # renamed into place, not rewritten in place
            assert path.stat().st_mode & 0o777 == 0o640
            assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []

    run(body)


def test_write_atomic_failure_leaves_the_old_file(work: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = work / "scenarios" / "hello-agent.yaml"
    old = path.read_text(encoding="utf-8")

    def boom(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with contextlib.suppress(OSError):
        write_atomic(path, "new text")
    assert path.read_text(encoding="utf-8") == old
    assert [p for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_quit_with_unsaved_changes_asks_first(work: Path) -> None:
    path = work / "scenarios" / "hello-agent.yaml"
    original = path.read_text(encoding="utf-8")

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            main.editor.focus()
            await pilot.press(*"# unsaved")
            await pilot.press("ctrl+q")
            await pilot.pause(0.1)
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("escape")  # cancel: nothing lost, still running
            await pilot.pause(0.1)
            assert app.is_running and main.editor.dirty
            await pilot.press("ctrl+q")
            await pilot.pause(0.1)
            await pilot.click("#choice-discard")
            await pilot.pause(0.1)
        assert app.return_code == 0
        assert path.read_text(encoding="utf-8") == original

    run(body)


def test_author_a_new_scenario_from_an_empty_file(work: Path) -> None:
    path = work / "new.yaml"
    text = 'name: fresh\ntimeline:\n  - userInputs:\n      - [0, "hi"]\n  - screenshot: start\n'

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            assert main.editor.text == ""
            main.editor.insert(text)
            await pilot.press("ctrl+s")
            await pilot.pause(0.4)
            await settle(pilot)
            assert path.read_text(encoding="utf-8") == text
            assert main.validation is not None and not main.validation.errors
            assert [m.action for m in main.timeline.marks][-1] == "screenshot"

    run(body)


def test_validate_text_reports_unsaved_contents() -> None:
    result = validate_text(Path("x.yaml"), "timeline: 3\n")
    assert result.errors and result.schedule is None
    assert validate_text(Path("x.json"), "{").errors


def test_json_and_toml_scenarios_are_highlighted_and_validated_like_yaml(work: Path) -> None:
    json_file = work / "scenarios" / "tui-steps.json"
    toml_file = next((work / "scenarios" / "claudeless").glob("*.toml"))

    async def body() -> None:
        app = make_app(json_file, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main_screen
            for path, language in ((json_file, "yaml"), (toml_file, "toml")):
                main.open_file(path)
                await settle(pilot)
                assert main.editor.language == language
                assert any(main.editor._highlights.values()), f"{path.name} has no highlighting"
                assert main.validation is not None and not main.validation.errors
                main.editor.insert("\n!!broken", (0, 0))
                await wait_until(pilot, lambda: bool(main.validation and main.validation.errors),
                                 what=f"diagnostics for {path.name}")  # fmt: skip
                main.editor.take_disk_text(path.read_text(encoding="utf-8"))

    run(body)


def test_a_kill_during_saves_leaves_the_old_or_the_new_file_whole(tmp_path: Path) -> None:
    """SIGKILL a process that saves two big versions in turn, at 20 moments: the file is always one of them."""
    import random
    import signal
    import subprocess
    import sys
    import time

    path = tmp_path / "big.yaml"
    versions = {"a": "# a\n" + "a" * 3_000_000 + "\n", "b": "# b\n" + "b" * 2_000_000 + "\n"}
    path.write_text(versions["a"])
    saver = (
        "import sys\nfrom pathlib import Path\nfrom workbench.atomic import write_atomic\n"
        "a, b = '# a\\n' + 'a' * 3_000_000 + '\\n', '# b\\n' + 'b' * 2_000_000 + '\\n'\n"
        "print('ready', flush=True)\n"
        "while True:\n    write_atomic(Path(sys.argv[1]), b)\n    write_atomic(Path(sys.argv[1]), a)\n"
    )
    rng = random.Random(6)
    for _ in range(20):
        proc = subprocess.Popen([sys.executable, "-c", saver, str(path)], stdout=subprocess.PIPE)
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.05))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        assert path.read_text() in versions.values()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != path.name]
    assert all(name.startswith(".big.yaml.") and name.endswith(".tmp") for name in leftovers)


def test_a_long_scenario_is_highlighted_around_the_view_as_it_scrolls(work: Path) -> None:
    path = work / "long.yaml"
    last = long_scenario(path, 400) - 1

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            editor = app.main_screen.editor
            assert editor.language == "yaml"
            assert editor._highlights[2] and not editor._highlights[last]  # only around the view
            editor.scroll_end(animate=False, immediate=True)
            await pilot.pause(0.05)
            assert editor._highlights[last], "scrolling to the end highlights the end"
            editor.focus()
            editor.move_cursor((last, 0))
            await pilot.press("#")
            assert editor._highlights[last] and any("comment" in h[2] for h in editor._highlights[last])

    run(body)


def test_a_long_diagnostic_wraps_in_the_list_and_keeps_its_did_you_mean(work: Path) -> None:
    """At 120x40 the list is the editor's width: a message longer than that wraps, never ends in an ellipsis."""
    path = work / "scenarios" / "hello-agent.yaml"
    path.write_text(path.read_text().replace("name: hello-agent", "nme: hello-agent"))

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            main = app.main_screen
            diagnostics = main.query_one("#diagnostics")
            message = next(d.message for d in main.validation.diagnostics if "nme" in d.message)
            assert (
                "did you mean `name`" in message
                and len(f"▲ 3:1 {message}") > diagnostics.content_region.width
            )
            shown = " ".join(
                diagnostics.render_line(y).text.strip() for y in range(diagnostics.content_region.height)
            )
            assert "…" not in shown and "did you mean `name`" in " ".join(shown.split()), shown

    run(body)


MANY_WARNINGS = "name: warned\ntimeline:\n  - llmResponse:\n" + "".join(
    f"      - think:\n          - {{content: thought {i}, relativeTime: 2000}}\n"
    f"          - {{content: a thought that goes back in time, relativeTime: 1000}}\n"
    for i in range(8)
)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_many_warnings_leave_the_text_two_thirds_of_the_pane(work: Path, size: tuple[int, int]) -> None:
    """A held-out scenario with a long warning on every other line: the list scrolls within a third of
    the editor pane, and the text keeps the rest."""
    path = work / "scenarios" / "warned.yaml"
    path.write_text(MANY_WARNINGS, encoding="utf-8")

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            await wait_until(pilot, lambda: bool(main.validation and len(main.validation.diagnostics) >= 8),
                             what="eight warnings")  # fmt: skip
            await settle(pilot)
            pane, diagnostics = main.editor_pane, main.editor_pane.diagnostics
            assert diagnostics.max_scroll_y > 0  # more than it shows: it scrolls
            assert diagnostics.outer_size.height <= pane.size.height // 3 + 1
            assert main.editor.outer_size.height >= 2 * pane.size.height // 3 - 2

    run(body)


LONG_PROBLEMS = """\
name: broken
timeline:
  - runCmd:
      cmd: ls
      staus: ok
  - nonsense: [1, 2]
"""


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_a_diagnostic_is_never_cut_the_cursors_line_shows_it_whole(work: Path, size: tuple[int, int]) -> None:
    """The note at the line's end is a preview (it ends in "…" when it has no room); with the cursor on the
    line, the diagnostics list highlights that message whole, wrapped (scrolling when it is longer than
    a third of the pane): every word of it can be read, at 80x24 too."""
    from tests.app.conftest import screen_text

    path = work / "scenarios" / "broken.yaml"
    path.write_text(LONG_PROBLEMS, encoding="utf-8")

    async def shown_in_list(pilot: Any) -> str:
        """Every row the list shows, scrolled from its top to its end, as one line of words."""
        diagnostics = pilot.app.main_screen.editor_pane.diagnostics
        region = diagnostics.scrollable_content_region  # without the scrollbar
        diagnostics.scroll_to(y=0, animate=False)
        await pilot.pause()
        rows = [row[region.x : region.right] for row in screen_text(pilot.app)[region.y : region.bottom]]
        for y in range(1, int(diagnostics.max_scroll_y) + 1):  # each step down shows one more row
            diagnostics.scroll_to(y=y, animate=False)
            await pilot.pause()
            rows.append(screen_text(pilot.app)[region.bottom - 1][region.x : region.right])
        return " ".join(" ".join(rows).split())

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            await wait_until(
                pilot, lambda: bool(main.validation and main.validation.diagnostics), what="problems"
            )
            editor = main.editor
            editor.focus()
            for line in (5, 6):
                message = next(d.message for d in main.validation.diagnostics if d.pos.line == line)
                editor.move_cursor((line - 1, 4))
                await settle(pilot)
                diagnostics = main.editor_pane.diagnostics
                assert diagnostics.highlighted is not None
                assert diagnostics.diagnostics[diagnostics.highlighted].pos.line == line
                assert " ".join(message.split()) in await shown_in_list(pilot)
                row = next(r for r in screen_text(app) if "◀" in r and ("staus" in r or "nonsense" in r))
                assert "…" in row or message in row  # a cut preview says so

    run(body)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_the_cursor_stays_in_view_when_the_diagnostics_grow(work: Path, size: tuple[int, int]) -> None:
    """Typing a mistake at the end of the file grows the diagnostics list under the editor: the editor gets
    shorter, and the line being typed must stay on screen (it went below the view until the next key)."""
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            editor = main.editor
            editor.focus()
            await pilot.press("ctrl+end", "enter", *"  - advnceMs: 100")
            await wait_until(
                pilot, lambda: bool(main.validation and main.validation.diagnostics), what="the problem"
            )
            await settle(pilot)
            row = editor.cursor_location[0]
            top = int(editor.scroll_offset.y)
            assert top <= row < top + editor.scrollable_content_region.height, (row, top, editor.size)

    run(body)
