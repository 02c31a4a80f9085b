"""The three API styles the mock LLM server speaks: parse, render, errors."""

from .anthropic import AnthropicWire
from .common import Output, Wire, WireError
from .openai_chat import ChatWire
from .openai_responses import ResponsesWire

__all__ = ["AnthropicWire", "ChatWire", "Output", "ResponsesWire", "Wire", "WireError"]
