"""Issue 22 point 3: the step inspector says everything about a step, wrapped, never cut."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.app.conftest import opened, play_to_end, run, screen_text, wait_until
from tests.app.test_layout_and_lifecycle import FAILING as LAYOUT_FAILING
from tests.chat_agent import CHAT_AGENT
from workbench.app.core.inspect import inspect_step, step_source
from workbench.engine.report import Failure
from workbench.engine.trace import StepRecord

LONG_REASON = (
    "nowhere to be seen " + "and a very long tail that no single line of a narrow pane can hold " * 2
)
FAILING = LAYOUT_FAILING.replace("nowhere to be seen", LONG_REASON)


def test_step_source_is_the_block_of_the_step() -> None:
    text = "timeline:\n  - assert:\n      text:\n        contains: [x]\n\n  - advanceMs: 5\n"
    assert step_source(text, 2) == ("  - assert:", "      text:", "        contains: [x]")
    assert step_source(text, 6) == ("  - advanceMs: 5",)
    assert step_source(text, 99) == ()


def test_inspect_step_compares_the_screen_with_the_step_before() -> None:
    def record(index: int, screen: list[str], **kw: object) -> StepRecord:
        return StepRecord(
            index, index * 10, index * 20, "user", "input", f"step {index}", index + 2, screen, **kw
        )  # type: ignore[arg-type]

    records = {0: record(0, ["$ "]), 1: record(1, ["$ ls", "a.txt"], files=[{"path": "a.txt", "change": "added"}],
                                                 checks=[{"ok": False, "message": "wanted b.txt"}],
                                                 diffs={"a.txt": "+hello"})}  # fmt: skip
    failure = Failure(step=1, line=3, kind="assert", message="wanted b.txt")
    details = inspect_step(1, total=3, records=records, planned=None, failures=[failure],
                           scenario_text="a\nb\nc\n", size=(10, 3))  # fmt: skip
    assert details.ran and details.failed and details.failures == (failure,)
    assert details.files == ({"path": "a.txt", "change": "added", "diff": "+hello"},)
    assert details.screen is not None and details.screen.changed_rows == (0, 1)
    assert details.source == ("c",)
    pending = inspect_step(2, total=3, records=records, planned=("agent", "think", "think hi", 2), failures=[],
                           scenario_text="a\nb\n", size=(10, 3))  # fmt: skip
    assert not pending.ran and pending.screen is None and pending.summary == "think hi"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_a_failed_assert_shows_its_whole_reason_in_the_inspector(work: Path, size: tuple[int, int]) -> None:
    path = work / "scenarios" / "failing.yaml"
    path.write_text(FAILING, encoding="utf-8")

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            main, app = pilot.app.main_screen, pilot.app
            result = await play_to_end(pilot)
            assert result.status == "failed"
            [failure] = result.failures
            await pilot.press("f12")  # the failures pane; Enter opens the failed step in the inspector
            await pilot.press("enter")
            await wait_until(pilot, lambda: main.inspector.details is not None, what="the inspector")
            assert main.panes.active == "tab-step" and main.panes.display
            details = main.inspector.details
            assert details is not None and details.index == failure.step and details.failed
            text = " ".join(main.inspector.text().split())
            assert " ".join(failure.message.split()) in text, "the whole reason, wrapped, not cut"
            assert "Scenario line 8" in text and "- assert:" in text
            assert "Screen before" in text and "Screen after (the step changed" in text and "42" in text
            shown = "\n".join(screen_text(app))
            assert "failed" in shown and "Checks" in shown and "✗" in shown, shown  # the reason first
            # F7 moves the timeline: the inspector follows
            await pilot.press("f7")
            await pilot.pause(0.05)
            assert main.inspector.details is not None and main.inspector.details.index == failure.step - 1

    run(body)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_the_inspector_shows_the_files_a_step_changed_with_their_diff(
    work: Path, size: tuple[int, int]
) -> None:
    path = work / "scenarios" / "hello-agent.yaml"

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            main = pilot.app.main_screen
            await play_to_end(pilot)
            [wrote] = [
                r.index for r in main.records.values() if any(f["path"] == "hello.py" for f in r.files)
            ]
            main.timeline.move_cursor(wrote)
            await pilot.press("f11")
            await pilot.pause(0.1)
            text = main.inspector.text()
            assert "+ hello.py (added)" in text
            assert "+print('Hello, World!')" in text, "the step's diff of the file, from the trace"

    run(body)


CHAT = """\
name: chat
mode: real-agent
command: [{python}, {agent}]
terminal: {{width: 60, height: 12}}
timeline:
  - advanceMs: 300
  - userInputs:
      - [0, "hello<Enter>"]
  - llmResponse:
      - assistant:
          - [100, "Hi there, from the scenario"]
  - advanceMs: 500
  - assert: {{text: {{contains: "Hi there"}}}}
"""


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_the_inspector_shows_a_real_agents_model_request_and_reply(work: Path, size: tuple[int, int]) -> None:
    """Real-agent mode: the step that answered the agent shows the request the mock LLM server received
    (the prompt the agent sent through the official SDK) and the reply the step gave it."""
    agent = work / "chat_agent.py"
    agent.write_text(CHAT_AGENT, encoding="utf-8")
    path = work / "scenarios" / "chat.yaml"
    path.write_text(CHAT.format(python=sys.executable, agent=agent), encoding="utf-8")

    async def body() -> None:
        async with opened(path, work, size) as pilot:
            main = pilot.app.main_screen
            result = await play_to_end(pilot)
            assert result.status == "passed", result.failures
            [answer] = [r for r in main.records.values() if r.line == 11]  # the llmResponse's message line
            main.timeline.cursor = answer.index
            await pilot.press("f11")
            await wait_until(pilot, lambda: main.inspector.details is not None, what="the inspector")
            assert main.panes.active == "tab-step" and main.panes.display
            details = main.inspector.details
            assert details is not None and details.index == answer.index
            [message] = details.conversation
            assert "request 1:" in message and "prompt: hello" in message
            assert 'reply: assistant "Hi there, from the scenario"' in message
            text = main.inspector.text()
            assert "Messages of this step" in text and "prompt: hello" in text and "reply: assistant" in text
            # a step that asked nothing has no messages
            main.timeline.cursor = 0
            await pilot.press("f11")
            await wait_until(pilot, lambda: main.inspector.details is not None and main.inspector.details.index == 0,
                             what="step 1")  # fmt: skip
            assert main.inspector.details is not None and main.inspector.details.conversation == ()

    run(body)
