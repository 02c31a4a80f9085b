"""The Claudeless responder: ordered pattern rules, turn sequences, failure injection.

The text matched is the request's last prompt, or, when the agent continues
after tools, this turn's tool results joined by newlines (how Claudeless itself
continues a turn sequence after auto-executed tools). Matching follows
Claudeless v1: rules in order, first match wins; `exact` is full equality,
`regex` an unanchored search, `glob` must match the whole text, `contains` a
case-sensitive substring, `any` always. A rule whose `max_matches` is used up
is skipped. A rule with `turns` starts a sequence: the next requests are
matched only against the current turn's `expect`; a miss ends the sequence and
normal matching runs on the same text. Counters and the active sequence live in
the session, so they persist across the agent's requests (the per-process reset
of Claudeless is what its users asked to lift).

Scripted tool calls are sent as the agent's own tools through the profile; a
call's `result` is what Claudeless would have returned without running the
tool, and a real agent runs it, so it is not compared. ``response_delay_ms``
applies to the first reply, as in Claudeless.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workbench.scenario import model as m
from workbench.scenario.matching import RuleMatcher
from workbench.scenario.user_regex import PatternTooSlow

from ..checks import LlmFailure
from ..reply import Block, Chunk, Reply, TextBlock, ToolCallBlock
from . import Record, TurnContext


class RulesResponder:
    def __init__(self, scenario: m.Scenario, rules: m.RuleSet, record: Record) -> None:
        self.scenario = scenario
        self.rules = rules
        self.record = record
        self.matcher = RuleMatcher(rules)
        self.replies = 0

    def tool_uses(self) -> list[tuple[str, Mapping[str, Any]]]:
        replies = [r.reply for r in self.rules.rules] + [t.reply for r in self.rules.rules for t in r.turns]
        replies.append(self.rules.default_reply)
        return [(c.tool, c.input) for r in replies if r is not None for c in r.tool_calls]

    def position(self) -> int:
        return -1

    async def finish(self) -> None:
        return None

    async def respond(self, ctx: TurnContext) -> Reply:
        text = ctx.chat.matching_text()
        chosen, failure = self._choose(text)
        first = self.replies == 0
        self.replies += 1
        extra_delay = self.rules.timeouts.response_delay_ms if first else 0
        if chosen is None and failure is None:
            line = ctx.chat.matching_text()[:60]
            self.record(LlmFailure("note", f"no rule matched {line!r} and there is no default_response; "
                                   "an empty reply was sent", 0, 0, self.scenario.file))  # fmt: skip
            return Reply(delay_ms=extra_delay)
        return self._reply(chosen, failure, ctx, extra_delay)

    def _choose(self, text: str) -> tuple[m.Reply | None, m.Fault | None]:
        """The rule's reply; a rule `regex` too slow for the prompt stops the run, placed at the pattern."""
        try:
            return self.matcher.choose(text)
        except PatternTooSlow as exc:
            line = exc.pos.line if exc.pos else 0
            self.record(LlmFailure("process", str(exc), line, 0, self.scenario.file, fatal=True))
            return None, None

    def _reply(
        self, chosen: m.Reply | None, failure: m.Fault | None, ctx: TurnContext, extra_delay: int
    ) -> Reply:
        delay = extra_delay + ((chosen.delay_ms or 0) if chosen else 0)
        if failure is not None:
            return Reply(delay_ms=delay, inject=failure)
        assert chosen is not None
        blocks: list[Block] = []
        if chosen.text:
            blocks.append(TextBlock((Chunk(chosen.text),)))
        for tool in chosen.tool_calls:
            call = ctx.map_tool(tool.tool, tool.input)
            if call.unmapped:  # no offered tool does the job: not sent, the run stops
                self.record(LlmFailure("tool", call.unmapped, 0, 0, self.scenario.file, fatal=True))
                continue
            blocks.append(ToolCallBlock(ctx.new_call_id(call.name), call.name, call.args))
        usage = {k: int(v) for k, v in chosen.usage.items() if k in ("input_tokens", "output_tokens")}
        return Reply(tuple(blocks), delay_ms=delay, usage=usage)
