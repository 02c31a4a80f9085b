"""What a responder decides to say, before any API style shapes it.

A :class:`Reply` is a list of blocks (thinking, text, tool calls) whose text
comes in :class:`Chunk` pieces, each with the delay the scenario gives it; or an
API error the scenario scripts; or a failure to inject on the wire. The wire
modules turn it into their own events; :func:`shape` applies what each style
decides about thinking (shown or not for this request) and, with
``coalesceThinkingWithToolUse`` (on by default), lays the message out as a real
model does: all thinking first as one block, then the text as one block, then
the tool calls. Without it the blocks keep the scenario's order (interleaved
thinking).

Token counts are estimated at four characters per token, as Claudeless does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from workbench.scenario import model as m

from .conversation import ChatRequest

StopReason = Literal["end_turn", "tool_use", "max_tokens"]


def estimate_tokens(chars: int) -> int:
    return max(1, (chars + 3) // 4)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of text sent after waiting ``delay_ms`` (scenario time)."""

    text: str
    delay_ms: int = 0


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    chunks: tuple[Chunk, ...]

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.chunks)


@dataclass(frozen=True, slots=True)
class TextBlock:
    chunks: tuple[Chunk, ...]

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.chunks)


@dataclass(frozen=True, slots=True)
class ToolCallBlock:
    call_id: str
    name: str
    arguments: Mapping[str, Any]
    delay_ms: int = 0

    @property
    def arguments_json(self) -> str:
        return json.dumps(dict(self.arguments), ensure_ascii=False, separators=(",", ":"))


Block = ThinkingBlock | TextBlock | ToolCallBlock


@dataclass(frozen=True, slots=True)
class ApiError:
    """An HTTP error in the API's own shape (`llmResponse.error`, injected failures)."""

    status: int
    type: str
    message: str
    retry_after: int | None = None
    details: Any = None
    code: str | None = None  # OpenAI's `error.code`


@dataclass(frozen=True)
class Reply:
    blocks: tuple[Block, ...] = ()
    delay_ms: int = 0  # before the first event (Claudeless `delay_ms`)
    usage: Mapping[str, int] = field(default_factory=dict)  # explicit input_tokens / output_tokens
    error: ApiError | None = None
    inject: m.Fault | None = None
    truncated: bool = False
    coalesce_thinking: bool = True

    @property
    def tool_calls(self) -> tuple[ToolCallBlock, ...]:
        return tuple(b for b in self.blocks if isinstance(b, ToolCallBlock))

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.blocks if isinstance(b, TextBlock))

    @property
    def stop_reason(self) -> StopReason:
        if self.truncated:
            return "max_tokens"
        return "tool_use" if self.tool_calls else "end_turn"

    def output_chars(self) -> int:
        total = 0
        for b in self.blocks:
            total += len(b.arguments_json) if isinstance(b, ToolCallBlock) else len(b.text)
        return total

    def output_tokens(self) -> int:
        return int(self.usage.get("output_tokens", estimate_tokens(self.output_chars())))

    def input_tokens(self, request: ChatRequest) -> int:
        return int(self.usage.get("input_tokens", estimate_tokens(request.context_chars())))

    def reasoning_tokens(self) -> int:
        chars = sum(len(b.text) for b in self.blocks if isinstance(b, ThinkingBlock))
        return estimate_tokens(chars) if chars else 0

    def total_delay_ms(self) -> int:
        total = self.delay_ms
        for b in self.blocks:
            total += b.delay_ms if isinstance(b, ToolCallBlock) else sum(c.delay_ms for c in b.chunks)
        return total


def text_reply(text: str, *, delay_ms: int = 0, usage: Mapping[str, int] | None = None) -> Reply:
    blocks: tuple[Block, ...] = (TextBlock((Chunk(text),)),) if text else ()
    return Reply(blocks, delay_ms=delay_ms, usage=dict(usage or {}))


def limit_tokens(reply: Reply, max_tokens: int | None) -> Reply:
    """Cut a reply that would exceed ``max_tokens`` the way a real model stops:
    the text ends mid-way, no tool call follows, and the stop reason says why."""
    if max_tokens is None or max_tokens <= 0 or reply.output_tokens() <= max_tokens:
        return reply
    budget = max_tokens * 4
    blocks: list[Block] = []
    for block in reply.blocks:
        if budget <= 0 or isinstance(block, ToolCallBlock):
            break
        chunks: list[Chunk] = []
        for chunk in block.chunks:
            if budget <= 0:
                break
            chunks.append(Chunk(chunk.text[:budget], chunk.delay_ms))
            budget -= len(chunk.text)
        blocks.append(type(block)(tuple(chunks)))
    return replace(
        reply, blocks=tuple(blocks), truncated=True, usage={**reply.usage, "output_tokens": max_tokens}
    )


def shape(reply: Reply, *, show_thinking: bool, coalesce: bool) -> Reply:
    """Thinking dropped unless the style shows it for this request; with
    ``coalesce`` all thinking first, then the text, then the tool calls."""
    blocks = list(reply.blocks)
    if not show_thinking:
        blocks = [b for b in blocks if not isinstance(b, ThinkingBlock)]
    if coalesce:
        blocks = _coalesced(blocks)
    return replace(reply, blocks=tuple(blocks))


def _coalesced(blocks: list[Block]) -> list[Block]:
    thinking = [c for b in blocks if isinstance(b, ThinkingBlock) for c in b.chunks]
    text = _joined([b for b in blocks if isinstance(b, TextBlock)])
    out: list[Block] = []
    if thinking:
        out.append(ThinkingBlock(tuple(thinking)))
    if text:
        out.append(TextBlock(text))
    out.extend(b for b in blocks if isinstance(b, ToolCallBlock))
    return out


def _joined(texts: list[TextBlock]) -> tuple[Chunk, ...]:
    """Text blocks become one block; separate scenario elements are joined by a newline."""
    chunks: list[Chunk] = []
    for i, block in enumerate(texts):
        for j, chunk in enumerate(block.chunks):
            sep = "\n" if i > 0 and j == 0 and chunks and not chunks[-1].text.endswith("\n") else ""
            chunks.append(Chunk(sep + chunk.text, chunk.delay_ms))
    return tuple(chunks)


_DELTA = re.compile(r"\S+\s*|\s+")


def deltas(text: str, size: int = 16) -> Iterator[str]:
    """Split text into stream deltas of about ``size`` characters, on word boundaries
    (lazily: the first delta is ready before the rest of a long text is cut)."""
    if len(text) <= size:
        if text:
            yield text
        return
    current = ""
    for found in _DELTA.finditer(text):
        current += found.group()
        if len(current) >= size:
            yield current
            current = ""
    if current:
        yield current


def pieces(text: str, size: int = 24) -> list[str]:
    """Split a JSON string into fixed-size pieces (tool-call argument deltas)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
