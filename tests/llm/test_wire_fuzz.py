"""Every registered wire refuses what its API would refuse with a WireError (HTTP 400 in
its shape), never with another exception (an HTTP 500): arbitrary JSON, and the
fields each API knows filled with arbitrary values."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from workbench.llm.wire import WIRES, Wire, WireError

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
KEYS = ["model", "messages", "max_tokens", "system", "tools", "stream", "thinking", "output_config", "input",
        "instructions", "max_output_tokens", "text", "reasoning", "include", "response_format", "stream_options",
        "max_completion_tokens", "contents", "systemInstruction", "generationConfig", "role", "content", "parts",
        "functionDeclarations", "functionCall", "functionResponse", "type", "name", "tool_calls"]  # fmt: skip
FIELDS = st.dictionaries(st.sampled_from(KEYS), JSON, max_size=6)
PARAMS = st.fixed_dictionaries(
    {"model": st.text(max_size=5)},
    optional={"method": st.sampled_from(["generateContent", "streamGenerateContent"])},
)


def parses_or_refuses(wire: Wire, body: Any, params: dict[str, str]) -> None:
    """Any exception but a WireError fails the test (hypothesis shows the body)."""
    with contextlib.suppress(WireError):
        wire.parse(body, params)


@pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.style)
@settings(max_examples=150)
@given(body=JSON | FIELDS, params=PARAMS)
@example(
    body={"contents": [{"parts": [{"functionResponse": {"name": "x", "response": None}}]}]},
    params={"model": "m"},
)
@example(body={"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "tool_result"}]}]},
         params={"model": "m"})  # fmt: skip
def test_bad_bodies_are_wire_errors(wire: Wire, body: Any, params: dict[str, str]) -> None:
    parses_or_refuses(wire, body, params)


@pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.style)
@settings(max_examples=100)
@given(messages=st.lists(st.dictionaries(st.sampled_from(KEYS), JSON, max_size=4), max_size=3))
def test_bad_turns_inside_a_valid_request_are_wire_errors(wire: Wire, messages: list[Any]) -> None:
    bodies = {"anthropic": {"model": "m", "max_tokens": 5, "messages": messages},
              "openai-chat": {"model": "m", "messages": messages},
              "openai-responses": {"model": "m", "input": messages},
              "gemini": {"contents": messages}}  # fmt: skip
    parses_or_refuses(wire, bodies[wire.style], {"model": "m"})
