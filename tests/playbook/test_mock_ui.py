"""`mock_ui` as in the pi harness: defaults (confirm -> yes, select -> the first option), select by index,
text or function, and `ui_calls_for`. The questions are a real TUI's, in a real pty, answered with keys."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from workbench.engine.options import RunOptions
from workbench.playbook import MockUi, Playbook, UiRule, say, when
from workbench.playbook.run import PlaybookRun, mock_agent_command, run_playbook
from workbench.playbook.ui import UiAnswerError, option_index, screen_rules
from workbench.terminal.responders import Responders

MENU = Path(__file__).parent / "menu_then_agent.py"
SCREEN = "Pick a model:\n  1. Opus\n❯ 2. Sonnet\n  3. Haiku\n"


def answer(mock_ui: MockUi, screen: str) -> tuple[str, object]:
    found = Responders(screen_rules(mock_ui)).answer(screen)
    assert found is not None
    return found.keys, found.value


def test_the_defaults_and_each_way_to_choose() -> None:
    assert answer(MockUi(), "Delete it? (y/n)") == ("y<Enter>", True)
    assert answer(MockUi(confirm=False), "Delete it? [Y/n]") == ("n<Enter>", False)
    assert answer(MockUi(confirm=lambda line: "Delete" not in line), "Delete it? (yes/no)") == (
        "no<Enter>",
        False,
    )
    assert answer(MockUi(), SCREEN) == ("<Up><Enter>", "Opus"), "the first option, from where the cursor is"
    assert answer(MockUi(select=2), SCREEN) == ("<Down><Enter>", "Haiku")
    assert answer(MockUi(select="Sonnet"), SCREEN) == ("<Enter>", "Sonnet")
    assert answer(MockUi(select="aik"), SCREEN) == ("<Down><Enter>", "Haiku"), "a part only one option has"
    assert answer(MockUi(select=lambda options: options[-1]), SCREEN) == ("<Down><Enter>", "Haiku")
    rule = UiRule("Trust this folder?", "1<Enter>")
    assert answer(MockUi(rules=[rule]), "Trust this folder? (y/n)") == ("1<Enter>", "1<Enter>"), "rules first"
    assert Playbook(when("x", [say("y")]), mock_ui={"confirm": False}).mock_ui == MockUi(confirm=False)


def test_a_choice_that_names_no_option_is_an_error_with_the_options_never_the_first() -> None:
    labels = ["Opus", "Sonnet", "Haiku"]
    for choice, what in ((5, "index 5 is not an option"), ("Gemini", "'Gemini' matches no option"),
                         ("u", "'u' matches more than one option"), (None, "None is neither")):  # fmt: skip
        with pytest.raises(UiAnswerError, match=what) as info:
            option_index(choice, labels)
        assert "options: 0: 'Opus'; 1: 'Sonnet'; 2: 'Haiku'" in str(info.value)
    with pytest.raises(TypeError, match="mock_ui: unknown key"):
        Playbook(when("x", [say("y")]), mock_ui={"confirm": True, "notify": 1})


def run(tmp_path: Path, **kwargs: object) -> PlaybookRun:
    command = [sys.executable, str(MENU), "--", *mock_agent_command("asks")]
    playbook = Playbook(when("hi", [say("Hello!")]), name="asks", **kwargs)  # type: ignore[arg-type]
    options = RunOptions(out_dir=tmp_path / "runs", goldens_dir=tmp_path / "goldens", timeout_s=120)
    return asyncio.run(run_playbook(playbook, command=command, options=options))


@pytest.mark.slow
def test_without_mock_ui_the_defaults_answer_a_real_tuis_menu_and_confirm(tmp_path: Path) -> None:
    done = run(tmp_path)
    assert done.passed, done.explain()
    assert [(u.method, u.value, u.keys) for u in done.events.ui] == [
        ("select", "Opus", "<Enter>"), ("confirm", True, "y<Enter>")]  # fmt: skip
    assert [u.value for u in done.events.ui_calls_for("confirm")] == [True]


@pytest.mark.slow
def test_select_by_text_moves_the_cursor_to_it(tmp_path: Path) -> None:
    from workbench.engine.trace import Trace

    done = run(tmp_path, mock_ui=MockUi(select="Haiku"))
    assert done.passed, done.explain()
    assert [(u.value, u.keys) for u in done.events.ui_calls_for("select")] == [
        ("Haiku", "<Down><Down><Enter>")
    ]
    assert done.run_dir is not None
    screens = ["\n".join(step["screen"]) for step in Trace.read(done.run_dir).steps]
    assert any("chose Haiku" in screen for screen in screens), screens[-1]


LINE_AGENT = Path(__file__).parent / "line_agent.py"


def test_a_free_text_question_is_answered_only_while_a_line_is_awaited() -> None:
    screen = "> commit it\n[note] typed meanwhile: ''\nCommit message:"
    responders = Responders(screen_rules(MockUi()))
    assert responders.answer(screen) is None, "a screen ending in ':' is not a question by itself"
    found = responders.answer(screen, reading=True)
    assert found is not None and (found.rule.kind, found.matched, found.keys, found.value) == (
        "input", "Commit message:", "<Enter>", "")  # fmt: skip
    again = responders.answer(screen, reading=True)
    assert again is not None and again.keys == "<Enter>", "each line awaited is a new question"
    text = Responders(screen_rules(MockUi(input=lambda line: f"<{line}>"))).answer(screen, reading=True)
    assert text is not None and (text.keys, text.value) == (
        "<lt>Commit message:><Enter>",
        "<Commit message:>",
    )
    confirm = Responders(screen_rules(MockUi())).answer("Delete it? (y/n) ", reading=True)
    assert confirm is not None and confirm.rule.kind == "confirm", "a question with a shape keeps its kind"


@pytest.mark.slow
def test_a_line_agents_free_text_question_mid_turn_is_answered_empty_and_its_colon_output_is_not(
    tmp_path: Path,
) -> None:
    from workbench.playbook import call

    playbook = Playbook(
        when("commit it", [call("note", {"text": "Working:"}), call("ask", {"question": "Commit message: "}),
                           say("Committed.")]),
        when("and again", [call("ask", {"question": "Tag name: "}), call("edit", {"text": "draft\n"}),
                           say("Tagged.")]),
        name="line-agent", mock_ui=MockUi(input=lambda line: "v1" if line.startswith("Tag") else ""),
    )  # fmt: skip
    command = [sys.executable, str(LINE_AGENT), "{base_url}", "{api_key}"]
    options = RunOptions(out_dir=tmp_path / "runs", goldens_dir=tmp_path / "goldens", timeout_s=120)
    done = asyncio.run(run_playbook(playbook, command=command, options=options))
    assert done.passed, done.explain()
    assert [(u.matched, u.keys, u.value) for u in done.events.ui_calls_for("input")] == [
        ("Commit message:", "<Enter>", ""), ("Tag name:", "v1<Enter>", "v1")]  # fmt: skip
    assert [r.text for r in done.events.tool_results] == [
        "typed meanwhile: ''", "answer: ''", "answer: 'v1'", "edited: ''"], (
        "nothing is typed while the agent prints 'Working:' and reads nothing; the editor leaves the file empty")  # fmt: skip
    editor = done.events.ui_calls_for("editor")
    assert [(Path(u.matched).name, u.value) for u in editor] == [("EDIT_MSG", "")], "$VISUAL was called once"
    prompts = [m.text for m in done.events.messages if m.role == "user"]
    assert prompts == ["commit it", "and again"], "the agent reading its next prompt is not a question"
    assert done.events.ui_calls_for("confirm") == [] and done.events.ui_calls_for("select") == []


def test_the_editor_stand_in_leaves_what_mock_ui_editor_gives(tmp_path: Path) -> None:
    from workbench.playbook.server import PlaybookServer

    async def edit() -> tuple[int, str, list[tuple[str, object]]]:
        playbook = Playbook(when("x", [say("y")]), mock_ui={"editor": lambda text: text.upper()})
        server = PlaybookServer(playbook)
        await server.start()
        try:
            draft = tmp_path / "PLAN.md"
            draft.write_text("step one\n")
            env = {**os.environ, "WORKBENCH_UI_EDITOR": server.editor_url}
            editor = await asyncio.create_subprocess_exec(sys.executable, "-m", "workbench.playbook.editor", "+1",
                                                          str(draft), env=env)  # fmt: skip
            code = await editor.wait()
            records = [(u.method, u.value) for u in server.events.ui_calls_for("editor")]
            return code, draft.read_text(), records
        finally:
            await server.stop()

    assert asyncio.run(edit()) == (0, "STEP ONE\n", [("editor", "STEP ONE\n")])
