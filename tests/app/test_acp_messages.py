"""`workbench show` of a run with an ``acp.jsonl``: the selected step's ACP messages under the timeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import make_app, run, screen_text, settle
from tests.engine.test_acp_trace import MESSAGES, write_run


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_stepping_shows_each_steps_acp_messages(tmp_path: Path, size: tuple[int, int]) -> None:
    run_dir = tmp_path / "runs" / "acp-demo"
    write_run(run_dir, [100, 200, 300], MESSAGES)

    async def body() -> None:
        app = make_app(None, tmp_path, run_dir=run_dir)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            assert main.timeline.cursor == 2  # a recorded run opens at its last step
            shown = "\n".join(screen_text(app))
            assert "← #1 error -32603: boom" in shown and "← #1 result" in shown
            assert "initialize" not in shown and "acp: 2" in shown
            main.timeline.move_cursor(0)
            await pilot.pause(0.05)
            shown = "\n".join(screen_text(app))
            assert "→ initialize #0" in shown and "← #0 result" in shown
            assert "boom" not in shown
            await pilot.press("f8")  # the next recorded step
            await pilot.pause(0.05)
            shown = "\n".join(screen_text(app))
            assert main.timeline.cursor == 1
            assert "→ session/prompt #1" in shown and "← session/update" in shown
            assert "initialize" not in shown
            assert main.timeline.region.bottom <= size[1]  # the taller timeline still fits the window

    run(body)


def test_a_live_acp_run_shows_its_messages_beside_its_steps(tmp_path: Path) -> None:
    from tests.acp.test_acp_mode import WRITE_AND_RUN
    from tests.app.conftest import play_to_end

    path = tmp_path / "scenarios" / "acp-mode.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(WRITE_AND_RUN.replace("ANSWER", "yes"), encoding="utf-8")

    async def body() -> None:
        app = make_app(path, tmp_path, mode="acp")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            main = app.main_screen
            result = await play_to_end(pilot)
            assert result.status == "passed", result.failures
            assert any(mark.acp for mark in main.timeline.marks), (
                "the run's acp.jsonl is read beside its steps"
            )
            prompt = next(m for m in main.timeline.marks if any("session/prompt" in line for line in m.acp))
            main.timeline.move_cursor(prompt.index)
            await pilot.pause(0.05)
            shown = "\n".join(screen_text(app))
            assert prompt.acp[0] in shown, (prompt.acp, shown[-1500:])

    run(body)
