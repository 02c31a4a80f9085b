"""Several scenarios per server: chosen by header or by prompt, isolated by API key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anthropic
import pytest

from tests.llm.conftest import Running, load, rule, rules_scenario
from workbench.llm.sessions import session_key


def two(tmp_path: Path) -> list:  # type: ignore[type-arg]
    fix = load(tmp_path, "name: fix-bug\ntimeline:\n  - userInputs: [[0, fix the failing test in parser.py]]\n"
               "  - llmResponse: [{assistant: [[0, fixing]]}]\n  - userInputs: [[0, thanks]]\n"
               "  - llmResponse: [{assistant: [[0, you are welcome]]}]\n", "a.yaml")  # fmt: skip
    docs = load(tmp_path, "name: write-docs\ntimeline:\n  - userInputs: [[0, write the README for the project]]\n"
                "  - llmResponse: [{assistant: [[0, writing docs]]}]\n", "b.yaml")  # fmt: skip
    return [fix, docs]


def ask(client: anthropic.Anthropic, text: str, **kw: object) -> str:
    msg = client.messages.create(model="m", max_tokens=50, messages=[{"role": "user", "content": text}], **kw)  # type: ignore[arg-type]
    return "".join(b.text for b in msg.content if b.type == "text")


def test_choice_by_closest_prompt(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(two(tmp_path))
    assert ask(srv.anthropic(key="k1"), "Please write a README for this project") == "writing docs"
    assert ask(srv.anthropic(key="k2"), "fix the failing test in parser") == "fixing"
    # Claude Code's reminder blocks around the prompt are not part of it
    reminder = {"type": "text", "text": "<system-reminder>\ncontext\n</system-reminder>"}
    content = [reminder, {"type": "text", "text": "write the README for the project"}]
    msg = srv.anthropic(key="k3").messages.create(
        model="m", max_tokens=50, messages=[{"role": "user", "content": content}]
    )
    assert msg.content[0].type == "text" and msg.content[0].text == "writing docs"
    assert sorted(s.scenario.name for s in srv.server.sessions) == ["fix-bug", "write-docs", "write-docs"]


def test_choice_by_header_wins_and_unknown_names_are_404(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(two(tmp_path))
    client = srv.anthropic(default_headers={"x-scenario-name": "fix-bug"})
    assert ask(client, "write the README for the project") == "fixing"
    with pytest.raises(anthropic.NotFoundError) as info:
        ask(srv.anthropic(default_headers={"x-scenario-name": "nope"}), "hi")
    assert "no scenario named `nope`" in str(info.value) and "fix-bug, write-docs" in str(info.value)


def test_sessions_are_isolated_by_api_key(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(two(tmp_path)[:1])
    a, b = srv.anthropic(key="alice"), srv.anthropic(key="bob")
    history = [{"role": "user", "content": "fix it"}, {"role": "assistant", "content": "fixing"}]
    assert ask(a, "fix it") == "fixing"
    assert ask(b, "fix it") == "fixing"
    second = a.messages.create(
        model="m", max_tokens=50, messages=[*history, {"role": "user", "content": "thanks"}]
    )  # type: ignore[list-item]
    assert second.content[0].type == "text" and second.content[0].text == "you are welcome"
    # Bearer tokens key sessions too (Claude Code with ANTHROPIC_AUTH_TOKEN, every OpenAI client)
    chat = srv.openai(key="carol").chat.completions.create(
        model="m", messages=[{"role": "user", "content": "fix"}]
    )
    assert chat.choices[0].message.content == "fixing"
    assert {s.key for s in srv.server.sessions} == {"alice", "bob", "carol"}


def test_session_keys() -> None:
    assert session_key({"x-api-key": "k"}) == "k"
    assert session_key({"authorization": "Bearer tok"}) == "tok"
    assert session_key({"api-key": "az"}) == "az"
    assert session_key({}) == "default-session"


def test_rule_sets_are_chosen_when_a_specific_rule_matches(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    rules = rules_scenario([rule("contains", "deploy", "deploying")], name="ops")
    srv = serve([*two(tmp_path), rules])
    assert ask(srv.anthropic(key="x"), "deploy to staging") == "deploying"
