"""The app starts fast: it loads no server (aiohttp, the ACP SDK) and no engine until a run needs one, no
screen model (pyte), schema or YAML until the first validation or screen after its first frame, and the
garbage collector does not scan start-up's objects."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.app.conftest import SIZE, make_app, run, settle
from tests.conftest import REPO

LATER = {
    "aiohttp", "acp", "httpx", "selenium", "watchfiles",  # servers, the browser test, the file watcher
    "workbench.engine.runner", "workbench.engine.drivers",  # the engine: loaded by the first run
    "pyte", "workbench.terminal",  # the screen model: the first run or recorded screen
    "yaml", "workbench.scenario.model", "workbench.scenario.loader",  # the first validation, the file list
    "workbench.engine.report", "workbench.engine.trace", "workbench.engine.options", "workbench.clock",
    "workbench.app.core.inspect",  # a run's records: the first run, recorded trace or inspected step
    "workbench.atomic",  # the first save
}  # fmt: skip


def test_the_app_loads_no_server_library_and_no_engine_at_start() -> None:
    code = (
        "import sys\nfrom workbench.app.app import WorkbenchApp\n"
        f"print(sorted(m for m in sys.modules if m in {sorted(LATER)!r} or m.split('.')[0] in {sorted(LATER)!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_command_line_to_the_app_loads_no_agent_registry() -> None:
    """`workbench PATH` parses its arguments without the agent presets (`--agent`'s help lists them, and
    only `--help` needs them); the help still lists them."""
    code = (
        "import sys\nfrom workbench.cli import build_parser\n"
        "args = build_parser('edit').parse_args(['edit', 'x.yaml', '--agent', 'codex'])\n"
        "print(args.agent, sorted(m for m in sys.modules if m.startswith('workbench.llm')))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "codex []"
    shown = subprocess.run([sys.executable, "-m", "workbench", "edit", "--help"], cwd=REPO, capture_output=True,
                           text=True, check=True)  # fmt: skip
    assert "real-agent mode: the agent preset" in " ".join(shown.stdout.split())
    assert "claude-code" in shown.stdout


AFTER_THE_FIRST_FRAME = (
    "pyte",
    "yaml",
    "workbench.terminal",
    "workbench.scenario.model",
    "workbench.scenario.loader",
)
NOT_BEFORE_A_RUN = (
    "workbench.engine.report",
    "workbench.engine.trace",
    "workbench.engine.options",
    "workbench.clock",
)


def test_the_first_frame_of_a_file_is_drawn_before_the_screen_model_the_schema_and_yaml_load(
    work: Path,
) -> None:
    """What the first frame does not show (the file list, the validation, a program's screen) loads after it,
    and then it does load: the file is validated and listed. A run's records (the engine's report, trace and
    options) wait for a run."""
    code = f"""import sys
from pathlib import Path
from workbench.app.app import WorkbenchApp
LATER = {AFTER_THE_FIRST_FRAME!r}
RUN = {NOT_BEFORE_A_RUN!r}
app = WorkbenchApp(Path("scenarios/hello-agent.yaml"), goldens_dir=Path("goldens"), out_dir=Path("runs"))
show = app._display
def loaded():
    return sorted(m for m in LATER if m in sys.modules)
def first_frame(screen, update):
    show(screen, update)
    if update is not None and app._display is first_frame:
        app._display = show
        print("at the first frame", loaded(), [m for m in RUN if m in sys.modules], flush=True)
        def done():
            main = app.main_screen
            if main.validation is None or not main.browser.entries:
                app.set_timer(0.05, done)
                return
            print("validated", loaded(), len(main.browser.entries) > 1, flush=True)
            app.exit()
        done()
app._display = first_frame
app.run(headless=True, size=(120, 40))
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "at the first frame [] []"
    assert lines[1] == f"validated {sorted(AFTER_THE_FIRST_FRAME)!r} True"


def test_the_collector_is_off_while_the_app_starts_and_on_after_its_first_frame(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import workbench.app
    from workbench.app.app import WorkbenchApp

    seen: dict[str, bool] = {}

    def run(app: WorkbenchApp, **kwargs: object) -> None:
        seen["while starting"] = gc.isenabled()

        async def body() -> None:
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                seen["after the first frame"] = gc.isenabled()

        asyncio.run(body())

    monkeypatch.setattr(WorkbenchApp, "run", run)
    try:
        assert workbench.app.main(work / "scenarios" / "hello-agent.yaml", goldens_dir=work / "goldens") == 0
    finally:
        gc.enable()
    assert seen == {"while starting": False, "after the first frame": True}


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
def test_the_first_frame_has_every_style_a_full_restyle_gives(work: Path, size: tuple[int, int]) -> None:
    """The main screen skips Textual's restyle of the whole screen at its first resume (its compose has just
    styled every widget): at the first frame, every widget's styles are those a full restyle gives."""
    app = make_app(work / "scenarios" / "hello-agent.yaml", work)
    seen: dict[str, list[str]] = {}
    show = app._display

    def first_frame(screen: Any, update: Any) -> None:
        show(screen, update)
        if update is None or seen:
            return
        nodes = list(app.screen.walk_children(with_self=True))
        drawn = [f"{node!r}: {node.styles.get_rules()}" for node in nodes]
        app.stylesheet.update_nodes(nodes, animate=False)
        seen["drawn"], seen["restyled"] = drawn, [f"{node!r}: {node.styles.get_rules()}" for node in nodes]

    app._display = first_frame

    async def body() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)

    run(body)
    assert len(seen["drawn"]) > 25
    assert seen["drawn"] == seen["restyled"]


@pytest.mark.parametrize("size", [SIZE, (120, 40), (80, 24)])
def test_the_first_frame_shows_the_panes_as_laid_out_for_the_window(
    work: Path, size: tuple[int, int]
) -> None:
    """The first frame is the screen as the user will work in it: the panes share the width as they do once
    the app has settled, the numbered tabs only in a narrow window (not a frame of panes at their defaults).
    The run panes it does not show (the step inspector, the screenshots) are mounted right after it, showing
    what the screen told them before."""
    app = make_app(work / "scenarios" / "hello-agent.yaml", work)
    seen: dict[str, object] = {}
    show = app._display
    panes = ("#views", "#browser", "#editor-pane", "#panes")

    def layout() -> list[tuple[str, bool, int]]:
        found = {name: app.screen.query(name) for name in panes}  # a wide window's tabs come after the frame
        return [
            (name, bool(q) and q.first().display, q.first().region.width if q else 0)
            for name, q in found.items()
        ]

    def first_frame(screen: Any, update: Any) -> None:
        show(screen, update)
        if update is not None and not seen:
            seen["first"] = layout()
            seen["hidden panes at the first frame"] = [
                bool(app.screen.query(p)) for p in ("#inspector", "#diff")
            ]

    app._display = first_frame

    async def body() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            seen["settled"] = layout()
            main = app.main_screen  # the hidden run panes come right after, with what they were told before
            seen["shots"] = (len(main.diff.pairs), main.diff.query_one("#shot-list").option_count)
            seen["step"] = str(main.inspector.query_one("#inspector-body").render())

    run(body)
    assert seen["first"] == seen["settled"]
    assert seen["hidden panes at the first frame"] == [False, False]
    assert seen["shots"] == (1, 1)  # hello-agent's one golden, listed
    assert "No step selected" in str(seen["step"])


def test_the_app_can_quit_at_its_first_frame(work: Path) -> None:
    """What is mounted right after the first frame is not mounted into an app that is closing."""
    code = """from pathlib import Path
from workbench.app.app import WorkbenchApp
app = WorkbenchApp(Path("scenarios/hello-agent.yaml"), goldens_dir=Path("goldens"), out_dir=Path("runs"))
show = app._display
def first_frame(screen, update):
    show(screen, update)
    if update is not None and app._display is first_frame:
        app._display = show
        app.exit()
app._display = first_frame
app.run(headless=True, size=(200, 50))
print("exit", app.return_code)
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True, text=True, timeout=120)
    assert "Error" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "exit 0"


def test_numbered_tabs_mounted_without_their_tabs_do_not_raise() -> None:
    """A wide window mounts the numbered tabs after its first frame; when the app closes first they reach
    their mount without the tabs composed (as here, where compose makes none), and Textual's ``Tabs``
    raised ``No Tab with id 'view-editor'`` activating one."""
    from textual.app import App, ComposeResult
    from textual.widgets._tabs import Tab

    from workbench.app.widgets.workspace import ViewTabs

    class Uncomposed(ViewTabs):
        def compose(self) -> ComposeResult:
            return iter(())

    tabs = Uncomposed(Tab("1 Editor", id="view-editor"), active="view-editor")
    tabs.display = False  # as a wide window mounts them

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield tabs

    async def body() -> None:
        async with Host().run_test() as pilot:
            await pilot.pause()
            assert tabs.is_attached and tabs.active == ""

    run(body)
