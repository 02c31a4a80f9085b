"""Issue 25, point 6: a recording started from the palette, with the upstream and the open scenario's command
filled in, opens in the app as soon as it is written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.app.conftest import make_app, run, settle, wait_until
from tests.record.helpers import AGENT, HELLO, serve_llm
from workbench.app.screens.record import RecordScreen
from workbench.scenario.loader import load_scenario


def test_record_from_the_palette_opens_the_recording(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    command = [sys.executable, str(AGENT), "anthropic", "{base_url}", "{api_key}"]
    scenario = work / "scenarios" / "agent.yaml"
    scenario.write_text(f"name: agent\ncommand: {json.dumps(command)}\ntimeline: []\n", encoding="utf-8")

    with serve_llm(work, HELLO) as url:
        monkeypatch.setenv("WORKBENCH_RECORD_UPSTREAM", url)

        async def body() -> None:
            app = make_app(scenario, work)
            async with app.run_test(size=(120, 40)) as pilot:
                await settle(pilot)
                main = app.main_screen
                main.run_command("record_session")
                await wait_until(pilot, lambda: isinstance(app.screen, RecordScreen), what="the dialog")
                dialog = app.screen
                assert dialog.query_one("#record-upstream").value == url  # filled in
                assert dialog.query_one("#record-command").value.endswith(
                    "anthropic '{base_url}' '{api_key}'"
                )
                prompt = dialog.query_one("#record-prompt")
                await wait_until(
                    pilot, lambda: dialog.focused is prompt, what="the prompt, first empty field"
                )
                await pilot.press(*"write hello.txt", "tab", *"hello recorded", "enter")
                recorded = work / "scenarios" / "hello-recorded.yaml"
                await wait_until(
                    pilot, lambda: main.path == recorded, timeout=120, what="the recording, opened"
                )
                await settle(pilot)
                assert main.validation is not None and not main.validation.errors
                assert any(e.path == recorded for e in main.browser.entries)

        run(body)
    loaded = load_scenario(work / "scenarios" / "hello-recorded.yaml", env={})
    assert loaded.command is not None and "{base_url}" in loaded.command
