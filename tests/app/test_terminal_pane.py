"""The terminal pane repaints only the rows that changed."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tests.app.conftest import run
from workbench.app.widgets.terminal import TerminalView
from workbench.terminal import Screen


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield TerminalView(id="t")


def test_only_changed_rows_are_refreshed() -> None:
    async def body() -> None:
        app = _Host()
        async with app.run_test(size=(100, 30)) as pilot:
            view = app.query_one(TerminalView)
            screen = Screen(80, 24)
            screen.feed("hello\r\nworld")
            view.attach(screen)
            await pilot.pause(0.05)
            assert view.text().splitlines()[:2] == ["hello", "world"]
            view._poll()  # consumes the rows the emulator marked dirty
            before = view.lines_refreshed
            screen.feed("\x1b[31m!\x1b[0m")  # one coloured cell on row 1
            view._poll()
            assert view.lines_refreshed - before == 1
            await pilot.pause(0.05)
            assert view.text().splitlines()[1] == "world!"
            view._poll()  # nothing changed: nothing repainted
            assert view.lines_refreshed - before == 1
            view.detach()
            assert not view.is_live and view.text().splitlines()[1] == "world!"

    run(body)
