"""The request every API style sends, in the one shape the responders read.

Each wire module parses its own body into a :class:`ChatRequest`: the model,
whether to stream, the conversation as :class:`Message` objects (system and
developer entries included, wherever they appear), the tools offered and the
output options that change what a real API would send back (thinking,
reasoning summaries, usage chunks, structured output).

Real agents wrap context around what the user typed: Claude Code puts
``<system-reminder>`` blocks in the first user message, Codex sends
``<environment_context>`` and ``# AGENTS.md instructions`` as user messages of
their own. That text is context, not a prompt, so :attr:`Message.prompt` leaves
it out; scenario selection and Claudeless patterns see what the user typed.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Style = str
"""A wire style's name (``anthropic``, ``openai-chat``...): the styles are the registry ``llm.wire.WIRES``."""

_ENVELOPE = re.compile(r"\A\s*<([A-Za-z][\w -]*)>.*</\1>\s*\Z", re.S)
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
_CONTEXT_PREFIXES = ("# AGENTS.md instructions",)


def _cwd_patterns() -> list[re.Pattern[str]]:
    """How each known agent states its working directory (Claude Code, Codex, pi, Gemini CLI...): read
    from the registry when asked, which imports this module (and so that an agent registered later counts)."""
    from .agents import AGENTS

    return [re.compile(p) for agent in AGENTS.values() for p in agent.cwd_patterns]


def is_context(text: str) -> bool:
    """Text an agent adds around the prompt (a whole `<tag>...</tag>` block, AGENTS.md)."""
    return bool(_ENVELOPE.match(text)) or text.lstrip().startswith(_CONTEXT_PREFIXES)


def prompt_of(texts: tuple[str, ...]) -> str:
    """What the user typed: the text blocks without agent context and reminders."""
    kept = [t for t in texts if not is_context(t)]
    return _REMINDER.sub("", "\n".join(kept)).strip()


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A tool result the agent sends back: Anthropic `tool_result`, a `role: tool`
    message, or a Responses `function_call_output`."""

    call_id: str
    text: str
    is_error: bool | None = None


@dataclass(frozen=True, slots=True)
class Message:
    role: str  # system | developer | user | assistant | tool
    texts: tuple[str, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    tool_calls: tuple[str, ...] = ()  # ids of the calls an assistant message made
    _prompt: str | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def text(self) -> str:
        return "\n".join(self.texts)

    @property
    def prompt(self) -> str:
        """What the user typed (computed once: a 32 MB prompt is cleaned of reminders once, not per use)."""
        prompt = self._prompt
        if prompt is None:
            prompt = prompt_of(self.texts) if self.role == "user" else ""
            object.__setattr__(self, "_prompt", prompt)
        return prompt


@dataclass(frozen=True, slots=True)
class ToolDef:
    """A tool the request offers: its name, wire type and input schema's property names."""

    name: str
    type: str = "function"
    properties: frozenset[str] | None = None
    required: frozenset[str] = frozenset()
    schema: Any = field(default=None, compare=False, hash=False)  # the input schema as offered
    description: str = field(default="", compare=False, hash=False)  # what the tool says it does


@dataclass(frozen=True)
class ChatRequest:
    style: Style
    model: str
    messages: tuple[Message, ...]
    stream: bool = False
    system: str = ""
    tools: tuple[ToolDef, ...] = ()
    max_tokens: int | None = None
    thinking: bool = False  # Anthropic `thinking` enabled or adaptive
    reasoning_summary: bool = False  # Responses `reasoning.summary` asked for
    encrypted_reasoning: bool = False  # Responses `include: [reasoning.encrypted_content]`
    include_usage: bool = False  # Chat `stream_options.include_usage`
    output_schema: Mapping[str, Any] | None = None  # structured output: the JSON schema
    json_mode: bool = False  # `response_format: {type: json_object}` and friends
    # at most one tool call per reply: Chat and Responses `parallel_tool_calls: false`, Anthropic
    # `tool_choice.disable_parallel_tool_use`
    one_call: bool = False
    no_calls: bool = False  # tools offered, none to be called: `tool_choice` none (Gemini's mode NONE)
    # the tool `tool_choice` names, which the reply must call (Gemini's mode ANY allowing only it); see forced_tool
    chosen_tool: Any = None

    @property
    def callable(self) -> bool:
        """Whether a reply to this request may call a tool: it offers tools and does not forbid calls."""
        return bool(self.tools) and not self.no_calls

    raw: Mapping[str, Any] = field(default_factory=dict)
    route: Mapping[str, str] = field(default_factory=dict)  # what the path said (model, API method)

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools)

    @property
    def forced_tool(self) -> str | None:
        """The offered tool the reply must call (a ``tool_choice`` naming one that is not offered, which a
        real API refuses, forces nothing here)."""
        name = self.chosen_tool
        return name if isinstance(name, str) and name in self.tool_names and not self.no_calls else None

    @functools.cached_property
    def fingerprint(self) -> str:
        """A hash of the conversation's texts and tool results (a retried request has the same one)."""
        h = hashlib.sha256()
        for msg in self.messages:
            h.update(msg.role.encode())
            for text in msg.texts:
                h.update(b"\0" + text.encode("utf-8", "replace"))
            for result in msg.tool_results:
                h.update(b"\1" + result.call_id.encode() + b"\2" + result.text.encode("utf-8", "replace"))
        return h.hexdigest()

    def last_prompt_has(self, words: str) -> bool:
        """Whether the last prompt holds ``words`` (single-spaced) where each space may be any run of
        whitespace: what the user typed, however the agent wrapped it. No normalised copy of the prompt
        is made (a 32 MB prompt would be another 32 MB to hand back from the worker process)."""
        prompt = self.last_prompt()
        if words in prompt:
            return True
        return re.search(r"\s+".join(map(re.escape, words.split())), prompt) is not None

    def understood(self) -> ChatRequest:
        """This request with what grows with its size computed now (prompts, fingerprint): the server
        calls it in a worker process for a large body, so the event loop never does that work."""
        self.first_prompt()
        _ = self.fingerprint
        return self

    def first_prompt(self) -> str:
        """The first thing the user typed in this conversation."""
        for msg in self.messages:
            if msg.role == "user" and msg.prompt:
                return msg.prompt
        return ""

    def last_prompt(self) -> str:
        for msg in reversed(self.messages):
            if msg.role == "user" and msg.prompt:
                return msg.prompt
        return ""

    def has_model_history(self) -> bool:
        """Whether the conversation holds anything the model said before (or results of its calls)."""
        return any(msg.role == "assistant" or msg.tool_results for msg in self.messages)

    def trailing_tool_results(self) -> tuple[ToolResult, ...]:
        """The results sent since the last assistant message (this turn's results)."""
        out: list[ToolResult] = []
        for msg in reversed(self.messages):
            if msg.role == "assistant":
                break
            out[:0] = msg.tool_results
        return tuple(out)

    def tool_results_by_id(self) -> dict[str, ToolResult]:
        return {r.call_id: r for msg in self.messages for r in msg.tool_results}

    def ends_with_tool_results(self) -> bool:
        """True when the agent is continuing after tools, not answering a new prompt."""
        for msg in reversed(self.messages):
            if msg.role in ("system", "developer"):
                continue
            return bool(msg.tool_results)
        return False

    def matching_text(self) -> str:
        """What Claudeless patterns are matched against: this turn's tool results
        joined, when the agent continues after tools; else the last prompt."""
        if self.ends_with_tool_results():
            return "\n".join(r.text for r in self.trailing_tool_results())
        return self.last_prompt()

    def agent_cwd(self) -> str | None:
        """The agent's working directory as its own prompt states it."""
        texts = [self.system, *(t for m in self.messages if m.role != "assistant" for t in m.texts)]
        for pattern in _cwd_patterns():
            for text in texts:
                found = pattern.search(text)
                if found:
                    return found.group(1).strip()
        return None

    def context_chars(self) -> int:
        """The size of everything the model would read, for token estimates."""
        total = len(self.system)
        for msg in self.messages:
            total += sum(len(t) for t in msg.texts) + sum(len(r.text) for r in msg.tool_results)
        return total
