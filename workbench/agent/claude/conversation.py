"""One prompt, answered by the rules: the model turns it produces, with their tool calls run.

Claudeless's print-mode semantics: the first matching rule's reply is one model
turn (its text, then its tool calls, each run as ``tool_execution`` says). When
that rule started a ``turns`` sequence and the reply's calls all ran, the
conversation goes on by itself: the joined tool results are the next "prompt"
for the sequence's next turn, as Claudeless does (a chain such as Read, then
Edit). A reply's ``failure`` (or ``--failure``) ends the call as that API
error. ``--max-turns`` caps the number of model turns.

Token usage is the reply's ``usage`` when given, else estimated at four
characters a token; cost is $3 per million input tokens and $15 per million
output tokens (Claudeless's simulated price).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.agent.claude import ids
from workbench.agent.claude.tools import ToolRun
from workbench.scenario.matching import RuleMatcher

PRICE_IN, PRICE_OUT = 3e-6, 15e-6


@dataclass(eq=False)
class ToolUse:
    """A tool call of a model turn; ``run`` is what running it gave (None until it ran)."""

    id: str
    name: str
    input: Mapping[str, Any]
    run: ToolRun | None = None


@dataclass(eq=False)
class ModelTurn:
    """One answer of the scripted model: text, then tool uses (each with what running it gave)."""

    message_id: str
    request_id: str
    text: str
    tool_uses: list[ToolUse]
    input_tokens: int
    output_tokens: int

    @property
    def cost(self) -> float:
        return self.input_tokens * PRICE_IN + self.output_tokens * PRICE_OUT


@dataclass(eq=False)
class ApiFailure:
    """An injected API failure, in the shape Claude Code reports it: ``text`` is what it prints (the
    result), ``status`` the HTTP status (None for a connection failure), ``error_class`` the
    transcript's ``error`` field, ``partial`` text the model sent before a cut stream."""

    kind: str
    text: str
    status: int | None
    error_class: str
    partial: str = ""


@dataclass(eq=False)
class Conversation:
    """The model turns one prompt produced, the failure that ended it, the refused tool calls."""

    turns: list[ModelTurn] = field(default_factory=list)
    failure: ApiFailure | None = None
    denials: list[dict[str, Any]] = field(default_factory=list)
    api_ms: int = 0
    max_turns_reached: bool = False

    @property
    def result_text(self) -> str:
        for turn in reversed(self.turns):
            if turn.text:
                return turn.text
        return ""


def tokens(chars: int) -> int:
    """Claudeless's estimate for ``chars`` characters: four a token, at least one for any text."""
    return max(1, (chars + 3) // 4) if chars else 0


RunTool = Callable[[str, Mapping[str, Any], "str | None"], tuple[ToolRun, bool]]
"""(tool, input, canned result) -> (what it gave, whether it was allowed to run)."""


def answer(
    prompt: str,
    matcher: RuleMatcher,
    run_tool: RunTool,
    *,
    first_delay_ms: int,
    forced_failure: str | None,
    max_turns: int | None,
    sleep: Callable[[float], None] = time.sleep,
) -> Conversation:
    conv = Conversation()
    text = prompt
    context = len(prompt)
    if forced_failure:
        if first_delay_ms:
            sleep(first_delay_ms / 1000)
        conv.failure = failure_of(forced_failure.replace("-", "_"), {}, sleep)
        return conv
    while True:
        if max_turns is not None and len(conv.turns) >= max_turns:
            conv.max_turns_reached = True  # the model wanted another turn: Claude Code's error_max_turns
            break
        reply, failure = matcher.choose(text)
        delay = (first_delay_ms if not conv.turns else 0) + int(getattr(reply, "delay_ms", None) or 0)
        if delay:
            sleep(delay / 1000)
            conv.api_ms += delay
        if failure is not None:
            conv.failure = failure_of(failure.type, dict(failure.params), sleep)
            return conv
        if reply is None:
            if not conv.turns:
                conv.turns.append(_turn("", [], context, None))
            break
        uses = [ToolUse(ids.tool_use_id(), call.tool, dict(call.input)) for call in reply.tool_calls]
        turn = _turn(reply.text, uses, context, getattr(reply, "usage", None))
        conv.turns.append(turn)
        all_ran = True
        for use, call in zip(uses, reply.tool_calls, strict=True):
            use.run, allowed = run_tool(use.name, use.input, call.result)
            if not allowed:
                all_ran = False
                conv.denials.append(
                    {"tool_name": use.name, "tool_use_id": use.id, "tool_input": dict(use.input)}
                )
        if not uses or not all_ran or matcher.active is None:
            break
        text = "\n".join(use.run.content for use in uses if use.run is not None)
        context += len(text) + len(reply.text)
    return conv


def _turn(text: str, uses: list[ToolUse], context: int, usage: Mapping[str, int] | None) -> ModelTurn:
    out_chars = len(text) + sum(len(json.dumps(dict(u.input))) for u in uses)
    usage = usage or {}
    return ModelTurn(
        message_id=ids.message_id(),
        request_id=ids.request_id(),
        text=text,
        tool_uses=uses,
        input_tokens=int(usage.get("input_tokens", tokens(context))),
        output_tokens=int(usage.get("output_tokens", tokens(out_chars) or 1)),
    )


def _body(error_type: str, message: str, **extra: Any) -> str:
    return json.dumps({"type": "error", "error": {"type": error_type, "message": message, **extra}},
                      separators=(",", ":"))  # fmt: skip


def failure_of(kind: str, params: Mapping[str, Any], sleep: Callable[[float], None]) -> ApiFailure:
    """Claude Code's report of one Claudeless failure type (unknown types are a generic API error)."""
    if kind == "network_unreachable":
        return ApiFailure(kind, "API Error: Connection error.", None, "unknown")
    if kind == "connection_timeout":
        sleep(int(params.get("after_ms", 5000)) / 1000)
        return ApiFailure(kind, "API Error: Request timed out.", None, "unknown")
    if kind == "auth_error":
        message = str(params.get("message", "Invalid API key"))
        body = _body("authentication_error", message)
        return ApiFailure(kind, f"API Error: 401 {body} · Please run /login", 401, "authentication_failed")
    if kind == "rate_limit":
        after = int(params.get("retry_after", 60))
        body = _body("rate_limit_error", f"Rate limit exceeded. Retry after {after} seconds.")
        return ApiFailure(kind, f"API Error: 429 {body}", 429, "rate_limit")
    if kind == "out_of_credits":
        return ApiFailure(kind, "Credit balance is too low", 400, "billing_error")
    if kind == "partial_response":
        partial = str(params.get("partial_text", ""))
        return ApiFailure(kind, "API Error: Connection error.", None, "unknown", partial=partial)
    if kind == "malformed_json":
        raw = str(params.get("raw", ""))
        return ApiFailure(kind, f"API Error: invalid JSON in the response: {raw}", None, "unknown")
    return ApiFailure(kind, f"API Error: 500 {_body('api_error', kind)}", 500, "unknown")
