"""What a developer who has never seen the app ran into on a first try (120x40, 80x24, 200x50, in tmux)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets._toast import Toast

from tests.app.conftest import make_app, opened, play_to_end, run, screen_text, settle, wait_until


@pytest.mark.parametrize("size", [(100, 30), (120, 40), (200, 50)])
def test_a_toast_covers_neither_the_editor_nor_the_program(work: Path, size: tuple[int, int]) -> None:
    """The welcome sat over 14 columns of YAML at 120x40; moved over the right column, toasts then hid the top of
    the program's screen (where a prompt or the agent's first line is). They sit at the bottom right, over the
    timeline's rows, after the status line's text, which stays whole."""

    async def body() -> None:
        app = make_app(work / "scenarios", work)
        async with app.run_test(size=size, notifications=True) as pilot:
            await settle(pilot)
            await wait_until(pilot, lambda: bool(app.screen.query(Toast)), what="the welcome")
            main = app.main_screen

            def shown() -> list[Region]:
                return [t.region for t in app.screen.query(Toast) if t.display and t.parent.display]

            async def toasts_in_their_place() -> None:
                await wait_until(
                    pilot,
                    lambda: [bool(r.area) for r in shown()] == [True],
                    what="the newest notice, one at a time",
                )
                await pilot.pause(0.1)
                timeline = main.timeline.region
                toasts = shown()
                for toast in toasts:
                    # over the timeline's rows; a long message (a saved file's path) grows up over its border
                    assert timeline.y <= toast.y and toast.bottom < timeline.bottom, (toast, timeline)
                    assert toast.right < size[0], "inside the timeline's border"
                    for pane in (main.editor_pane.region, main.panes.region):
                        assert not toast.overlaps(pane), (toast, pane)
                assert any(main.timeline.status in row for row in screen_text(app)), "the status is whole"

            await toasts_in_their_place()
            main.editor_pane.save()  # a later toast too
            await toasts_in_their_place()

    run(body)


@pytest.mark.parametrize("size", [(120, 40), (200, 50)])
def test_a_toast_leaves_a_long_status_whole(work: Path, size: tuple[int, int]) -> None:
    """A toast as wide as its message, at the right, still hid the end of a long status ("viewing a recorded
    step"): the toasts start after the status text, wrapping in what is left (40 columns at least)."""

    async def body() -> None:
        app = make_app(work / "scenarios" / "hello-agent.yaml", work)
        async with app.run_test(size=size, notifications=True) as pilot:
            await settle(pilot)
            main = app.main_screen
            await play_to_end(pilot)
            await pilot.press("f7")
            await wait_until(
                pilot, lambda: "viewing a recorded step" in main.timeline.status, what="the step"
            )
            main.notify("terminal zoomed: z again gives the editor its width; z on the terminal", timeout=30)
            await wait_until(pilot, lambda: bool(pilot.app.screen.query(Toast)), what="the toast")
            await pilot.pause(0.1)
            assert any(main.timeline.status in row for row in screen_text(pilot.app)), "the status is whole"
            for toast in [t.region for t in pilot.app.screen.query(Toast)]:
                assert not toast.overlaps(main.terminal.region)
                rows = screen_text(pilot.app)[toast.y : toast.bottom]
                said = " ".join(
                    " ".join(row[toast.x : toast.right] for row in rows).replace("▌", " ").split()
                )
                assert "z on the terminal" in said, "the toast is whole"

    run(body)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
def test_one_pane_at_a_time_a_long_notice_is_said_whole_on_two_rows(
    work: Path, size: tuple[int, int]
) -> None:
    """At 80x24 the end of a recording's notice was cut ("...; they run from the next run on…"): the key that
    acts on it (ctrl+r) was lost. A notice longer than the status row takes the step's row above it too."""
    notice = "recorded 2 steps into the editor; ctrl+s saves; they run from the next run on (ctrl+r restarts)"

    async def body() -> None:
        app = make_app(work / "scenarios" / "hello-agent.yaml", work)
        async with app.run_test(size=size, notifications=True) as pilot:
            await settle(pilot)
            main = app.main_screen
            app.notify(notice, timeout=30)
            await wait_until(pilot, lambda: main.timeline.notice is not None, what="the notice")
            await pilot.pause(0.1)
            timeline = main.timeline.region
            rows = [row.strip() for row in screen_text(app)[timeline.y : timeline.bottom]]
            said = " ".join(row for row in rows if row and row.split()[0] in notice.split())
            assert said == notice, rows

    run(body)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
def test_one_pane_at_a_time_the_notices_are_said_on_the_status_line(
    work: Path, size: tuple[int, int]
) -> None:
    """At 80x24 the welcome sat over the editor's top rows until a key (and a saved file's toast for 2 s): one
    pane at a time, the pane has the whole width, so no toast shows; the status line says the newest notice
    for as long as its toast would have been there, as it says focus mode's keys."""

    async def body() -> None:
        app = make_app(work / "scenarios", work)
        async with app.run_test(size=size, notifications=True) as pilot:
            await settle(pilot)
            main = app.main_screen
            await wait_until(pilot, lambda: bool(app._notifications), what="the welcome")
            await pilot.pause(0.1)

            def shown() -> str:
                return "\n".join(screen_text(app))

            editor = main.editor_pane.region
            rows = screen_text(app)[editor.y : editor.bottom]
            assert not any("Welcome" in row or "F5 runs it" in row for row in rows), "\n".join(rows)
            for line in main.editor.document.lines[:3]:
                assert line[:40] in shown()
            status_row = next(row for row in screen_text(app) if "Welcome" in row)
            assert "F5 runs it" in status_row and main.timeline.region.contains(
                2, screen_text(app).index(status_row)
            )
            await pilot.press("down")  # the welcome goes with the first key, and the status is back
            await pilot.pause(0.1)
            assert "Welcome" not in shown() and "idle: F5 play" in shown()
            main.editor_pane.save()
            await pilot.pause(0.1)
            rows = screen_text(app)[editor.y : editor.bottom]
            assert not any("saved" in row for row in rows)
            assert any(row.strip().startswith("saved ") for row in screen_text(app)[main.timeline.region.y :])

    run(body)


def test_the_theme_picker_offers_only_the_workbench_themes(work: Path) -> None:
    """The palette's theme picker listed Textual's 20 themes beside ours; theirs have no syntax colours and no
    contrast check (docs/app.md, Themes), so choosing one left the editor in another theme's colours."""
    from workbench.app.themes import load_themes

    ours = {theme.name for theme in load_themes()[0]}

    async def body() -> None:
        async with opened(
            work / "scenarios" / "hello-agent.yaml", work, (120, 40), theme_name="textual-light"
        ) as pilot:
            app = pilot.app
            assert set(app.available_themes) == ours
            assert app.theme == "workbench-dark", "not ours: a warning, and the default theme"
            assert any("unknown theme 'textual-light'" in warning for warning in app._startup_warnings)
            await pilot.press("ctrl+p", *"theme")
            await wait_until(pilot, lambda: "Change the current theme" in "".join(screen_text(app)),
                             what="the theme command")  # fmt: skip
            await pilot.press("enter")
            await wait_until(pilot, lambda: "workbench-light" in "".join(screen_text(app)), what="the picker")
            shown = "\n".join(screen_text(app))
            assert not any(name in shown for name in ("textual-dark", "dracula", "nord", "gruvbox"))
            assert all(name in shown for name in ours)

    run(body)


def _classes_with_keys() -> list[type]:
    """Every class of the app's package that declares key bindings of its own."""
    import importlib
    import inspect
    import pkgutil

    import workbench.app

    found: list[type] = []
    for info in pkgutil.walk_packages(workbench.app.__path__, "workbench.app."):
        module = importlib.import_module(info.name)
        found += [cls for _, cls in inspect.getmembers(module, inspect.isclass)
                  if cls.__module__ == module.__name__ and cls.__dict__.get("BINDINGS")]  # fmt: skip
    return found


def test_the_help_lists_the_keys_of_every_class_that_has_some(work: Path) -> None:
    """The editor's ctrl+home/ctrl+end and the record dialog's Esc were in no help row: the help's list of owners
    was written by hand. Every class with bindings is found here by walking the package."""
    from workbench.app.screens.help import HelpScreen, binding_owners

    owners = {owner for _, owner in binding_owners()}
    missing = [cls.__name__ for cls in _classes_with_keys() if cls not in owners]
    assert not missing, f"classes whose keys the help does not list: {missing}"

    async def body() -> None:
        async with opened(work / "scenarios" / "hello-agent.yaml", work, (120, 40)) as pilot:
            app = pilot.app
            await pilot.press("f1")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
            ids = {row[3] for row in app.screen.rows}
            assert {"editor-document-start", "editor-select-document-end", "record-cancel"} <= ids

    run(body)


@pytest.mark.parametrize("size", [(200, 50), (80, 24)])
def test_the_scenario_list_fills_its_column(work: Path, size: tuple[int, int]) -> None:
    """At 200x50 the list's box ended under its last file, half-way down beside a full-height editor."""

    async def body() -> None:
        async with opened(work / "scenarios", work, size) as pilot:
            main = pilot.app.main_screen
            if main.workspace.tabs:
                await pilot.press("alt+1")
                await wait_until(pilot, lambda: main.browser.display, what="the scenario list's tab")
                await pilot.pause(0.05)
                assert main.browser.region.bottom == main.timeline.region.y
            else:
                assert main.browser.display
                assert main.browser.region.height == main.editor_pane.region.height

    run(body)


@pytest.mark.parametrize("key", ["mock-agent", "program", "real-agent", "simulation"])
def test_a_new_scenario_fits_the_editors_width(key: str) -> None:
    """A new file from the program template opened with its two comment lines cut at the editor's edge (88
    columns in 60): what it said was out of sight, and its advice (F8 before alt+r) was out of date."""
    from workbench.app.layout import YAML_COLUMNS
    from workbench.app.templates import template_named

    text = template_named(key).render("a-scenario-of-mine")
    wide = [line for line in text.splitlines() if len(line) > YAML_COLUMNS]
    assert not wide, wide
    assert "F8 first" not in text


@pytest.mark.parametrize("template", ["", "mock-agent", "program", "real-agent", "simulation"])
def test_the_first_file_and_every_new_one_need_no_sideways_scrolling_at_120x40(
    work: Path, template: str
) -> None:
    """The example the app opens first began with two comment lines of 77 columns, cut at "the built-in mock
    agent think" at 120x40: what it said was out of sight. That file, and any file made from a template, is
    read at 120x40 without scrolling sideways; the comments of every example fit the editor's 60 columns."""
    from workbench.app.layout import YAML_COLUMNS
    from workbench.app.templates import template_named

    path = work / "scenarios"
    if template:
        path = work / "scenarios" / "mine.yaml"
        path.write_text(template_named(template).render("a-scenario-of-mine"), encoding="utf-8")

    async def body() -> None:
        async with opened(path, work, (120, 40)) as pilot:
            editor = pilot.app.main_screen.editor
            assert editor.document.line_count > 5
            assert editor.max_scroll_x == 0, [
                line for line in editor.document.lines if len(line) > YAML_COLUMNS
            ]

    run(body)
    for example in sorted((work / "scenarios").glob("*.yaml")):
        comments = [line.split("# ", 1)[1] for line in example.read_text(encoding="utf-8").splitlines()
                    if line.lstrip().startswith("#")]  # fmt: skip
        assert all(len(comment) + 2 <= YAML_COLUMNS for comment in comments), example.name


def test_steps_recorded_into_a_running_run_leave_its_steps_at_their_lines(work: Path) -> None:
    """alt+r into a new program scenario, two keys and a screenshot, ctrl+]: the steps went into the editor, but
    the run's timeline kept the old line numbers, so F8 then lit up a recorded line for the template's
    `print(6 * 7)` step, and the status line said nothing of the steps made while recording."""
    from workbench.app.templates import template_named

    path = work / "scenarios" / "mine.yaml"
    path.write_text(template_named("program").render("mine"), encoding="utf-8")

    async def body() -> None:
        async with opened(path, work, (120, 40)) as pilot:
            main = pilot.app.main_screen
            await pilot.press("alt+r")
            await wait_until(pilot, lambda: main.recorder is not None, what="recording")
            await wait_until(pilot, lambda: ">>>" in main.terminal.text(), what="the prompt")
            await pilot.press(*"1+1", "enter")
            await wait_until(pilot, lambda: "\n2\n" in main.terminal.text(), what="the answer")
            await pilot.pause(0.1)
            await pilot.press("ctrl+backslash")
            await wait_until(pilot, lambda: "recording: 3 steps so far" in main.timeline.status,
                             what="the count of steps in the status line")  # fmt: skip
            assert "Esc stops" not in main.timeline.status, "Esc goes to the program while recording"
            await pilot.press("ctrl+right_square_bracket")
            await wait_until(pilot, lambda: "recorded-1" in main.editor.text, what="the steps in the editor")
            await settle(pilot)
            assert main.live
            lines = main.editor.text.splitlines()
            step_lines = [lines[mark.line - 1].strip() for mark in main.timeline.marks]
            assert step_lines == ["- advanceMs: 300", '- [0, "print(6 * 7)<Enter>"]', "- advanceMs: 300",
                                  "- assert:", '- [0, "<C-d>"]', "- advanceMs: 100"], step_lines  # fmt: skip
            await pilot.press("f8")
            await wait_until(pilot, lambda: 1 in main.records, what="the next step")
            await pilot.pause(0.1)
            shown = main.editor.current_step_line
            assert shown is not None and "print(6 * 7)" in lines[shown], (shown, lines)

    run(body)


def test_the_screenshot_message_counts_rows_in_english_and_never_for_a_missing_capture(work: Path) -> None:
    """A one-word change said "5 cells in 1 rows differ"; a golden with no capture (a recording's, not saved)
    said "10 cells in 3 rows differ", counting the golden against an empty screen."""
    from workbench.app.widgets.diff import ScreenshotDiff

    folder = work / "goldens" / "hello-agent" / "80x24"
    done = folder / "done.golden"
    done.write_text(
        done.read_text(encoding="utf-8").replace("Done: hello.py", "Done: HELLO.py"), encoding="utf-8"
    )
    (folder / "unsaved.golden").write_text("a screen no step of the file takes\n", encoding="utf-8")

    def message(diff: ScreenshotDiff) -> str:
        return str(diff.query_one("#shot-message").render())

    async def body() -> None:
        async with opened(work / "scenarios" / "hello-agent.yaml", work, (120, 40)) as pilot:
            await play_to_end(pilot)
            await pilot.press("ctrl+t")
            diff = pilot.app.main_screen.diff
            labels = [pair.label for pair in diff.pairs]
            await wait_until(pilot, lambda: "done: mismatch" in message(diff), what="the mismatch")
            assert "5 cells in 1 row differ" in message(diff), message(diff)
            await pilot.press(*["down"] * (labels.index("unsaved") - labels.index("done")))
            await wait_until(pilot, lambda: message(diff).startswith("unsaved:"), what="the unsaved golden")
            assert "differ" not in message(diff), message(diff)

    run(body)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_a_long_scenario_line_in_the_step_inspector_wraps_beside_its_number(
    work: Path, size: tuple[int, int]
) -> None:
    """Step 3 of hello-agent at 120x40: `content: I'll create hello.py.` wrapped to the pane's left edge, under
    the line numbers, as if it were a line of its own."""

    async def body() -> None:
        async with opened(work / "scenarios" / "hello-agent.yaml", work, size) as pilot:
            main = pilot.app.main_screen
            await play_to_end(pilot)
            main.show_step(2)
            await pilot.press("f11")
            await wait_until(pilot, lambda: main.inspector.details is not None and main.inspector.details.index == 2,
                             what="step 3 in the inspector")  # fmt: skip
            await pilot.pause(0.1)
            box = main.inspector.content_region
            rows = [row[box.x : box.right] for row in screen_text(pilot.app)[box.y : box.bottom]]
            start = next(i for i, row in enumerate(rows) if "Scenario line 18" in row)
            end = next(i for i, row in enumerate(rows) if "Screen before" in row)
            block = [row for row in rows[start + 1 : end] if row.strip()]
            assert "hello.py." in "".join(block), block
            assert all("│" in row for row in block), f"a wrapped line keeps the gutter: {block}"
            assert len({row.index("│") for row in block}) == 1, block

    run(body)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_every_binding_id_in_the_help_is_whole(work: Path, size: tuple[int, int]) -> None:
    """At 80x24 the help cut the ids the keymap file needs: `editor-document-s…`, `terminal-record-s…`."""
    from workbench.app.screens.help import HelpScreen

    async def body() -> None:
        async with opened(work / "scenarios" / "hello-agent.yaml", work, size) as pilot:
            app = pilot.app
            await pilot.press("f1")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
            dialog = app.screen.query_one("#help-dialog")
            await pilot.pause(0.1)
            seen = ""
            for y in range(0, dialog.max_scroll_y + dialog.size.height, max(1, dialog.size.height - 2)):
                dialog.scroll_to(y=y, animate=False, immediate=True)
                await pilot.pause(0.02)
                seen += "\n".join(screen_text(app))
            cut = [row[3] for row in app.screen.rows if f" {row[3]} " not in seen.replace("│", " ")]
            assert not cut, f"ids not shown whole: {cut}"

    run(body)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_no_toast_covers_the_program_when_the_keys_go_to_it(work: Path, size: tuple[int, int]) -> None:
    """alt+r put two toasts over the top of the program's screen (where the REPL's >>> is) until the first
    key: focus mode's border, the footer and the status line already say where the keys go."""
    from workbench.app.templates import template_named

    path = work / "scenarios" / "mine.yaml"
    path.write_text(template_named("program").render("mine"), encoding="utf-8")

    async def body() -> None:
        app = make_app(path, work)
        async with app.run_test(size=size, notifications=True) as pilot:
            await settle(pilot)
            main = app.main_screen
            await pilot.press("alt+r")
            await wait_until(pilot, lambda: main.recorder is not None, what="recording")
            await wait_until(pilot, lambda: ">>>" in main.terminal.text(), what="the prompt")
            await pilot.pause(0.2)
            program = main.terminal.region
            covering = [t.region for t in app.screen.query(Toast) if t.region.overlaps(program)]
            assert not covering, (covering, program)
            assert "● recording" in main.timeline.status and "^] ends" in str(main.terminal.border_subtitle)
            shown = screen_text(app)
            for what in ("● recording:", "● recording ·"):  # the status line, the terminal's border
                row = next(row for row in shown if what in row)
                assert "…" not in row, f"cut: {row}"

    run(body)


def test_the_record_dialog_names_its_fields_once_they_are_filled(work: Path) -> None:
    """The record-a-session dialog opened with an unlabelled URL: its fields said what they were by their
    placeholders only, which a filled field no longer shows."""
    from workbench.app.screens.record import RecordScreen

    async def body() -> None:
        async with opened(work / "scenarios" / "hello-agent.yaml", work, (80, 24)) as pilot:
            app = pilot.app
            await pilot.press("ctrl+p", *"record a session")
            await wait_until(pilot, lambda: "record a session" in "".join(screen_text(app)), what="the entry")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, RecordScreen), what="the dialog")
            await pilot.press(*"fix it")
            await pilot.pause(0.1)
            shown = "\n".join(screen_text(app))
            assert all(label in shown for label in RecordScreen.LABELS.values()), shown

    run(body)


def test_a_validation_that_ends_while_the_app_closes_is_dropped(work: Path) -> None:
    """Under load (the whole app suite with -n 2) a validation came back after the diagnostics list was gone
    and ended the closing app with NoMatches('#diagnostics'), failing test_show_hides_keys_that_do_nothing."""
    from workbench.app.model import validate_text

    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        async with opened(path, work, (120, 40)) as pilot:
            pane = pilot.app.main_screen.editor_pane
            result = validate_text(path, pane.editor.text)
            await pane.diagnostics.remove()  # as the closing app takes its children away
            pane._validated(path, pane.editor.text, result)

    run(body)
