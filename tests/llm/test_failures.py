"""Claudeless failure injection: each surfaces as the SDK's own exception type, and the server keeps serving."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from tests.llm.conftest import Running, rule, rules_scenario
from workbench.scenario import model as m


def failing(kind: str, **params: Any) -> m.Reply:
    return m.Reply("", failure=m.Fault(kind, params))


SCENARIO = rules_scenario(
    [
        rule("contains", "trigger-network", failing("network_unreachable")),
        rule("contains", "trigger-timeout", failing("connection_timeout", after_ms=50)),
        rule("contains", "trigger-auth", failing("auth_error", message="API key expired")),
        rule("contains", "trigger-rate", failing("rate_limit", retry_after=30)),
        rule("contains", "trigger-credits", failing("out_of_credits")),
        rule("contains", "trigger-partial", failing("partial_response", partial_text="I was about to say")),
        rule(
            "contains", "trigger-malformed", failing("malformed_json", raw='{"type":"message","content":[{')
        ),
    ],
    default=m.Reply("Normal response"),
    name="failures",
)


def ask(client: anthropic.Anthropic, text: str, **kw: Any) -> anthropic.types.Message:
    return client.messages.create(
        model="m", max_tokens=50, messages=[{"role": "user", "content": text}], **kw
    )


def test_anthropic_sdk_exception_types(serve: Callable[..., Running]) -> None:
    srv = serve(SCENARIO)
    client = srv.anthropic()
    with pytest.raises(anthropic.APIConnectionError):
        ask(client, "trigger-network")
    with pytest.raises(anthropic.APIConnectionError):
        ask(client, "trigger-timeout")
    with pytest.raises(anthropic.AuthenticationError) as auth:
        ask(client, "trigger-auth")
    assert auth.value.status_code == 401 and "API key expired" in str(auth.value)
    with pytest.raises(anthropic.RateLimitError) as rate:
        ask(client, "trigger-rate")
    assert rate.value.response.headers["retry-after"] == "30"
    with pytest.raises(anthropic.PaymentRequiredError) as credits:
        ask(client, "trigger-credits")
    assert isinstance(credits.value.body, dict) and credits.value.body["error"]["type"] == "billing_error"
    with pytest.raises(anthropic.APIConnectionError):
        ask(client, "trigger-partial")
    with pytest.raises(ValueError):  # the SDK's JSON decoder rejects the body
        ask(client, "trigger-malformed")
    assert ask(client, "hello").content[0].text == "Normal response"  # type: ignore[union-attr]


def test_a_stream_cut_after_the_partial_text(serve: Callable[..., Running]) -> None:
    srv = serve(SCENARIO)
    seen: list[str] = []
    client = srv.anthropic()
    messages = [{"role": "user", "content": "trigger-partial"}]
    with (
        pytest.raises((anthropic.APIConnectionError, httpx2.TransportError)),
        client.messages.stream(model="m", max_tokens=50, messages=messages) as stream,  # type: ignore[arg-type]
    ):
        seen.extend(stream.text_stream)
    assert "".join(seen) == "I was about to say"
    with pytest.raises(ValueError):  # a malformed event cannot be decoded
        list(srv.anthropic().messages.create(model="m", max_tokens=50, stream=True,
                                             messages=[{"role": "user", "content": "trigger-malformed"}]))  # fmt: skip


def test_openai_sdk_exception_types(serve: Callable[..., Running]) -> None:
    srv = serve(SCENARIO)
    client = srv.openai()

    def chat(text: str) -> Any:
        return client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])

    with pytest.raises(openai.APIConnectionError):
        chat("trigger-network")
    with pytest.raises(openai.AuthenticationError) as auth:
        chat("trigger-auth")
    assert isinstance(auth.value.body, dict) and auth.value.body["code"] == "invalid_api_key"
    with pytest.raises(openai.RateLimitError) as rate:
        chat("trigger-rate")
    assert rate.value.response.headers["retry-after"] == "30" and rate.value.code == "rate_limit_exceeded"
    with pytest.raises(openai.RateLimitError) as credits:
        chat("trigger-credits")
    assert credits.value.code == "insufficient_quota"
    with pytest.raises(openai.APIConnectionError):
        client.responses.create(model="m", input="trigger-timeout")
    with pytest.raises(openai.APIConnectionError):
        client.responses.create(model="m", input="trigger-partial")
    assert chat("hi").choices[0].message.content == "Normal response"
