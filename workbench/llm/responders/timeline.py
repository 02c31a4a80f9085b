"""The timeline responder: each request gets the scenario's next model turn.

The timeline is cut into *units* in file order. An ``llmResponse`` starts a
reply unit; the agent actions written right after it (``agentToolUse``, the
tool-specific events, ``agentEdits`` with ``oldText``/``newText``) join it as
tool calls, so the model asks for them in the same message, as a real model
does (the original mock sent them as separate responses, which a real agent
never asks for). A reply made only of thinking (a legacy top-level ``think``)
absorbs the next agent event. Every other event is a step of its own.

A request is answered in three moves:

1. the results of the previous reply's tool calls, found in the request by call
   id, are compared with the scenario's ``result`` / ``status``;
2. the steps up to the next reply are played: ``assert`` is checked (workspace
   checks here, the rest through the engine's hook), a ``userInputs`` text that
   is not in the agent's new prompt is noted, and the engine's step hook sees
   every step;
3. the next reply unit is sent, its text paced at the scenario's timing.

A request that repeats the previous conversation exactly (an agent retrying
after a cut stream) gets the same reply again instead of the next one; a
scripted ``error`` is consumed, so the agent's retry gets the following turn.
Requests after the last reply get an empty answer and a failure.

Side requests the server cannot recognise up front are found afterwards, from
the structure of the conversation, not from what they say: when a request that
offers tools does not continue from the previous reply (no new model turn, none
of its call ids, not its text), and the request that received it offered none,
that request was a side request (a title, a router, a summary asked before the
real turn) and the reply is served again to this one. A request that offers no tools never receives a
tool call: the calls are held back, and served when the reply is served again
to the real turn; if it never is, they are a failure.

An agent may end the session from inside a tool call (a "submit" command): the
unanswered calls of the last reply are then a note, not a failure (the
workspace asserts still check the outcome).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, assert_never

from workbench.scenario import model as m
from workbench.timeline import Schedule, Step, StepKind

from ..checks import LlmFailure, ServerKind, check_assert, compare_tool_result
from ..profiles import Call
from ..reply import ApiError, Block, Chunk, Reply, TextBlock, ThinkingBlock, ToolCallBlock
from . import Hooks, Record, TurnContext

_KEYS = re.compile(r"<[A-Za-z][\w+-]*>")  # key notation in typed input, e.g. <Enter>, <C-c>


@dataclass
class Unit:
    kind: str  # reply | step
    steps: list[Step] = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.steps[0].pos.line if self.steps else 0

    @property
    def last_index(self) -> int:
        return max((s.index for s in self.steps), default=-1)


def build_units(schedule: Schedule) -> list[Unit]:
    """Cut a schedule into reply units and single steps (see the module docstring)."""
    by_event: dict[int, list[Step]] = {}
    for step in schedule.steps:
        by_event.setdefault(step.event_index, []).append(step)
    units: list[Unit] = []
    current: Unit | None = None
    for index, event in enumerate(schedule.scenario.timeline):
        steps = by_event.get(index, [])
        if isinstance(event, m.LlmResponse):
            if current is not None and _only_thinking(current):
                current.steps.extend(steps)
                continue
            current = Unit("reply", list(steps))
            units.append(current)
        elif isinstance(event, m.ToolUse | m.FileEdit):
            if current is None:
                current = Unit("reply", [])
                units.append(current)
            current.steps.extend(steps)
        elif isinstance(event, m.AcpEvent) and event.name == "agentPlan":
            if current is None:  # the model states the plan: a call to the agent's todo tool
                current = Unit("reply", [])
                units.append(current)
            current.steps.extend(steps)
        elif event.actor == "agent":
            continue  # other ACP-only agent events have no place on the model's wire
        else:
            current = None
            units.extend(Unit("step", [s]) for s in steps)
    return units


def _only_thinking(unit: Unit) -> bool:
    return bool(unit.steps) and all(s.kind is StepKind.THINK for s in unit.steps)


@dataclass
class _Served:
    """The last reply sent, to tell later whether the conversation took it up."""

    unit: int
    call_ids: frozenset[str]
    text: str
    history: int  # model turns and tool results in the request it answered
    tools: bool  # whether that request offered tools
    withheld: tuple[Step, ...] = ()  # calls not sent: the request offered no tools, or forbade calls
    forbade: bool = False  # the request offered tools and forbade calls (tool_choice none)


@dataclass
class _Pending:
    tool: m.ToolUse
    step: Step  # the tool-result step: its index and line name the failure
    name: str  # the agent tool it was sent as


class TimelineResponder:
    def __init__(self, schedule: Schedule, record: Record, hooks: Hooks | None = None) -> None:
        self.schedule = schedule
        self.scenario = schedule.scenario
        self.units = build_units(schedule)
        self.record = record
        self.hooks = hooks or Hooks()
        self.cursor = 0
        self._position = -1
        self._pending: dict[str, _Pending] = {}
        self._last: tuple[str, int] | None = None  # (conversation fingerprint, unit index) of the last reply
        self._served: _Served | None = None
        self._served_again: set[int] = set()  # units served again once (never twice: no loops)
        self._pieces = _piece_index(self.scenario)

    # ------------------------------------------------------------------ protocol

    def tool_uses(self) -> list[tuple[str, Mapping[str, Any]]]:
        out: list[tuple[str, Mapping[str, Any]]] = []
        for unit in self.units:
            for step in unit.steps:
                if step.kind is StepKind.TOOL_START and isinstance(step.item, m.ToolUse):
                    out.append((step.item.tool_name, step.item.args))
        return out

    def position(self) -> int:
        return self._position

    async def respond(self, ctx: TurnContext) -> Reply:
        fingerprint = _fingerprint(ctx)
        if self._last is not None and self._last[0] == fingerprint:
            ctx.notes.append("the agent repeated its last request; the same reply was sent again")
            return self._reply(self.units[self._last[1]], ctx)
        self._serve_again_if_unused(ctx)
        self._check_results(ctx)
        await self._play_steps(ctx)
        if self.cursor >= len(self.units):
            self._fail("expect", "the agent asked for a response after the scenario's last one", 0, 0)
            return Reply()
        index = self.cursor
        if ctx.chat.one_call and ctx.chat.callable:
            self._one_call(index)
        unit = self.units[index]
        self.cursor += 1
        withheld: list[Step] = []
        reply = self._reply(unit, ctx, withheld)
        scripted = reply.error is not None or reply.inject is not None
        self._last = None if scripted else (fingerprint, index)  # a retry after a failure gets the next turn
        calls = frozenset(c.call_id for c in reply.tool_calls)
        self._served = (
            None
            if scripted
            else _Served(
                index,
                calls,
                reply.text.strip(),
                _history(ctx),
                ctx.chat.callable,
                tuple(withheld),
                ctx.chat.no_calls,
            )
        )
        self._position = max(self._position, unit.last_index)
        ctx.consumed = f"line {unit.line}"
        return reply

    def _one_call(self, index: int) -> None:
        """The agent takes one tool call per reply: the unit's later calls become replies of their own,
        each sent when the agent asks again with the result of the one before."""
        unit = self.units[index]
        starts = [i for i, s in enumerate(unit.steps) if s.kind in (StepKind.TOOL_START, StepKind.EDIT)
                  or (s.kind is StepKind.ACP and _is_plan(s))]  # fmt: skip
        if len(starts) > 1:
            cut = starts[1]
            self.units[index : index + 1] = [Unit("reply", unit.steps[:cut]), Unit("reply", unit.steps[cut:])]

    def _serve_again_if_unused(self, ctx: TurnContext) -> None:
        """Serve the last reply again if the request it went to turned out to be a side request."""
        last, self._served = self._served, None
        if last is None or not (last.text or last.call_ids or last.withheld):
            return
        chat = ctx.chat
        used = _history(ctx) > last.history or bool(
            last.call_ids
            & ({c for msg in chat.messages for c in msg.tool_calls} | set(chat.tool_results_by_id()))
        )
        used = used or bool(
            last.text and any(last.text in msg.text for msg in chat.messages if msg.role == "assistant")
        )
        unit = self.units[last.unit]
        if used or last.tools or not chat.callable or last.unit in self._served_again:
            self._fail_withheld(last)
            return
        self._served_again.add(last.unit)
        self.cursor = last.unit
        self._pending.clear()
        ctx.consumed = "served again"
        ctx.notes.append(f"the request that received the reply at line {unit.line} turned out to be a side request "
                         "(the conversation did not continue from it); that reply was served again")  # fmt: skip

    async def finish(self) -> None:
        last_reply = all(u.kind == "step" for u in self.units[self.cursor :])
        for pending in self._pending.values():
            if last_reply:  # the agent ended the session from inside the call (a "submit" command)
                self._fail("note", f"{pending.tool.tool_name}: the agent ended without sending the result of its "
                           f"{pending.name} call, the last of the scenario", pending.step.pos.line, pending.step.index)  # fmt: skip
            else:
                self._fail("tool", f"{pending.tool.tool_name}: the agent never sent the result of its {pending.name} call",
                           pending.step.pos.line, pending.step.index)  # fmt: skip
        self._pending.clear()
        if self._served is not None:
            self._fail_withheld(self._served)
            self._served = None
        while self.cursor < len(self.units):
            unit = self.units[self.cursor]
            if unit.kind == "step":
                await self._play_steps(None)
                continue
            self._fail(
                "expect",
                "the agent never asked for this response",
                unit.line,
                unit.steps[0].index if unit.steps else 0,
            )
            self.cursor += 1

    def _fail_withheld(self, served: _Served) -> None:
        for step in served.withheld:
            name = step.item.tool_name if isinstance(step.item, m.ToolUse) else "editFile"
            why = "forbade tool calls (tool_choice none)" if served.forbade else "offered no tools"
            self._fail("tool", f"{name}: the request that received this reply {why}, so the call was never sent",
                       step.pos.line, step.index)  # fmt: skip

    # ------------------------------------------------------------------ moves

    def _check_results(self, ctx: TurnContext) -> None:
        if not self._pending:
            return
        results = ctx.chat.tool_results_by_id()
        for call_id, pending in list(self._pending.items()):
            result = results.get(call_id)
            line, step = pending.step.pos.line, pending.step.index
            if result is None:
                self._fail("tool", f"{pending.tool.tool_name}: the agent sent no result for its {pending.name} call "
                           f"({call_id})", line, step)  # fmt: skip
                continue
            problem = compare_tool_result(pending.tool, result)
            if problem:
                self._fail("tool", f"{pending.tool.tool_name} ({pending.name}): {problem}", line, step)
        self._pending.clear()

    async def _play_steps(self, ctx: TurnContext | None) -> None:
        """Play the steps up to the next reply, each through the engine's step hook (a real agent's driver
        waits there until the runner has played it, so that the reply comes after them). A request with no
        reply left to get (one being recorded, past the file's last) does not wait: nothing it gets can
        overtake those steps, and the runner may be paused at one of them."""
        end = self.cursor
        while end < len(self.units) and self.units[end].kind == "step":
            end += 1
        hook = ctx is None or end < len(self.units)
        while self.cursor < end:
            step = self.units[self.cursor].steps[0]
            self.cursor += 1
            if isinstance(step.event, m.Assert | m.AssertGit):
                await self._assert(step)
            elif ctx is not None and step.kind is StepKind.INPUT and isinstance(step.item, m.InputItem):
                self._compare_input(step, step.item, ctx)
            if hook:
                await self.hooks.step(step)
            self._position = max(self._position, step.index)

    def _compare_input(self, step: Step, item: m.InputItem, ctx: TurnContext) -> None:
        """A note when the agent's new prompt is not what the scenario's user typed (scenario drift, or the
        agent rewrote the prompt); never a failure here. The engine hears of the prompt either way: a request
        that reaches an input the run has not typed yet shows that the agent has its prompt from elsewhere
        (its command line), and the engine decides what that means (:class:`Hooks.prompt`)."""
        typed = " ".join(_KEYS.sub(" ", item.text).split())
        if not typed or ctx.chat.ends_with_tool_results():
            return
        holds = ctx.chat.last_prompt_has(typed)
        if ctx.chat.last_prompt():
            self.hooks.prompt(step, ctx.chat.last_prompt(), holds)
        if not holds:
            prompt = " ".join(ctx.chat.last_prompt()[:200].split())
            message = f"the scenario's input {typed[:60]!r} is not in the agent's prompt {prompt[:60]!r}"
            self.record(LlmFailure("note", message, step.pos.line, step.index, self.scenario.file,
                                   expected=typed, actual=ctx.chat.last_prompt()))  # fmt: skip

    async def _assert(self, step: Step) -> None:
        event = step.event
        if isinstance(event, m.Assert):
            problems, notes = await check_assert(event, self.hooks.workspace)
            for problem in problems:
                self._fail("assert", problem, step.pos.line, step.index)
        else:
            notes = []
        verdict = await self.hooks.assert_step(step)
        if verdict is not None:
            for failure in verdict:
                self.record(failure)
        elif isinstance(event, m.Assert) and event.text_contains:
            notes.append("text.contains skipped: the screen lives in the engine (no on_assert hook)")
        elif isinstance(event, m.AssertGit):
            notes.append("assertGit skipped: no on_assert hook")
        for note in notes:
            self.record(LlmFailure("note", note, step.pos.line, step.index, self.scenario.file))

    def _fail(self, kind: ServerKind, message: str, line: int, step: int) -> None:
        self.record(LlmFailure(kind, message, line, step, self.scenario.file))

    # ------------------------------------------------------------------ the reply

    def _reply(self, unit: Unit, ctx: TurnContext, withheld: list[Step] | None = None) -> Reply:
        blocks: list[Block] = []
        chunks: list[Chunk] = []
        current: tuple[StepKind, int, int] | None = None  # (kind, event index, piece index) of `chunks`
        prev_at = _start_of(unit)
        self._pending.clear()

        def close() -> None:
            if current is not None and chunks:
                blocks.append((ThinkingBlock if current[0] is StepKind.THINK else TextBlock)(tuple(chunks)))
            chunks.clear()

        for step in unit.steps:
            match step.kind:
                case StepKind.THINK | StepKind.ASSISTANT:
                    key = (step.kind, step.event_index, self._pieces.get(id(step.item), 0))
                    if key != current:
                        close()
                        current = key
                    chunks.append(Chunk(step.text.text, max(0, step.at_ms - prev_at)))
                    prev_at = step.at_ms
                case StepKind.LLM_ERROR:
                    e = step.error
                    if e.fault is not None:
                        return Reply(inject=e.fault)
                    return Reply(
                        error=ApiError(
                            e.status_code, e.error_type, e.message, e.retry_after_seconds, e.details
                        )
                    )
                case StepKind.TOOL_START | StepKind.EDIT if not ctx.chat.callable:
                    if withheld is not None:  # a request that offers no tools never receives a tool call
                        withheld.append(step)
                case StepKind.TOOL_START:
                    close()
                    current = None
                    block = self._tool_call(step.tool, unit, step, ctx)
                    if block is not None:
                        blocks.append(block)
                    prev_at = max(prev_at, step.at_ms)
                case StepKind.EDIT:
                    if isinstance(step.event, m.FileEdit):
                        close()
                        current = None
                        call = self._edit_call(step, ctx)
                        if call is not None:
                            blocks.append(call)
                case StepKind.ACP if _is_plan(step) and ctx.chat.tools:
                    close()
                    current = None
                    plan = self._plan_call(step, ctx)
                    if plan is not None:
                        blocks.append(plan)
                case (StepKind.LLM_RESPONSE | StepKind.TOOL_PROGRESS | StepKind.TOOL_OUTPUT | StepKind.TOOL_RESULT
                      | StepKind.ACP | StepKind.INPUT | StepKind.KEY | StepKind.CANCEL | StepKind.ADVANCE
                      | StepKind.CONTROL):  # fmt: skip
                    pass  # not part of the model's reply
                case unknown:
                    assert_never(unknown)
        close()
        return Reply(tuple(blocks), coalesce_thinking=self.scenario.server.coalesce_thinking_with_tool_use)

    def _tool_call(self, tool: m.ToolUse, unit: Unit, start: Step, ctx: TurnContext) -> ToolCallBlock | None:
        call = ctx.map_tool(tool.tool_name, tool.args)
        if call.unmapped:
            self._unmapped(call, start)
            return None
        if call.missing:
            self._fail("tool", unfit(tool.tool_name, tool.args, call, ctx), start.pos.line, start.index)
        call_id = ctx.new_call_id(call.name)
        result_step = next(
            (s for s in unit.steps if s.kind is StepKind.TOOL_RESULT and s.item is tool), start
        )
        self._pending[call_id] = _Pending(tool, result_step, call.name)
        return ToolCallBlock(call_id, call.name, call.args)

    def _edit_call(self, step: Step, ctx: TurnContext) -> ToolCallBlock | None:
        edit = step.event
        assert isinstance(edit, m.FileEdit)
        old, new = edit.extra.get("oldText"), edit.extra.get("newText")
        if not isinstance(old, str) or not isinstance(new, str):
            self._fail("note", f"agentEdits {edit.path}: no oldText/newText, so no edit tool call can be sent",
                       step.pos.line, step.index)  # fmt: skip
            return None
        args = {"path": edit.path, "old_string": old, "new_string": new}
        call = ctx.map_tool("editFile", args)
        if call.unmapped:
            self._unmapped(call, step)
            return None
        if call.missing:
            self._fail("tool", unfit("editFile", args, call, ctx), step.pos.line, step.index)
        return ToolCallBlock(ctx.new_call_id(call.name), call.name, call.args)

    def _plan_call(self, step: Step, ctx: TurnContext) -> ToolCallBlock | None:
        """``agentPlan`` as the model's call to the agent's todo tool, so that the agent itself reports
        the plan (an agent with no such tool: a note, the plan cannot reach it)."""
        data = step.event.data if isinstance(step.event, m.AcpEvent) else None
        entries = data.get("entries") if isinstance(data, Mapping) else None
        todos = [{"content": str(e.get("content", "")), "status": str(e.get("status", "pending")),
                  "activeForm": str(e.get("content", ""))} for e in entries or [] if isinstance(e, Mapping)]  # fmt: skip
        call = ctx.map_tool("todoWrite", {"todos": todos})
        if call.unmapped:
            self._fail("note", f"agentPlan: the agent offers no tool to state a plan with ({call.unmapped})",
                       step.pos.line, step.index)  # fmt: skip
            return None
        return ToolCallBlock(ctx.new_call_id(call.name), call.name, call.args)

    def _unmapped(self, call: Call, step: Step) -> None:
        """No offered tool does the job: the call is not sent, and the run stops at its line."""
        self.record(
            LlmFailure("tool", call.unmapped, step.pos.line, step.index, self.scenario.file, fatal=True)
        )


def _is_plan(step: Step) -> bool:
    return isinstance(step.event, m.AcpEvent) and step.event.name == "agentPlan"


def unfit(name: str, args: Mapping[str, Any], call: Call, ctx: TurnContext) -> str:
    """Why a call could not be sent as the offered tool wants it: the call and the offered schema."""
    offered = next((t for t in ctx.chat.tools if t.name == call.name), None)
    schema = json.dumps(offered.schema if offered else None, ensure_ascii=False)
    return (f"{name} {json.dumps(dict(args), ensure_ascii=False)}: sent as `{call.name}`, which requires "
            f"{', '.join(call.missing)}, and no argument of the call maps to it; the offered schema: {schema[:800]}")  # fmt: skip


def _start_of(unit: Unit) -> int:
    """When the model starts the unit: its first text item's time minus its own offset."""
    if not unit.steps:
        return 0
    first = unit.steps[0]
    if isinstance(first.item, m.TimedText):
        return first.at_ms - first.item.ms
    return first.at_ms


def _piece_index(scenario: m.Scenario) -> dict[int, int]:
    """id(item) -> the index of its think/assistant piece, to keep pieces apart."""
    out: dict[int, int] = {}
    for event in scenario.timeline:
        if isinstance(event, m.LlmResponse):
            for n, piece in enumerate(event.pieces):
                if isinstance(piece, m.Thinking | m.Assistant):
                    for item in piece.items:
                        out[id(item)] = n
    return out


def _history(ctx: TurnContext) -> int:
    """How far a conversation has got: its model turns and tool results."""
    return sum((msg.role == "assistant") + len(msg.tool_results) for msg in ctx.chat.messages)


def _fingerprint(ctx: TurnContext) -> str:
    return ctx.chat.fingerprint
