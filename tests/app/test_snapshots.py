"""Snapshot tests of every pane (pytest-textual-snapshot): the SVGs live in ``__snapshots__/``.

Each test opens the app in a private copy of ``scenarios/`` with relative paths, so
nothing in a picture depends on where the test runs; the cursor does not blink and
notifications are cleared before the picture is taken. The README's pictures in
``screenshots/app/`` are copies of some of these snapshots, and
``test_readme_pictures_are_the_snapshots`` keeps them the same. Update with
``python3 -m pytest tests/app/test_snapshots.py --snapshot-update`` after a change
you have looked at (the report is ``snapshot_report.html``).
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.app.conftest import play_to_end, wait_until
from tests.conftest import REPO
from workbench.app.app import WorkbenchApp
from workbench.app.screens.confirm import ConfirmScreen
from workbench.app.screens.main import MainScreen

SIZE = (160, 45)
SNAPSHOTS = Path(__file__).parent / "__snapshots__" / "test_snapshots"
README_PICTURES = {  # screenshots/app/<name>.svg -> the snapshot it copies
    "editor.svg": "test_editor_browser_and_timeline.svg",
    "terminal.svg": "test_terminal_after_a_run.svg",
    "screenshots.svg": "test_screenshot_diff_of_a_mismatch.svg",
    "step-back.svg": "test_step_back_shows_the_recorded_screen.svg",
    "diagnostics.svg": "test_diagnostics_of_an_invalid_scenario.svg",
    "light.svg": "test_light_theme.svg",
}

CAT = """\
name: typing
command: [sh, -c, "echo ready; exec cat"]
terminal: {width: 60, height: 10}
timeline:
  - userInputs:
      - [0, "from the scenario<Enter>"]
  - advanceMs: 100
"""

BROKEN = """\
name: broken
timeline:
  - llmResponse:
      - assistant:
          - [100, "fine so far"]
  - runCmd:
      cmd: ls
      staus: ok
  - nonsense: [1, 2]
  - advanceMs: -5
"""


@pytest.fixture(autouse=True)
def _private_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, example_goldens: Path) -> None:
    shutil.copytree(REPO / "scenarios", tmp_path / "scenarios")
    shutil.copytree(example_goldens, tmp_path / "goldens")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WORKBENCH_KEYMAP", str(tmp_path / "no-keymap.toml"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _app(path: str = "scenarios/hello-agent.yaml", **kwargs: Any) -> WorkbenchApp:
    return WorkbenchApp(Path(path), goldens_dir=Path("goldens"), out_dir=Path("runs"), **kwargs)


def _main(pilot: Any) -> MainScreen:
    return pilot.app.main_screen  # type: ignore[no-any-return]


async def _ready(pilot: Any) -> None:
    """Validation done, a steady cursor, no toasts."""
    await wait_until(pilot, lambda: _main(pilot).validation is not None, what="validation")
    _main(pilot).editor.cursor_blink = False
    await pilot.pause(0.1)
    pilot.app.clear_notifications()
    await pilot.pause()


def _over_the_editor(*keys: str) -> Callable[[Any], Awaitable[None]]:
    """Press ``keys``, which open a screen over the main one, and wait until every widget of the main
    screen has handled its messages too (the editor's blur, which hides its cursor): the snapshot's own
    wait covers the screen on top only, so what showed under it depended on how busy the machine was."""

    async def run_before(pilot: Any) -> None:
        await _ready(pilot)
        await pilot.press(*keys)
        await pilot.pause()
        loop = asyncio.get_running_loop()
        handled = []
        for widget in _main(pilot).walk_children(with_self=True):
            future = loop.create_future()
            if widget.call_later(future.set_result, None):
                handled.append(future)
        await asyncio.gather(*handled)
        await pilot.pause()

    return run_before


async def _run_to_end(pilot: Any) -> None:
    await _ready(pilot)
    await play_to_end(pilot)
    await pilot.pause(0.1)
    pilot.app.clear_notifications()
    await pilot.pause()


def _then(*steps: Callable[[Any], Awaitable[None]]) -> Callable[[Any], Awaitable[None]]:
    async def run_before(pilot: Any) -> None:
        for step in steps:
            await step(pilot)

    return run_before


def _mismatched_golden() -> None:
    golden = Path("goldens/hello-agent/80x24/done.golden")
    golden.parent.mkdir(parents=True, exist_ok=True)
    golden.write_text("\n".join(["✻ Mock agent · hello-agent".ljust(80), "> Create hello.py"] + [""] * 22))


def test_editor_browser_and_timeline(snap_compare: Any) -> None:
    assert snap_compare(_app("scenarios"), terminal_size=SIZE, run_before=_ready)


def test_diagnostics_of_an_invalid_scenario(snap_compare: Any) -> None:
    Path("scenarios/broken.yaml").write_text(BROKEN)

    async def jump(pilot: Any) -> None:
        await wait_until(pilot, lambda: bool(_main(pilot).validation and _main(pilot).validation.errors))
        await pilot.press("f4")
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(_app("scenarios/broken.yaml"), terminal_size=SIZE, run_before=_then(_ready, jump))


def test_terminal_after_a_run(snap_compare: Any) -> None:
    assert snap_compare(_app(), terminal_size=SIZE, run_before=_run_to_end)


def test_step_back_shows_the_recorded_screen(snap_compare: Any) -> None:
    async def back(pilot: Any) -> None:
        _main(pilot).timeline.move_cursor(3)
        await pilot.pause(0.1)

    assert snap_compare(_app(), terminal_size=SIZE, run_before=_then(_run_to_end, back))


def test_screenshot_diff_of_a_mismatch(snap_compare: Any) -> None:
    _mismatched_golden()
    assert snap_compare(_app(), terminal_size=SIZE, press=["ctrl+t"], run_before=_run_to_end)


def test_accept_asks_for_confirmation(snap_compare: Any) -> None:
    _mismatched_golden()

    async def accept(pilot: Any) -> None:
        await pilot.press("ctrl+t")
        _main(pilot).diff.query_one("#shot-list").focus()
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the confirmation")

    assert snap_compare(_app(), terminal_size=SIZE, run_before=_then(_run_to_end, accept))


def test_focus_mode_on_the_terminal(snap_compare: Any) -> None:
    Path("typing.yaml").write_text(CAT)

    async def focus(pilot: Any) -> None:
        main = _main(pilot)
        await pilot.press("f8")
        await wait_until(
            pilot, lambda: main.terminal.text().count("from the scenario") == 2, what="cat's echo"
        )
        await pilot.press("ctrl+g")
        await pilot.pause(0.1)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(_app("typing.yaml"), terminal_size=SIZE, run_before=_then(_ready, focus))


def test_help_screen(snap_compare: Any) -> None:
    assert snap_compare(_app(), terminal_size=SIZE, run_before=_over_the_editor("f1"))


def test_command_palette(snap_compare: Any) -> None:
    assert snap_compare(_app(), terminal_size=SIZE, run_before=_over_the_editor("ctrl+p", *"screenshots"))


def test_light_theme(snap_compare: Any) -> None:
    assert snap_compare(_app(theme_name="workbench-light"), terminal_size=SIZE, run_before=_run_to_end)


def test_high_contrast_theme(snap_compare: Any) -> None:
    assert snap_compare(
        _app(theme_name="workbench-high-contrast"), terminal_size=SIZE, run_before=_run_to_end
    )


def test_show_a_recorded_run_read_only(snap_compare: Any) -> None:
    import asyncio

    from workbench.engine.runner import RunOptions, run_scenario

    result = asyncio.run(run_scenario(Path("scenarios/hello-agent.yaml"),
                                      RunOptions(speed=None, goldens_dir=Path("goldens"), out_dir=Path("runs"))))  # fmt: skip
    assert result.status == "passed"
    recorded = next(Path("runs").glob("*/*/*/trace.jsonl")).parent
    shutil.copytree(recorded, "artifact")  # a fixed name: the folder is shown in the status line

    async def settle(pilot: Any) -> None:
        await pilot.pause(0.2)
        pilot.app.clear_notifications()
        await pilot.pause()

    app = WorkbenchApp(None, goldens_dir=Path("goldens"), out_dir=Path("runs"), run_dir=Path("artifact"))
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_layout_at_120x40_after_a_run(snap_compare: Any) -> None:
    """The terminal pane keeps the program's 80 columns and its border; the browser makes room."""
    assert snap_compare(_app(), terminal_size=(120, 40), run_before=_run_to_end)


def test_layout_at_80x24_one_pane_with_tabs(snap_compare: Any) -> None:
    async def terminal_tab(pilot: Any) -> None:
        _main(pilot).workspace.show_view("terminal")
        await pilot.pause(0.1)

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=_then(_run_to_end, terminal_tab))


def test_failures_pane(snap_compare: Any) -> None:
    async def failures(pilot: Any) -> None:
        await pilot.press("f12")
        await pilot.pause(0.1)

    _mismatched_golden()
    assert snap_compare(_app(), terminal_size=SIZE, run_before=_then(_run_to_end, failures))


def test_readme_pictures_are_the_snapshots() -> None:
    pictures = REPO / "screenshots" / "app"
    for picture, snapshot in README_PICTURES.items():
        assert (pictures / picture).read_bytes() == (SNAPSHOTS / snapshot).read_bytes(), (
            f"screenshots/app/{picture} is not the snapshot {snapshot}: copy it after --snapshot-update"
        )
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for picture in README_PICTURES:
        assert f"screenshots/app/{picture}" in readme


if (
    __name__ == "__main__"
):  # python3 -m tests.app.test_snapshots: copy the README's pictures from the snapshots
    for _picture, _snapshot in README_PICTURES.items():
        shutil.copyfile(SNAPSHOTS / _snapshot, REPO / "screenshots" / "app" / _picture)
        print(f"screenshots/app/{_picture} <- {_snapshot}")
