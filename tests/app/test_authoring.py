"""Issue 15, points 7-8 and authoring by recording: new scenarios, a browser that follows the folder,
find / go to line / auto-indent / the step line, and a recorded session that replays green in CI."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.app.conftest import make_app, run, screen_text, settle, wait_until
from tests.chat_agent import CHAT_AGENT
from workbench.app.core.recording import InputRecorder
from workbench.app.model import validate_text
from workbench.app.screens.new import NewScenarioScreen
from workbench.app.templates import TEMPLATES, new_file_name
from workbench.engine.runner import RunOptions, run_scenario
from workbench.scenario.diagnostics import Severity
from workbench.terminal.keys import encode_keys, key_notation

SIZES = [(120, 40), (80, 24)]

REPL = """\
name: recorded-repl
command: [env, PYTHON_BASIC_REPL=1, python3, -q]
terminal: {width: 60, height: 12}
timeline:
  - advanceMs: 300
  - advanceMs: 100
"""


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.key)
def test_every_template_is_a_valid_scenario(template: object, tmp_path: Path) -> None:
    from workbench.app.templates import Template

    assert isinstance(template, Template)
    path = tmp_path / new_file_name(f"My {template.key} test")
    result = validate_text(path, template.render(path.stem))
    assert [d.message for d in result.diagnostics if d.severity == Severity.ERROR] == []
    assert result.scenario is not None and result.scenario.name == path.stem and result.schedule is not None


@pytest.mark.parametrize("key", ["mock-agent", "program", "simulation"])
def test_templates_run_green(key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new scenario starts green: the templates that need no installed agent pass as they are, as the
    app runs them (`--ci`: no golden is written, so a template has no screenshot step without one)."""
    from workbench.app.templates import template_named

    monkeypatch.chdir(tmp_path)
    path = tmp_path / f"{key}.yaml"
    path.write_text(template_named(key).render(key), encoding="utf-8")
    result = asyncio.run(
        run_scenario(path, RunOptions(ci=True, goldens_dir=tmp_path / "goldens", out_dir=tmp_path / "runs"))
    )
    assert result.status == "passed", result.failures


@given(st.text(max_size=30))
def test_new_file_names_are_plain(name: str) -> None:
    file = new_file_name(name)
    assert file.endswith(".yaml") and "/" not in file and not file.startswith("-") and " " not in file


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F), max_size=20))
@example("\x1b<")
@example("\x1b>")
@example("\x1b ")
def test_recorded_keys_type_what_was_typed(data: str) -> None:
    """Key notation of the bytes typed, encoded again, is the same bytes (cursor keys in normal mode)."""
    assert encode_keys(key_notation(data)).decode() == data


@pytest.mark.parametrize("size", SIZES)
def test_new_scenario_browser_follows_the_folder_and_filters(work: Path, size: tuple[int, int]) -> None:
    """Point 7: ctrl+n from a template; a file written outside appears; typing filters; names do not wrap."""
    folder = work / "scenarios"

    async def body() -> None:
        app = make_app(folder, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: isinstance(app.screen, NewScenarioScreen), what="the dialog")
            await pilot.press(*"login flow", "down", "enter")  # the second template: a program
            await wait_until(pilot, lambda: main.path == folder / "login-flow.yaml", what="the new file")
            await settle(pilot)
            assert (
                "command: [env, PYTHON_BASIC_REPL=1, python3, -q]" in (folder / "login-flow.yaml").read_text()
            )
            assert main.validation is not None and not main.validation.errors
            assert any(e.path.name == "login-flow.yaml" for e in main.browser.entries)
            # a file written by another program while the app runs appears by itself
            long_name = "a-scenario-with-a-rather-long-name-" + "that-goes-on-" * 5 + "and-does-not-fit.yaml"
            (folder / long_name).write_text(TEMPLATES[0].render("long"), encoding="utf-8")
            await wait_until(pilot, lambda: any(e.path.name == long_name for e in main.browser.entries),
                             what="the watcher")  # fmt: skip
            await pilot.press("ctrl+b")
            await pilot.pause(0.1)
            assert main.browser.display and main.browser.has_focus
            rows = screen_text(app)
            [row] = [r for r in rows if "a-scenario-" in r]  # one row: the name is cut, not wrapped
            assert "…" in row and not any("fit.yaml" in r for r in rows), (
                "cut with an ellipsis, never wrapped"
            )
            # folders are a tree; typing filters
            assert any("▾ claudeless/" in r for r in rows)
            await pilot.press(*"hello")
            await pilot.pause(0.1)
            shown = [main.browser.entries[i].path.name for i in main.browser._rows if i is not None]
            assert shown == ["hello-agent.yaml"] and "filter: hello" in str(main.browser.border_subtitle)
            await pilot.press("enter")
            await wait_until(pilot, lambda: main.path is not None and main.path.name == "hello-agent.yaml",
                             what="opening the filtered file")  # fmt: skip

    run(body)


def test_edit_a_new_file_lists_its_folder(work: Path) -> None:
    """Point 7: `workbench edit new.yaml` starts from empty with the folder's scenarios in the browser."""
    path = work / "scenarios" / "brand-new.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            main = app.main_screen
            assert main.editor.text == "" and main.path == path
            assert any(e.path.name == "hello-agent.yaml" for e in main.browser.entries)

    run(body)


@pytest.mark.parametrize("size", SIZES)
def test_find_go_to_line_indent_and_the_step_line(work: Path, size: tuple[int, int]) -> None:
    """Point 8."""
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            editor = main.editor
            await pilot.press("ctrl+f")
            assert main.query_one("#find").has_focus
            await pilot.press(*"writeFile", "enter")
            row = next(i for i, line in enumerate(editor.text.splitlines()) if "writeFile" in line)
            assert editor.selection.end[0] == row and editor.selected_text == "writeFile"
            await pilot.press("ctrl+a", "ctrl+k", *":3", "enter")  # clear the bar, go to line 3
            assert editor.cursor_location[0] == 2 and editor.has_focus
            # Enter keeps the YAML indentation, one level more after a key
            editor.move_cursor((row, len(editor.document.get_line(row))))
            await pilot.press("enter")
            indent = editor.document.get_line(row + 1)
            assert indent == " " * (
                len(editor.document.get_line(row)) - len(editor.document.get_line(row).lstrip()) + 4
            )
            await pilot.press("ctrl+z")
            # the step the timeline is at is a highlighted line
            main.timeline.move_cursor(2)
            await pilot.pause(0.05)
            mark = main.timeline.marks[2]
            assert editor.current_step_line == mark.line - 1
            y = mark.line - 1 - int(editor.scroll_offset.y)
            styles = {seg.style.bgcolor for seg in editor.render_line(y) if seg.style and seg.text.strip()}
            other = {seg.style.bgcolor for seg in editor.render_line(y + 1) if seg.style and seg.text.strip()}
            assert styles and styles != other, "the step's line has its own background"

    run(body)


async def record_answer_stop_and_save(pilot: Any, main: Any) -> None:
    """While recording into the REPL: ask it 6*7, take a screenshot step, end, stop the run, save."""
    await pilot.press(*"print(6*7)", "enter")
    await wait_until(pilot, lambda: "42" in main.terminal.text(), what="the answer")
    await pilot.pause(0.3)
    await pilot.press("ctrl+backslash")
    await pilot.pause(0.1)
    await pilot.press("ctrl+right_square_bracket")
    await wait_until(pilot, lambda: "recorded-1" in main.editor.text, what="the steps in the editor")
    assert "userInputs" in main.editor.text and "<Enter>" in main.editor.text
    await pilot.pause(0.1)  # shown from the left edge, the cursor on the steps (at 80x24 too)
    assert main.editor.display and main.editor.scroll_offset.x == 0
    assert not pilot.app._notifications or all("keys go to the program" not in n.message
                                               for n in pilot.app._notifications)  # fmt: skip
    await pilot.press("escape")  # stop the run
    await wait_until(pilot, lambda: main.result is not None, what="the stop")
    await pilot.press("ctrl+s")
    await pilot.pause(0.1)


def assert_replays_green_in_ci(path: Path, work: Path) -> None:
    """`run --ci` of the recorded file passes, with the goldens the recording wrote."""
    options = RunOptions(ci=True, goldens_dir=work / "goldens", out_dir=work / "ci-runs")
    result = asyncio.run(run_scenario(path, options))
    assert result.status == "passed", (result.failures, path.read_text())


def test_recording_round_trip_replays_green_in_ci(work: Path) -> None:
    """Record keys into a Python REPL, with a screenshot; save; `run --ci` passes with the golden recorded."""
    path = work / "scenarios" / "recorded-repl.yaml"
    path.write_text(REPL, encoding="utf-8")

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f8")  # the REPL starts; the run holds after the first step
            await wait_until(
                pilot, lambda: ">>>" in main.terminal.text() and 0 in main.records, what="step 1"
            )
            await pilot.press("alt+r")
            assert main.terminal.passthrough and main.recorder is not None
            assert "recording" in str(main.terminal.border_subtitle)
            await record_answer_stop_and_save(pilot, main)

    run(body)
    golden = work / "goldens" / "recorded-repl" / "60x12" / "recorded-1.golden"
    assert golden.is_file() and "42" in golden.read_text()
    assert "- screenshot: recorded-1" in path.read_text(), path.read_text()
    assert_replays_green_in_ci(path, work)


def test_steps_recorded_after_a_step_with_entries_go_into_the_step_list(work: Path) -> None:
    """After a `userInputs` step (its entries are indented deeper than the steps), the recorded steps are
    steps of the timeline after it, not entries of it: the file still loads and replays green."""
    path = work / "scenarios" / "recorded-repl.yaml"
    path.write_text(
        REPL.replace(
            "  - advanceMs: 300\n", '  - userInputs:\n      - [0, "1+1<Enter>"]\n  - advanceMs: 300\n'
        )
    )

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f8")
            await wait_until(pilot, lambda: 0 in main.records, what="step 1")
            await pilot.press("alt+r")
            await wait_until(pilot, lambda: main.recorder is not None, what="recording")
            await record_answer_stop_and_save(pilot, main)

    run(body)
    lines = path.read_text().splitlines()
    assert [line for line in lines if "userInputs" in line] == ["  - userInputs:", "  - userInputs:"], lines
    assert_replays_green_in_ci(path, work)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_recording_starts_from_a_finished_run(work: Path, size: tuple[int, int]) -> None:
    """After a run has ended, alt+r starts a fresh run held after its first step and records from there
    (F8 would move along the finished run's steps instead); the steps replay green in CI."""
    path = work / "scenarios" / "recorded-repl.yaml"
    path.write_text(REPL, encoding="utf-8")

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f5")
            await wait_until(pilot, lambda: main.result is not None, what="the first run's end")
            first = main.run
            await pilot.press("alt+r")
            await wait_until(pilot, lambda: main.recorder is not None, what="recording")
            assert main.run is not first and main.live, "a fresh run"
            assert main.terminal.passthrough and main.terminal.display, "the terminal shows, keys go to it"
            assert sorted(main.records) == [0], "held after its first step"
            await wait_until(pilot, lambda: ">>>" in main.terminal.text(), what="the prompt")
            await record_answer_stop_and_save(pilot, main)

    run(body)
    text = path.read_text()
    assert text.index("advanceMs: 300") < text.index("userInputs") < text.index("advanceMs: 100"), text
    assert_replays_green_in_ci(path, work)


def test_recorder_delays_and_screenshots() -> None:
    clock = [0.0]
    recorder = InputRecorder(shots=2, now=lambda: clock[0])
    for key in (b"l", b"s"):
        recorder.typed(key)
        clock[0] += 0.01
    clock[0] += 0.4
    recorder.typed(b"\r")
    assert recorder.screenshot() == "recorded-3"
    assert recorder.steps() == ['- userInputs:\n    - [0, "ls"]\n    - [420, "<Enter>"]', "- advanceMs: 720",
                                "- screenshot: recorded-3"]  # fmt: skip
    assert os.linesep not in recorder.yaml(4) or os.linesep == "\n"


def test_recording_a_real_agent_records_its_requests_as_llm_response_steps(work: Path) -> None:
    """Real-agent mode: what the agent asked the model while recording is an `llmResponse` step at its place."""
    import sys

    from workbench.engine.agent_requests import PLACEHOLDER
    from workbench.timeline.prepare import prepare

    agent = work / "chat_agent.py"  # an agent of our own, on the official SDK
    agent.write_text(CHAT_AGENT, encoding="utf-8")
    path = work / "scenarios" / "chat.yaml"
    path.write_text(f"name: chat\nmode: real-agent\ncommand: [{sys.executable}, {agent}]\n"
                    "terminal: {width: 60, height: 12}\ntimeline:\n  - advanceMs: 300\n  - advanceMs: 100\n", encoding="utf-8")  # fmt: skip

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("f8")
            await wait_until(pilot, lambda: ">" in main.terminal.text() and 0 in main.records, what="step 1")
            await pilot.press("alt+r")
            await pilot.press(*"hello", "enter")
            await wait_until(pilot, lambda: "[asked 1]" in main.terminal.text(), what="the agent's request")
            await pilot.press("ctrl+right_square_bracket")
            await wait_until(pilot, lambda: "llmResponse" in main.editor.text, what="the steps in the editor")
            await pilot.press("escape")
            await wait_until(pilot, lambda: main.result is not None, what="the stop")
            await pilot.press("ctrl+s")
            await pilot.pause(0.1)

    run(body)
    text = path.read_text()
    assert text.index('[0, "hello<Enter>"]') < text.index("llmResponse") < text.index(PLACEHOLDER), text
    assert 'after the prompt: "hello"' in text
    prepared = prepare(path)
    assert prepared.errors == [] and prepared.schedule is not None, prepared.errors
    # replayed, the agent gets the reply from the recorded step (the placeholder, until it is written)
    path.write_text(text.replace(PLACEHOLDER, "Hi there"), encoding="utf-8")
    result = asyncio.run(
        run_scenario(path, RunOptions(goldens_dir=work / "goldens", out_dir=work / "replay"))
    )
    assert result.status == "passed", result.failures
    [log] = (work / "replay").rglob("llm-requests.jsonl")
    assert "(line " in log.read_text(), "the request was answered by the recorded step"
