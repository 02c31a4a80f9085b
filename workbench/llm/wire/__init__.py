"""The API styles the mock LLM server speaks, one module each; :data:`WIRES` is
the registry the server iterates (an extension point: one module, one line here)."""

from collections.abc import Mapping, Sequence

from .anthropic import AnthropicWire
from .common import Output, Route, Wire, WireError
from .gemini import GeminiWire
from .openai_chat import ChatWire
from .openai_responses import ResponsesWire

WIRES: tuple[Wire, ...] = (AnthropicWire(), ChatWire(), ResponsesWire(), GeminiWire())


def wire_named(style: str) -> Wire:
    """The registered wire of a style (`anthropic`, `openai-chat`, ...)."""
    for wire in WIRES:
        if wire.style == style:
            return wire
    raise KeyError(f"unknown API style `{style}`; known: {', '.join(w.style for w in WIRES)}")


def wire_for(path: str, headers: Mapping[str, str], among: Sequence[Wire] = WIRES) -> Wire:
    """The wire a request was meant for, among ``among``: the first that claims
    it, else the fallback (OpenAI's shape), else the first."""
    for wire in among:
        if wire.claims(path, headers):
            return wire
    return next((w for w in among if w.fallback), among[0])


__all__ = [
    "WIRES",
    "AnthropicWire",
    "ChatWire",
    "GeminiWire",
    "Output",
    "ResponsesWire",
    "Route",
    "Wire",
    "WireError",
    "wire_for",
    "wire_named",
]
