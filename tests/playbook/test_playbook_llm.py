"""Playbooks served to agents that run in the test's own process (the `anthropic` and `openai`
SDKs, streaming or not), through the real mock LLM server: the happy path with `.then` and
late-bound params over two turns, then the playbook broken in each way, with each diagnostic's text.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any

import anthropic
import pytest

from tests.playbook.agents import AnthropicAgent, ChatAgent, ResponsesAgent
from workbench.playbook import Playbook, call, say, think, when
from workbench.playbook.server import MockLlm, PlaybookFailed


def ticket_playbook(ids: dict[str, str]) -> Playbook:
    """Turn 1: two calls in one response, a third whose params come from the first's result."""
    return Playbook(
        when("Create a ticket and show it", [
            think("Create it, list the folder, then show it."),
            say("Creating the ticket."),
            call("bash", {"command": "echo T-$((40+2)) | tee ticket.txt"}).then(
                lambda r: ids.update(ticket=r.text.strip())),
            call("bash", {"command": "ls"}),
            call("bash", lambda: {"command": f"echo showing {ids['ticket']}"}),
            say("Ticket created and shown."),
        ]),
        when("Thanks", [say("You're welcome.")]),
    )  # fmt: skip


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
def test_two_turns_with_then_and_late_bound_params_anthropic(tmp_path: Path, stream: bool) -> None:
    ids: dict[str, str] = {}
    with MockLlm(ticket_playbook(ids)) as llm:
        agent = AnthropicAgent(llm.base_url, llm.api_key, tmp_path, stream=stream)
        assert agent.ask("Create a ticket and show it") == "Ticket created and shown."
        assert agent.ask("Thanks") == "You're welcome."
        llm.check()
        events = llm.events
    assert ids == {"ticket": "T-42"}, ".then got the real result of the real command"
    assert events.tool_sequence() == ["bash", "bash", "bash"]
    assert events.tool_calls[2].input == {"command": "echo showing T-42"}, (
        "late-bound params saw .then's result"
    )
    assert [r.text for r in events.tool_results] == ["T-42\n", "ticket.txt\n", "showing T-42\n"]
    assert [r.step for r in events.tool_results] == [3, 4, 5] and not any(
        r.is_error for r in events.tool_results
    )
    assert [(m.role, m.text, m.turn) for m in events.messages] == [
        ("user", "Create a ticket and show it", 1), ("assistant", "Creating the ticket.", 1),
        ("assistant", "Ticket created and shown.", 1), ("user", "Thanks", 2), ("assistant", "You're welcome.", 2),
    ]  # fmt: skip
    first = agent.responses[0]
    assert [b.type for b in first.content] == ["thinking", "text", "tool_use", "tool_use"]
    assert first.stop_reason == "tool_use"
    assert [b.type for b in agent.responses[1].content] == ["tool_use"], (
        "the late-bound call waits for results"
    )
    if stream:
        assert agent.deltas >= 1
    assert llm.state.consumed == llm.state.total == 7


def test_openai_chat_streams_parallel_calls(tmp_path: Path) -> None:
    ids: dict[str, str] = {}
    with MockLlm(ticket_playbook(ids)) as llm:
        agent = ChatAgent(llm.openai_base_url, llm.api_key, tmp_path)
        assert agent.ask("Create a ticket and show it") == "Ticket created and shown."
        assert agent.ask("Thanks") == "You're welcome."
        llm.check()
    assert agent.calls_per_response == [2, 1, 0, 0]
    assert llm.events.tool_calls[2].input == {"command": "echo showing T-42"}


def test_openai_responses(tmp_path: Path) -> None:
    ids: dict[str, str] = {}
    with MockLlm(ticket_playbook(ids)) as llm:
        agent = ResponsesAgent(llm.openai_base_url, llm.api_key, tmp_path)
        assert agent.ask("Create a ticket and show it") == "Ticket created and shown."
        assert agent.ask("Thanks") == "You're welcome."
        llm.check()
    assert ids == {"ticket": "T-42"}


# --------------------------------------------------------------------------- broken playbooks


def at(playbook: Playbook, turn: int, action: int) -> str | None:
    """Where the test wrote an action (``file:line``), as failures name it."""
    return playbook.turns[turn - 1].actions[action].at


def test_failures_name_the_file_and_line_where_each_action_and_turn_was_written(tmp_path: Path) -> None:
    """A newcomer's playbook failed with 'say("b") (turn 2)' and no place: with many tests sharing helpers,
    the action is found by where it was written, as pytest names a failing assert."""
    line = inspect.currentframe().f_lineno  # type: ignore[union-attr]
    playbook = Playbook(when("hello", [say("a")]), when("second", [say("b")]))
    here = f"{os.path.relpath(__file__)}:{line + 1}"
    assert (playbook.turns[1].at, at(playbook, 2, 0)) == (here, here)
    with MockLlm(playbook) as llm:
        AnthropicAgent(llm.base_url, llm.api_key, tmp_path).ask("hello")
        text = failure_of(llm)
    assert f'  - say("b") (turn 2, {here})\n' in text, text


def failure_of(llm: MockLlm) -> str:
    with pytest.raises(PlaybookFailed) as caught:
        llm.check()
    return str(caught.value)


def test_exhaustion_is_an_api_error_to_the_agent_and_fails_the_test(tmp_path: Path) -> None:
    playbook = Playbook(when("list", [call("bash", {"command": "ls"})]), when("again", [say("ok")]))
    with MockLlm(playbook) as llm:
        agent = AnthropicAgent(llm.base_url, llm.api_key, tmp_path)
        with pytest.raises(anthropic.BadRequestError) as error:
            agent.ask("list")
        assert error.value.status_code == 400
        assert "[PLAYBOOK EXHAUSTED] Playbook exhausted" in str(error.value)
        text = failure_of(llm)
    assert text.startswith(
        "Playbook exhausted: the agent asked for another model response, but the playbook has none for this turn.\n"
        "Consumed 1 of 2 actions.\n"
        f'Last consumed: call("bash", {{"command": "ls"}}) at step 1 (turn 1, {at(playbook, 1, 0)})\n'
        f'Next expected: when("again") (a new user turn, {playbook.turns[1].at})\n'
        "Remaining:\n"
        f'  - say("ok") (turn 2, {at(playbook, 2, 0)})\n'
        "The agent went on after the playbook's last response of the turn:"
    ), text
    assert "Playbook not fully consumed after the run." in text, "turn 2 never came: that is reported too"


def test_exhaustion_after_the_last_turn(tmp_path: Path) -> None:
    playbook = Playbook(when("hi", [say("hello")]))
    with MockLlm(playbook) as llm:
        agent = AnthropicAgent(llm.base_url, llm.api_key, tmp_path)
        agent.ask("hi")
        with pytest.raises(anthropic.BadRequestError):
            agent.ask("more?")
        text = failure_of(llm)
    assert text == (
        "Playbook exhausted: the agent asked for another model response, but the playbook has none for this turn.\n"
        "Consumed 1 of 1 action.\n"
        f'Last consumed: say("hello") at step 1 (turn 1, {at(playbook, 1, 0)})\n'
        "Next expected: nothing (the playbook is done)\n"
        "Remaining: none\n"
        "The agent went on after the playbook's last response of the turn: add the actions it needs "
        "(a call it makes, then say(...) to end the turn), or check why it did not stop."
    )


def test_not_fully_consumed_lists_what_is_left(tmp_path: Path) -> None:
    turns = [when("one", [say("1")]), when("two", [call("bash", lambda: {"command": "x"}), say("2")])]
    turns += [when(f"t{i}", [say(f"s{i}")]) for i in range(5)]
    playbook = Playbook(turns)
    with MockLlm(playbook) as llm:
        AnthropicAgent(llm.base_url, llm.api_key, tmp_path).ask("one")
        text = failure_of(llm)
    assert text == (
        "Playbook not fully consumed after the run.\n"
        "Consumed 1 of 8 actions.\n"
        "Remaining:\n"
        f'  - call("bash", <late-bound>) (turn 2, {at(playbook, 2, 0)})\n'
        f'  - say("2") (turn 2, {at(playbook, 2, 1)})\n'
        f'  - say("s0") (turn 3, {at(playbook, 3, 0)})\n'
        f'  - say("s1") (turn 4, {at(playbook, 4, 0)})\n'
        f'  - say("s2") (turn 5, {at(playbook, 5, 0)})\n'
        "  ... +2 more\n"
        "The agent stopped asking before the playbook's end: it ended a turn early, failed, "
        "or the test did not send every when() prompt."
    )


def test_a_turn_ended_early_names_its_leftovers_and_they_never_reach_the_next_turn(tmp_path: Path) -> None:
    playbook = Playbook(
        when("one", [call("bash", {"command": "echo a"}), say("done one")]), when("two", [say("2")])
    )
    with MockLlm(playbook) as llm:
        agent = AnthropicAgent(llm.base_url, llm.api_key, tmp_path, run_tools=False)
        agent.ask("one")  # stops at the tool call: its turn still holds say("done one")
        agent.messages.pop()  # the agent drops the call, and the user moves on
        assert agent.ask("two") == "2", "turn 2 gets its own actions, not turn 1's leftovers"
        text = failure_of(llm)
        blocked = llm.events.blocked_calls
    assert text == (
        f'Turn 1 when("one") ({playbook.turns[0].at}) ended with 1 action left:\n'
        f'  - say("done one") (turn 1, {at(playbook, 1, 1)})\n'
        "The agent started a new turn (a new user prompt) before the model's actions of this turn were "
        "served; they are dropped, never served to the next turn."
    )
    assert [(b.tool, b.step, b.turn, b.input) for b in blocked] == [("bash", 1, 1, {"command": "echo a"})], (
        "the call never got a result; its input is kept"
    )


def test_a_then_callback_that_raises_fails_with_its_traceback(tmp_path: Path) -> None:
    def check(result: object) -> None:
        raise ValueError("no ticket in the output")

    playbook = Playbook(when("go", [call("bash", {"command": "echo hi"}).then(check), say("ok")]))
    with MockLlm(playbook) as llm:
        assert AnthropicAgent(llm.base_url, llm.api_key, tmp_path).ask("go") == "ok", (
            "the agent is not disturbed"
        )
        text = failure_of(llm)
    assert text.startswith(f'The .then() callback of call("bash", {{"command": "echo hi"}}) at step 1 (turn 1, {at(playbook, 1, 0)}) raised:\n'
                           "Traceback (most recent call last):\n")  # fmt: skip
    assert 'raise ValueError("no ticket in the output")' in text
    assert text.endswith("ValueError: no ticket in the output")


def test_late_bound_params_that_raise_fail_and_answer_an_api_error(tmp_path: Path) -> None:
    ids: dict[str, str] = {}
    playbook = Playbook(when("go", [call("bash", lambda: {"command": ids["missing"]}), say("ok")]))
    with MockLlm(playbook) as llm:
        with pytest.raises(anthropic.BadRequestError) as error:
            AnthropicAgent(llm.base_url, llm.api_key, tmp_path).ask("go")
        text = failure_of(llm)
    assert text.startswith(f'The params function of call("bash", <late-bound>) at step 1 (turn 1, {at(playbook, 1, 0)}) raised, so the call '
                           "was not sent (the agent got an API error):\nTraceback")  # fmt: skip
    first = text.split("\n\n")[0]
    assert first.splitlines()[-1] == "KeyError: 'missing'" and "KeyError" in str(error.value)


@pytest.mark.parametrize("propagate", [True, False])
def test_an_error_result_is_recorded_and_the_playbook_goes_on(tmp_path: Path, propagate: bool) -> None:
    """Only a tool that crashed (a `mock_tools` function that raised) stops a playbook; a result the agent
    reports as an error is recorded and the next action is served, as in the pi harness."""
    playbook = Playbook(when("go", [call("bash", {"command": "echo boom >&2; exit 3"}),
                                    call("bash", {"command": "echo next"}), say("ok")]),
                        propagate_errors=propagate)  # fmt: skip
    with MockLlm(playbook) as llm:
        assert AnthropicAgent(llm.base_url, llm.api_key, tmp_path).ask("go") == "ok"
        llm.check()
        results = llm.events.tool_results
        assert (llm.state.consumed, llm.state.remaining) == (3, 0)
    assert [(r.is_error, r.text) for r in results] == [(True, "boom\n"), (False, "next\n")]


def test_a_call_to_a_tool_the_agent_lacks_fails_with_the_tools_it_offers(tmp_path: Path) -> None:
    playbook = Playbook(when("go", [call("lookup", {"id": "T-1"}), say("ok")]))
    with MockLlm(playbook) as llm:
        with pytest.raises(anthropic.BadRequestError):
            AnthropicAgent(llm.base_url, llm.api_key, tmp_path).ask("go")
        text = failure_of(llm)
        assert llm.events.tool_calls == [], "the call was never sent"
    assert text == (f'call("lookup", {{"id": "T-1"}}) at step 1 (turn 1, {at(playbook, 1, 0)}) names a tool the agent does not have, '
                    "so the call was not sent (the agent got an API error).\nThe agent offers: bash")  # fmt: skip


def test_a_prompt_that_is_not_the_turns_fails(tmp_path: Path) -> None:
    playbook = Playbook(when("Fix the bug", [say("done")]))
    with MockLlm(playbook) as llm:
        AnthropicAgent(llm.base_url, llm.api_key, tmp_path).ask("Write a poem")
        text = failure_of(llm)
    assert text == (f"Turn 1: the agent's prompt does not contain the prompt of when(\"Fix the bug\") ({playbook.turns[0].at}); "
                    "it was: 'Write a poem'")  # fmt: skip


def test_a_retried_request_gets_the_same_answer_not_the_next(tmp_path: Path) -> None:
    import httpx

    playbook = Playbook(when("hi", [say("one")]), when("more", [say("two")]))
    with MockLlm(playbook) as llm:
        body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
        headers = {"x-api-key": llm.api_key, "anthropic-version": "2023-06-01"}
        first = httpx.post(llm.base_url + "/v1/messages", json=body, headers=headers).json()
        again = httpx.post(llm.base_url + "/v1/messages", json=body, headers=headers).json()
        assert first["content"] == again["content"] == [{"type": "text", "text": "one"}]
        assert llm.state.consumed == 1


def test_bad_playbooks_are_refused_when_written() -> None:
    with pytest.raises(
        TypeError, match=r"when\('x'\): 'oops' is not an action; use call\(\), say\(\) or think\(\)"
    ):
        when("x", ["oops"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="params must be a mapping or a function returning one"):
        call("bash", ["ls"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a playbook needs at least one when"):
        Playbook()


@pytest.mark.parametrize(
    ("write", "error", "said"),
    [
        (lambda: when(123, [say("x")]), TypeError, r"when\(123, ...\): the prompt is text \(a str\), got int"),
        (lambda: when("x", say("y")), TypeError, r"when\('x', ...\): the actions are a list .*, got Say"),
        (lambda: when("x", "say hi"), TypeError, r"when\('x', ...\): the actions are a list .*, got str"),
        (lambda: when("x", []), ValueError, r"when\('x', \[\]\): a turn needs an action; end it with say\(...\)"),
        (lambda: call(5, {}), TypeError, r"call\(5, ...\): the tool is its name \(a str\), got int"),
        (lambda: say(None), TypeError, r"say\(None\): the text is a str, got NoneType"),
        (lambda: think(["a"]), TypeError, r"think\(\['a'\]\): the text is a str, got list"),
        (lambda: Playbook(when("x", [say("a")]), mock_tools={"t": 5}), TypeError,
         r"mock_tools\['t'\]: a result is a str, a mapping or a function of the params, got int"),
    ],
)  # fmt: skip
def test_a_playbook_written_wrong_is_refused_where_it_is_written(write: Any, error: type, said: str) -> None:
    """Each was taken as written and failed later, far from the mistake (`when("x", say("y"))`: 'Say' object
    is not iterable; `when(123, ...)`, `say(None)`: at the run, in the server)."""
    with pytest.raises(error, match=said):
        write()


def test_mock_tools_results_from_a_string_a_function_or_a_full_result() -> None:
    from workbench.playbook.server import mock_result

    assert mock_result("T-42: open", {}) == ("T-42: open", False, {})
    assert mock_result(lambda p: f"{p['id']}: open", {"id": "T-7"}) == ("T-7: open", False, {})
    assert mock_result({"content": "denied", "is_error": True}, {}) == ("denied", True, {})
    assert mock_result(lambda p: {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, {}) == (
        "ab", False, {})  # fmt: skip
    assert mock_result(lambda p: {"rows": 2}, {}) == ('{"rows": 2}', False, {})
    assert mock_result({"content": "ok", "details": {"rows": 2}}, {}) == ("ok", False, {"rows": 2})


def test_the_mock_tools_endpoint_answers_the_built_in_agent(tmp_path: Path) -> None:
    import asyncio

    import httpx

    from workbench.playbook.server import PlaybookServer

    def boom(params: object) -> str:
        raise RuntimeError("no such ticket")

    playbook = Playbook(when("x", [say("y")]), mock_tools={"lookup": "open", "broken": boom})

    async def body() -> list[dict[str, object]]:
        server = PlaybookServer(playbook)
        await server.start()
        try:
            async with httpx.AsyncClient() as client:
                out = []
                for name in ("lookup", "runCmd", "broken"):
                    answer = await client.post(
                        server.tools_url, json={"call_id": "c1", "name": name, "input": {}}
                    )
                    out.append(answer.json())
                bad = await client.post(server.tools_url, content=b"{")
                out.append({"status": bad.status_code, **bad.json()})
                return out
        finally:
            await server.stop()

    lookup, real, broken, bad = asyncio.run(body())
    assert lookup == {"mocked": True, "content": "open", "is_error": False}
    assert real == {"mocked": False}
    assert broken == {"mocked": True, "content": "mock_tools['broken'] raised RuntimeError: no such ticket",
                      "is_error": True}  # fmt: skip
    assert bad["status"] == 400 and "expected {call_id, name, input}" in str(bad["error"])


def test_gemini(tmp_path: Path) -> None:
    from tests.playbook.agents import GeminiAgent

    ids: dict[str, str] = {}
    with MockLlm(ticket_playbook(ids)) as llm:
        agent = GeminiAgent(llm.base_url, llm.api_key, tmp_path)
        assert agent.ask("Create a ticket and show it") == "Ticket created and shown."
        assert agent.ask("Thanks") == "You're welcome."
        llm.check()
    assert ids == {"ticket": "T-42"}
    assert [r.text for r in llm.events.tool_results] == ["T-42\n", "ticket.txt\n", "showing T-42\n"]
