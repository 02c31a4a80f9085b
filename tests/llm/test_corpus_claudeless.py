"""Claudeless example scenarios from the corpus, served to the Anthropic SDK."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anthropic
import pytest

from tests.llm.conftest import Running
from workbench.scenario.loader import load_scenario

pytestmark = pytest.mark.corpus


def say(client: anthropic.Anthropic, text: str) -> str:
    msg = client.messages.create(model="m", max_tokens=100, messages=[{"role": "user", "content": text}])
    return "".join(b.text for b in msg.content if b.type == "text")


def test_failures_toml(corpus: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load_scenario(corpus / "claudeless/scenarios/failures.toml", env={}))
    client = srv.anthropic()
    expected: list[tuple[str, type[Exception]]] = [
        ("trigger-timeout", anthropic.APIConnectionError),
        ("trigger-auth-error", anthropic.AuthenticationError),
        ("trigger-rate-limit", anthropic.RateLimitError),
        ("trigger-network-error", anthropic.APIConnectionError),
        ("trigger-credits", anthropic.PaymentRequiredError),
        ("trigger-partial", anthropic.APIConnectionError),
        ("trigger-malformed", ValueError),
    ]
    for prompt, error in expected:
        with pytest.raises(error):
            say(client, prompt)
    assert say(client, "hello") == "Normal response - no failure triggered"


def test_multi_turn_toml(corpus: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load_scenario(corpus / "claudeless/scenarios/multi_turn.toml", env={}))
    client = srv.anthropic()
    assert [say(client, t) for t in ("login please", "alice", "secret")] == [
        "Please enter your username:", "Please enter your password:", "Login successful! Welcome.",
    ]  # fmt: skip
    assert [say(client, t) for t in ("review my code", "ok", "no")] == [
        "I'll review your code. Please share it.", "I found a few issues. Let me explain...",
        "Please start by asking me to login or review code.",
    ]  # fmt: skip
