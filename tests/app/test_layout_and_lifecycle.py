"""Issue 15, points 1-6 at 120x40 and 80x24: cancelled runs, a layout that fits, no leaking state,
Stop, keys that act on what their hint is about, and a failures pane that stays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region

from tests.app.conftest import make_app, play_to_end, run, screen_text, settle, wait_until
from workbench.app.screens.confirm import ConfirmScreen

SIZES = [(120, 40), (80, 24)]

# A program whose first line fills its 80 columns: the Z is the last column.
WIDE = """\
name: wide
command: [python3, -c, "print('A' * 79 + 'Z'); print('second line'); import time; time.sleep(60)"]
timeline:
  - advanceMs: 400
  - assert:
      text:
        contains: [second line]
  - advanceMs: 100
"""

# The same in 60 columns, which fit beside the chrome even at 80x24 when it is the pane shown.
NARROW = (
    WIDE.replace("name: wide", "name: narrow").replace("79", "59") + "terminal: {width: 60, height: 12}\n"
)

FAILING = """\
name: failing
command: [python3, -q]
terminal: {width: 60, height: 12}
timeline:
  - userInputs:
      - [0, "print(40 + 2)<Enter>"]
  - advanceMs: 400
  - assert:
      text:
        contains: [nowhere to be seen]
  - userInputs:
      - [0, "print('after')<Enter>"]
  - advanceMs: 200
"""


def _last_record(run_dir: Path) -> dict[str, object]:
    last: dict[str, object] = json.loads(
        (run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()[-1]
    )
    assert last["type"] == "result"
    return last


def _write(work: Path, name: str, text: str) -> Path:
    path = work / "scenarios" / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("size", SIZES)
def test_a_stopped_run_is_cancelled_never_passed(work: Path, size: tuple[int, int]) -> None:
    """Point 1 and 4: F8 then Esc stops; quitting mid-run also cancels; the browser and trace say so."""
    path = _write(work, "failing.yaml", FAILING)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f8")
            await wait_until(pilot, lambda: 0 in main.records, what="step 1")
            assert main.live and "Esc stops" in main.timeline.status
            await wait_until(pilot, lambda: "Stop" in _footer_labels(main), what="the footer's Stop")
            await pilot.press("escape")
            await wait_until(pilot, lambda: main.result is not None, what="the stop")
            assert main.result.status == "cancelled"
            # Esc stops only a live run: the footer stops offering it
            await wait_until(pilot, lambda: "Stop" not in _footer_labels(main), what="no Stop in the footer")
            assert main.browser.verdict_of(path) == "cancelled"
            assert "cancelled" in main.timeline.status
            assert _last_record(Path(str(main.result.run_dir)))["status"] == "cancelled"
            # F8 again starts a new run, and quitting in the middle cancels it too
            await pilot.press("f8")
            await wait_until(pilot, lambda: main.live and 0 in main.records, what="a second run")
            second = main.run
            await pilot.press("ctrl+q")
        assert second is not None and second.run_dir is not None
        assert _last_record(second.run_dir)["status"] == "cancelled"
        app = make_app(path, work)  # reopen: the browser shows the cancelled run, not a pass
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            assert app.main_screen.browser.verdict_of(path) == "cancelled"

    run(body)


def _footer_labels(main: Any) -> list[str]:
    from textual.widgets._footer import FooterKey

    return [key.description for key in main.query(FooterKey)]


def _yaml_columns(main: object) -> int:
    editor = main.editor  # type: ignore[attr-defined]
    return int(editor.scrollable_content_region.width - editor.gutter_width)


def test_layout_at_120x40_gives_the_editor_60_columns_and_pans_the_program(work: Path) -> None:
    """Issue 22 point 1: 60 columns of YAML beside the terminal; an 80-column program pans (marker, z zooms)."""
    path = _write(work, "wide.yaml", WIDE)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            main = app.main_screen
            assert _yaml_columns(main) >= 60 and main.panes.display and main.editor.display
            await pilot.press("f8")
            await wait_until(
                pilot, lambda: "second line" in main.terminal.text(), what="the program's output"
            )
            await pilot.pause(0.1)
            assert _yaml_columns(main) >= 60, "the program never pushes the editor below 60 columns"
            assert main.terminal.has_class("-scaled")
            marker = str(main.terminal.border_subtitle)
            assert "cols 1-" in marker and "/80 ▶" in marker and "z zoom" in marker
            assert any("/80 ▶" in row for row in screen_text(app)), "the marker is on screen"
            # z on the terminal zooms: the whole 80 columns with the Z and the border after it
            main.terminal.focus()
            await pilot.press("z")
            await pilot.pause(0.1)
            line = "A" * 79 + "Z"
            assert any(line + "│" in row for row in screen_text(app))
            assert main.terminal.region.width == 82 and not main.terminal.has_class("-scaled")
            await pilot.press("z")
            await pilot.pause(0.1)
            assert _yaml_columns(main) >= 60 and main.terminal.has_class("-scaled")
            assert not main.browser.display  # no room for it beside the editor and the program
            rows = screen_text(app)
            assert "f1 Help" in rows[-1] and "^q Quit" in rows[-1]
            # ctrl+b asks for the browser: it takes room from the terminal, never from the editor
            main.editor.focus()
            await pilot.press("ctrl+b")
            await pilot.pause(0.05)
            assert main.browser.display and _yaml_columns(main) >= 60
            await pilot.press("ctrl+b")
            await pilot.pause(0.05)
            assert not main.browser.display
            # any pane maximises on ctrl+o, and back
            main.editor.focus()
            await pilot.press("ctrl+o")
            await pilot.pause(0.05)
            assert main.maximized is main.editor and main.editor.region.width == 120
            await pilot.press("ctrl+o")
            await pilot.pause(0.05)
            assert main.maximized is None
            await pilot.press("escape")
            await wait_until(pilot, lambda: main.result is not None, what="the stop")

    run(body)


def test_panning_follows_the_programs_cursor() -> None:
    """A view narrower than the program keeps the cursor in view and says which columns it shows."""
    from workbench.app.widgets.terminal import pan_marker

    assert pan_marker((0, 0), (48, 24), (80, 24)) == "  cols 1-48/80 ▶"
    assert pan_marker((32, 0), (48, 24), (80, 24)) == "◀ cols 33-80/80  "
    assert pan_marker((10, 2), (48, 20), (80, 24)) == "◀ cols 11-58/80 ▶ · rows 3-22/24"


def test_layout_at_80x24_is_one_pane_at_a_time(work: Path) -> None:
    """Point 2 at 80x24: tabs; a 60-column program is whole, an 80-column one is scrollable with a notice."""
    narrow = _write(work, "narrow.yaml", NARROW)
    wide = _write(work, "wide.yaml", WIDE)

    async def body() -> None:
        app = make_app(narrow, work)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            main = app.main_screen
            rows = screen_text(app)
            assert "alt+1 List" in rows[0] and "alt+3 Terminal" in rows[0] and main.editor.display
            assert not main.panes.display
            await pilot.press("f8")
            await wait_until(pilot, lambda: "second line" in main.terminal.text(), what="the output")
            await pilot.press("alt+3")  # the Terminal tab, one key from anywhere (3 where no text is typed)
            await pilot.pause(0.1)
            assert main.panes.display and not main.query_one("#editor-pane").display
            rows = screen_text(app)
            line = "A" * 59 + "Z"
            assert any(line + "│" in r for r in rows), "the 60th column is on screen with the border after it"
            assert not main.terminal.has_class("-scaled")
            assert "f1 Help" in rows[-1] and "^q Quit" in rows[-1]
            await pilot.press("escape")
            await wait_until(pilot, lambda: main.result is not None, what="the stop")
            # golden and actual stack in a narrow window
            assert main.diff.has_class("-stacked")
            main.request_open(wide)
            await settle(pilot)
            await pilot.press("f8")
            await wait_until(pilot, lambda: "second line" in main.terminal.text(), what="the wide output")
            main.workspace.show_view("terminal")
            await pilot.pause(0.1)
            assert main.terminal.has_class("-scaled")
            assert "/80 ▶" in str(main.terminal.border_subtitle)
            assert any("/80 ▶" in r for r in screen_text(app)), "the notice is on screen"
            await pilot.press("2")  # the terminal pane types nothing: number keys switch panes there
            await pilot.pause(0.05)
            assert main.query_one("#editor-pane").display and main.editor.has_focus and not main.panes.display
            await pilot.press("alt+5")
            await pilot.pause(0.05)
            assert main.panes.display and main.panes.active == "tab-shots"
            assert not main.query_one("#editor-pane").display
            await pilot.press("escape")
            await wait_until(pilot, lambda: main.result is not None, what="the stop")

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_opening_another_file_resets_and_claudeless_shows_its_rules(
    work: Path, size: tuple[int, int]
) -> None:
    """Point 3 (and 4: opening during a run offers to stop it)."""
    path = _write(work, "failing.yaml", FAILING)
    other = work / "scenarios" / "hello-agent.yaml"
    rules = work / "scenarios" / "claudeless" / "v1-rules.toml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            await play_to_end(pilot)
            assert main.result.status == "failed" and main.records
            main.request_open(other)
            await settle(pilot)
            assert main.result is None and not main.records and main.run is None
            assert main.terminal.text().strip() == "" and "idle" in main.timeline.status
            assert all(m.state == "pending" for m in main.timeline.marks)
            assert len(main.timeline.marks) == 11  # hello-agent's own steps
            # during a run, opening another file asks to stop it first
            await pilot.press("f8")
            await wait_until(pilot, lambda: 0 in main.records, what="step 1")
            main.request_open(path)
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
            await pilot.press("enter")  # "Stop the run and open" is the primary action
            await wait_until(pilot, lambda: main.path == path, what="the other file")
            assert not main.live and not main.records
            main.request_open(rules)
            await settle(pilot)
            assert main.failures.border_title.startswith("Rules:")
            texts = [
                str(main.failures.get_option_at_index(i).prompt) for i in range(main.failures.option_count)
            ]
            assert "do not run alone" in texts[0] and len(texts) > 1
            await pilot.press("f5")
            await pilot.pause(0.1)
            assert main.run is None, "a Claudeless file does not run in mock-agent mode"

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_accept_keys_act_on_the_screenshot_list_and_enter_confirms(work: Path, size: tuple[int, int]) -> None:
    """Point 5: `a` in the editor types an a; the list's hint names its keys only when it has the focus."""
    path = work / "scenarios" / "hello-agent.yaml"
    golden = work / "goldens" / "hello-agent" / "80x24" / "done.golden"
    golden.write_text("not what the screen shows\n", encoding="utf-8")

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            await play_to_end(pilot)
            assert main.result.status == "failed"
            main.editor.focus()
            message = str(main.query_one("#shot-message").render())
            assert "a: accept" not in message and "tab to the list" in message, "no key named while elsewhere"
            await pilot.press("ctrl+t")  # to the screenshots: the list has the focus
            await pilot.pause(0.05)
            assert main.query_one("#shot-list").has_focus
            assert "a: accept" in str(main.query_one("#shot-message").render())
            await pilot.press("a")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
            assert app.screen.focused is not None and app.screen.focused.id == "choice-accept"
            await pilot.press("enter")
            await wait_until(
                pilot, lambda: golden.read_text() != "not what the screen shows\n", what="accept"
            )
            assert "Done: hello.py" in golden.read_text()
            assert "a" not in main.editor.text.splitlines()[0][-1:], "no a typed into the YAML"

    run(body)


def test_show_hides_keys_that_do_nothing(work: Path) -> None:
    """Point 5: a recorded run shows no key in the footer that would change it."""
    from workbench.engine.runner import RunOptions, run_scenario

    path = work / "scenarios" / "hello-agent.yaml"
    import asyncio

    result = asyncio.run(run_scenario(path, RunOptions(goldens_dir=work / "goldens", out_dir=work / "runs")))

    async def body() -> None:
        app = make_app(None, work, run_dir=Path(str(result.run_dir)))
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await wait_until(pilot, lambda: "Back" in screen_text(app)[-1], what="the footer")
            footer = screen_text(app)[-1]
            for hidden in ("Play", "Pause", "Save", "To cursor", "Stop"):
                assert hidden not in footer
            assert "Back" in footer and "Step" in footer and "F7/F8 step" in app.main_screen.timeline.status

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_failures_pane_lists_every_failure_and_jumps_to_its_step(work: Path, size: tuple[int, int]) -> None:
    """Point 6: the failures stay until the next run, which lists its own as they come; Enter inspects the
    step; toasts spare the status."""
    path = _write(work, "failing.yaml", FAILING)

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size, notifications=True) as pilot:
            await settle(pilot)
            main = app.main_screen
            await play_to_end(pilot)
            assert main.result.status == "failed"
            await wait_until(pilot, lambda: bool(app.screen.query("Toast")), what="the failure's toast")
            # the toast about the failure sits at the bottom right, off the status line's text and the program
            content = main.timeline.content_region
            status = Region(content.x, content.y + 2, len(main.timeline.status), 1)
            toasts = [toast.region for toast in app.screen.query("Toast") if toast.visible]
            assert all(not t.overlaps(status) and not t.overlaps(main.terminal.region) for t in toasts), (
                toasts
            )
            await pilot.press("f12")
            await pilot.pause(0.1)
            assert main.failures.has_focus
            # it said where to look; the key that went there takes it away, off the failures' text
            await wait_until(pilot, lambda: not app.screen.query("Toast"), what="the toast gone")
            rows = screen_text(app)
            assert any("line 8 [assert] the screen does not contain" in r for r in rows), (
                "line, kind, message"
            )
            await pilot.press("enter")
            await pilot.pause(0.1)
            failure = main.result.failures[0]
            assert main.timeline.cursor == failure.step and main.terminal.source == "recorded"
            assert main.panes.active == "tab-step", "the step inspector, with the whole reason"
            assert main.failures.failures == main.result.failures, "the pane stays after the jump"
            # the next run clears it when it starts: F9 holds it at the failed step (the cursor's), so it cannot
            # end and list its failures again before this looks (F5 at play_to_end's max speed did, on a busy
            # machine now and then)
            await pilot.press("f9")
            await wait_until(pilot, lambda: failure.step in main.records, what="the next run at the cursor")
            await wait_until(pilot, lambda: "so far" in str(main.failures.border_title),
                             what="the next run's own failures so far, not the last run's")  # fmt: skip
            assert main.live and main.failures.failures == main.run.failures_so_far()

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_the_failures_pane_shows_each_message_whole_wrapped(work: Path, size: tuple[int, int]) -> None:
    """Point 3: a long, multi-line failure message is never cut in the failures pane (it wraps)."""
    from workbench.engine.report import Failure

    path = work / "scenarios" / "hello-agent.yaml"
    words = [f"word{n:02d}" for n in range(40)]
    message = " ".join(words[:25]) + "\n" + " ".join(words[25:])

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            main.failures.show([Failure(3, 8, "assert", message)], "failed")
            await pilot.press("f12")
            await pilot.pause(0.1)
            shown = " ".join(" ".join(screen_text(app)).split())
            assert all(word in shown for word in words), [w for w in words if w not in shown]

    run(body)
