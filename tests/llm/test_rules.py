"""The Claudeless responder over the wire: patterns, max_matches, turns, usage, delays, tool calls."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.llm.conftest import CLAUDE_TOOLS, Running, rule, rules_scenario
from workbench.scenario import model as m
from workbench.scenario.diagnostics import Pos
from workbench.scenario.matching import matches


@pytest.mark.parametrize(
    ("kind", "pattern", "text", "expected"),
    [
        ("exact", "say hi", "say hi", True),
        ("exact", "say hi", "say hi ", False),
        ("contains", "login", "please login now", True),
        ("contains", "Login", "please login now", False),
        ("regex", r"fix(es)? \d+", "this fixes 12 bugs", True),
        ("regex", r"^fix", "please fix", False),
        ("glob", "*.txt", "notes.txt", True),
        ("glob", "*.txt", "notes.txt please", False),
        ("any", "", "", True),
    ],
)
def test_pattern_semantics(kind: str, pattern: str, text: str, expected: bool) -> None:
    assert matches(m.Pattern(kind, pattern), text) is expected  # type: ignore[arg-type]


def say(client: Any, text: str, history: list[dict[str, Any]] | None = None) -> str:
    messages = [*(history or []), {"role": "user", "content": text}]
    msg = client.messages.create(model="m", max_tokens=100, messages=messages)
    return "".join(b.text for b in msg.content if b.type == "text")


def test_ordered_rules_max_matches_and_default(serve: Callable[..., Running]) -> None:
    scenario = rules_scenario(
        [rule("exact", "ping", "pong", max_matches=2), rule("regex", r"^ping", "late pong")],
        default=m.Reply("I don't know"),
    )
    client = serve(scenario).anthropic()
    assert [say(client, "ping") for _ in range(3)] == ["pong", "pong", "late pong"]
    assert say(client, "what?") == "I don't know"


def test_turn_sequences_persist_across_requests_and_end_on_a_miss(serve: Callable[..., Running]) -> None:
    login = m.ResponseRule(
        m.Pattern("contains", "login"), m.Reply("Username?"),
        turns=(m.Turn(m.Pattern("any"), m.Reply("Password?")), m.Turn(m.Pattern("any"), m.Reply("Welcome."))),
    )  # fmt: skip
    review = m.ResponseRule(
        m.Pattern("contains", "review"), m.Reply("Share it."),
        turns=(m.Turn(m.Pattern("contains", "fix"), m.Reply("Fixed code.")),),
    )  # fmt: skip
    scenario = rules_scenario([login, review, rule("any", "", "Start with login or review.")])
    srv = serve(scenario)
    client = srv.anthropic()
    assert [say(client, t) for t in ("please login", "alice", "secret", "alice")] == [
        "Username?", "Password?", "Welcome.", "Start with login or review.",
    ]  # fmt: skip
    # a miss ends the sequence and the same text is matched normally
    assert say(client, "review this") == "Share it."
    assert say(client, "login again") == "Username?"
    # another API key has its own counters and sequences
    assert say(srv.anthropic(key="fresh"), "alice") == "Start with login or review."


def test_detailed_reply_usage_delay_and_tool_calls(serve: Callable[..., Running]) -> None:
    calls = (
        m.ToolCall("Bash", {"command": "ls -la"}),
        m.ToolCall("Write", {"file_path": "out.txt", "content": "x"}),
    )
    detailed = m.Reply(
        "Listing.", tool_calls=calls, usage={"input_tokens": 123, "output_tokens": 45}, delay_ms=300
    )
    scenario = rules_scenario([rule("contains", "list", detailed)], default=m.Reply("Done."))
    srv = serve(scenario, speed=1.0)
    client = srv.anthropic()
    start = time.monotonic()
    msg = client.messages.create(model="m", max_tokens=100, tools=CLAUDE_TOOLS, system="Primary working directory: /w",
                                 messages=[{"role": "user", "content": "list files"}])  # fmt: skip
    assert time.monotonic() - start >= 0.25
    assert (msg.usage.input_tokens, msg.usage.output_tokens) == (123, 45)
    assert msg.stop_reason == "tool_use"
    uses = [(b.name, b.input) for b in msg.content if b.type == "tool_use"]
    assert uses == [("Bash", {"command": "ls -la"}), ("Write", {"file_path": "/w/out.txt", "content": "x"})]
    # the tool results are what the next request is matched against; the default answers
    results = [
        {"type": "tool_result", "tool_use_id": b.id, "content": "ok"}
        for b in msg.content
        if b.type == "tool_use"
    ]
    history = [{"role": "user", "content": "list files"}, {"role": "assistant", "content": msg.content},
               {"role": "user", "content": results}]  # fmt: skip
    final = client.messages.create(model="m", max_tokens=100, tools=CLAUDE_TOOLS, messages=history)
    assert final.content[0].type == "text" and final.content[0].text == "Done."


def test_rules_speak_openai_styles_with_the_agents_tools(serve: Callable[..., Running]) -> None:
    scenario = rules_scenario(
        [rule("any", "", m.Reply("Running.", tool_calls=(m.ToolCall("Bash", {"command": "ls"}),)))]
    )
    srv = serve(scenario)
    out = srv.openai().responses.create(model="m", input="go", tools=[
        {"type": "function", "name": "exec_command", "parameters": {"type": "object", "properties": {"cmd": {}}}}])  # fmt: skip
    call = next(o for o in out.output if o.type == "function_call")
    assert (call.name, call.arguments) == ("exec_command", '{"cmd":"ls"}')  # type: ignore[union-attr]


def test_a_rule_regex_that_backtracks_without_end_stops_the_run_at_the_rule(
    serve: Callable[..., Running],
) -> None:
    """`(a|a)+$` on the agent's prompt held the server's event loop, and every request after it, for ever."""
    slow = m.ResponseRule(m.Pattern("regex", "(a|a)+$", Pos("rules.toml", 2, 39)), m.Reply("never"))
    srv = serve(rules_scenario([slow], default=m.Reply("fallback")))
    say(srv.anthropic(), "a" * 42 + "!")  # answered (empty): the run is stopped by the fatal failure
    assert srv.messages() == [
        "2: process: the rule's `regex` `(a|a)+$` was stopped after 1 s on a text of 43 characters: it backtracks "
        "without end (a repeat inside a repeat, as in `(a+)+` or `(a|a)+`); write it so that each part can match "
        "in one way only"
    ]
    assert srv.server.fatal is not None
