"""Serving a playbook to an agent through the mock LLM server, with its checks.

The responder answers each request of one conversation (any wire style; the
server shapes, streams and paces the reply):

* a request that ends with tool results continues the turn: the results of the
  previous response's calls are recorded (``tool_results``, as the agent
  reported them) and handed to each call's ``.then`` callback; a call with no
  result at all is recorded in ``blocked_calls``;
* any other request is a new user turn: the previous turn must be used up (else
  a failure naming what it left), and its prompt must contain the next
  :func:`when`'s prompt;
* the next response of the turn is then sent: thinking, text and every tool call
  it holds (late-bound params are computed now), mapped to the agent's own tools.

When the agent asks for more than the playbook has, it gets an API error (HTTP
400, so agents do not retry) whose message is the diagnostic, and the same
diagnostic fails the test; pi's faux provider answers with an error too. What
the playbook scripted but the agent never asked for fails the test when the
server finishes. Unlike the pi harness, none of these is a silent pass.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from workbench.llm.checks import LlmFailure
from workbench.llm.reply import ApiError, Block, Chunk, Reply, TextBlock, ThinkingBlock, ToolCallBlock
from workbench.llm.responders import Record, TurnContext
from workbench.llm.responders.timeline import _fingerprint
from workbench.playbook.dsl import Action, Call, Playbook, Say, Think, ToolResultRecord, Turn
from workbench.playbook.events import Events, MessageRecord, ToolCallRecord
from workbench.playbook.texts import (
    callback_failed,
    exhausted,
    not_consumed,
    params_failed,
    prompt_mismatch,
    tool_error,
    turn_left_over,
    unknown_tool,
)

EXHAUSTED_STATUS = 400  # a client error: agents do not retry it, as they retry 429/5xx


@dataclass
class PlaybookFailure:
    """A way the conversation broke the playbook; ``message`` is the diagnostic shown to the user."""

    kind: str  # exhausted | not-consumed | turn | prompt | callback | params | unknown-tool | tool-error
    message: str
    turn: int = 0
    step: int = 0

    def __str__(self) -> str:
        return self.message


@dataclass
class _Pending:
    call: Call
    step: int
    turn: int
    call_id: str
    sent_as: str
    params: dict[str, Any]


@dataclass
class PlaybookState:
    """What a playbook's conversation did so far: shared by the responder, the run and the test."""

    playbook: Playbook
    events: Events = field(default_factory=Events)
    failures: list[PlaybookFailure] = field(default_factory=list)
    consumed: int = 0
    mocked_calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # call id -> the mock's details
    stopped: PlaybookFailure | None = None  # a failure after which the agent cannot go on

    @property
    def total(self) -> int:
        return len(self.playbook.actions)

    @property
    def remaining(self) -> int:
        return self.total - self.consumed


class PlaybookResponder:
    """A :class:`~workbench.llm.responders.Responder` that plays a :class:`Playbook` (see the module docstring)."""

    def __init__(self, state: PlaybookState, record: Record, response_steps: list[list[int]] | None = None,
                 file: str = "") -> None:  # fmt: skip
        self.state = state
        self.playbook = state.playbook
        self.record = record
        self.file = file
        self.response_steps = response_steps  # turn -> response -> last schedule step index
        self.turn = -1  # index into playbook.turns
        self.response = 0  # index of the next response in the current turn
        self._responses: list[list[tuple[Action, ...]]] = [t.responses() for t in self.playbook.turns]
        self._pending: list[_Pending] = []
        self._last: tuple[str, Reply] | None = None
        self._last_consumed: tuple[int, int, Action] | None = None  # (step, turn, action)
        self._position = -1

    # ------------------------------------------------------------------ Responder protocol

    def tool_uses(self) -> list[tuple[str, Any]]:
        return [
            (a.tool, a.params) for _, a in self.playbook.actions if isinstance(a, Call) and not a.late_bound
        ]

    def position(self) -> int:
        return self._position

    async def respond(self, ctx: TurnContext) -> Reply:
        fingerprint = _fingerprint(ctx)
        if self._last is not None and self._last[0] == fingerprint:
            return self._last[1]  # the agent retried the same request (a cut stream): same answer
        if ctx.chat.ends_with_tool_results():
            self._take_results(ctx)
        else:
            self._new_turn(ctx)
        reply = self._next(ctx)
        self._last = (fingerprint, reply)
        return reply

    async def finish(self) -> None:
        for pending in self._pending:
            self._blocked(pending)
        self._pending.clear()
        left = self._left()
        if left and self.state.stopped is None:  # a stopped playbook has said why it did not finish
            self._fail("not-consumed", not_consumed(self.state.consumed, self.state.total, left))

    # ------------------------------------------------------------------ moves

    def _new_turn(self, ctx: TurnContext) -> None:
        for pending in self._pending:
            self._blocked(pending)
        self._pending.clear()
        if 0 <= self.turn < len(self.playbook.turns):
            left = self._left_in_turn()
            if left:
                turn = self.playbook.turns[self.turn]
                self._fail("turn", turn_left_over(self.turn + 1, turn, left), self.turn + 1)
                self._skip_rest_of_turn()
        self.turn += 1
        self.response = 0
        prompt = ctx.chat.last_prompt()
        self.state.events.add_message(MessageRecord("user", prompt, self.turn + 1))
        if self.turn < len(self.playbook.turns):
            expected = self.playbook.turns[self.turn]
            if " ".join(expected.prompt.split()) not in " ".join(prompt.split()):
                self._fail("prompt", prompt_mismatch(self.turn + 1, expected, prompt), self.turn + 1)

    def _take_results(self, ctx: TurnContext) -> None:
        results = ctx.chat.tool_results_by_id()
        for pending in self._pending:
            result = results.get(pending.call_id)
            if result is None:
                self._blocked(pending)
                continue
            mock = self.state.mocked_calls.get(pending.call_id)
            record = ToolResultRecord(pending.step, pending.turn, pending.call.tool, pending.call_id, result.text,
                                      bool(result.is_error), mock is not None, mock or {})  # fmt: skip
            self.state.events.add_result(record)
            if pending.call.callback is not None:
                try:
                    pending.call.callback(record)
                except Exception:
                    text = callback_failed(pending.call, pending.step, pending.turn, traceback.format_exc())
                    self._fail("callback", text, pending.turn, pending.step)
        self._pending.clear()

    def _next(self, ctx: TurnContext) -> Reply:
        if self.turn >= len(self.playbook.turns) or self.response >= len(self._responses[self.turn]):
            return self._exhausted()
        actions = self._responses[self.turn][self.response]
        self.response += 1
        blocks: list[Block] = []
        texts: list[str] = []
        for action in actions:
            self.state.consumed += 1
            step = self.state.consumed
            self._last_consumed = (step, self.turn + 1, action)
            if isinstance(action, Think):
                blocks.append(ThinkingBlock((Chunk(action.text),)))
            elif isinstance(action, Say):
                blocks.append(TextBlock((Chunk(action.text),)))
                texts.append(action.text)
            else:
                block = self._call(action, step, ctx)
                if block is None:
                    return Reply(
                        error=ApiError(
                            EXHAUSTED_STATUS, "invalid_request_error", self.state.failures[-1].message
                        )
                    )
                blocks.append(block)
        if texts:
            self.state.events.add_message(MessageRecord("assistant", "\n".join(texts), self.turn + 1))
        if self.response_steps is not None:
            self._position = max(self._position, self.response_steps[self.turn][self.response - 1])
        return Reply(tuple(blocks), coalesce_thinking=False)

    def _call(self, action: Call, step: int, ctx: TurnContext) -> ToolCallBlock | None:
        params: Any = action.params
        if callable(params):
            try:
                params = dict(params())
            except Exception:
                self._stop("params", params_failed(action, step, self.turn + 1, traceback.format_exc()),
                           self.turn + 1, step)  # fmt: skip
                return None
        mapped = ctx.map_tool(action.tool, dict(params))
        if mapped.name not in ctx.chat.tool_names:
            self._stop("unknown-tool", unknown_tool(action, step, self.turn + 1, ctx.chat.tool_names),
                       self.turn + 1, step)  # fmt: skip
            return None
        call_id = ctx.new_call_id(mapped.name)  # Gemini's ids are the call's name and order
        self._pending.append(_Pending(action, step, self.turn + 1, call_id, mapped.name, dict(params)))
        self.state.events.add_call(ToolCallRecord(step, self.turn + 1, action.tool, dict(params), call_id,
                                                  mapped.name, dict(mapped.args)))  # fmt: skip
        return ToolCallBlock(call_id, mapped.name, mapped.args)

    def _exhausted(self) -> Reply:
        nxt = self._next_expected()
        last = self._last_consumed
        text = exhausted(self.state.consumed, self.state.total, last[2] if last else None,
                         last[1] if last else 0, last[0] if last else 0, nxt, self._left())  # fmt: skip
        self._fail("exhausted", text, self.turn + 1)
        return Reply(
            error=ApiError(EXHAUSTED_STATUS, "invalid_request_error", "[PLAYBOOK EXHAUSTED] " + text)
        )

    # ------------------------------------------------------------------ bookkeeping

    def _left_in_turn(self) -> list[tuple[int, Action]]:
        if not 0 <= self.turn < len(self.playbook.turns):
            return []
        return [(self.turn + 1, a) for r in self._responses[self.turn][self.response :] for a in r]

    def _left(self) -> list[tuple[int, Action]]:
        later = [(n + 1, a) for n in range(max(self.turn + 1, 0), len(self.playbook.turns))
                 for a in self.playbook.turns[n].actions]  # fmt: skip
        return self._left_in_turn() + later

    def _skip_rest_of_turn(self) -> None:
        """Leftovers of a turn are never served to the next one (the pi harness's single queue did that)."""
        self.response = len(self._responses[self.turn])

    def _next_expected(self) -> Turn | None:
        nxt = self.turn + 1
        return self.playbook.turns[nxt] if nxt < len(self.playbook.turns) else None

    def _blocked(self, pending: _Pending) -> None:
        self.state.events.add_blocked(ToolCallRecord(pending.step, pending.turn, pending.call.tool, pending.params,
                                                     pending.call_id, pending.sent_as))  # fmt: skip

    def tool_crashed(self, call_id: str, trace: str) -> None:
        """A ``mock_tools`` function raised while the agent ran the call: with ``propagate_errors``, the
        playbook stops here (the pi harness's "Error during tool execution at playbook step N")."""
        pending = next((p for p in self._pending if p.call_id == call_id), None)
        if pending is not None:
            text = tool_error(pending.step, pending.turn, pending.call, trace)
            self._stop("tool-error", text, pending.turn, pending.step)

    def _stop(self, kind: str, message: str, turn: int, step: int) -> None:
        """A failure after which the conversation cannot go on: the run ends now, not at its timeout."""
        self._fail(kind, message, turn, step)
        if self.state.stopped is None:
            self.state.stopped = self.state.failures[-1]

    def _fail(self, kind: str, message: str, turn: int = 0, step: int = 0) -> None:
        self.state.failures.append(PlaybookFailure(kind, message, turn, step))
        self.record(LlmFailure("tool" if kind == "tool-error" else "expect", message, 0, step, self.file))


Hook = Callable[[str, dict[str, Any]], None]
