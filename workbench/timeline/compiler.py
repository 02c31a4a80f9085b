"""Compile a scenario's events into one schedule of steps in virtual time.

Time is counted in *segments*. A segment starts at the scenario's start and after
each ``advanceMs`` / ``baseTimeDelta``:

* agent events of a segment run one after another from its start, each taking
  its own durations (think/assistant items, progress deltas, ``toolExecution``
  offsets); agent steps therefore never overlap;
* a user input's ``[ms, input]`` is an offset from the segment's start, so it runs
  concurrently with the agent events around it; the ``{relativeTime, input}``
  form is absolute from the scenario's start and becomes an offset in its
  segment (below zero is an error: time went backwards);
* the ``advanceMs`` that closes a segment must be at least the largest user
  offset in it; the next segment starts at the later of (segment start +
  ``advanceMs``) and the end of the segment's agent events;
* other user events (keys, commands, edits) and control events (screenshots,
  asserts, ...) happen at their place in the file's order: after everything
  written before them in the segment has happened.

Within one think/assistant element, ``{relativeTime}`` items are offsets from the
element's start and ``[ms, text]`` tuples are delays after the previous item; the
element ends at its last item, and the next element starts there.
"""

from __future__ import annotations

import json
from dataclasses import field
from typing import Any, Literal, TypeVar

from workbench.records import frozen, record
from workbench.scenario import model as m
from workbench.scenario.diagnostics import Diagnostic, Pos, ScenarioError, Severity
from workbench.scenario.events import StepKind, quote, spec_of, summarize

Actor = Literal["agent", "user", "control"]


P = TypeVar("P")

Item = m.TimedText | m.InputItem | m.ExecutionEvent | m.ToolUse | m.LlmError | None
"""What a step plays of its event: the TimedText of a think/assistant/tool-progress step, the InputItem of an
input, the ExecutionEvent of a tool-output, the ToolUse of a tool-start/tool-result, the LlmError of an
llm-error; None for the others (their event is all there is)."""


@frozen
class Step:
    """One thing that happens at one virtual time."""

    index: int
    at_ms: int
    actor: Actor
    kind: StepKind
    action: str  # the name in traces: the kind's, or a control event's spec's
    summary: str
    event: m.Event
    event_index: int
    pos: Pos
    item: Item = None
    end_ms: int = -1

    @property
    def line(self) -> int:
        return self.pos.line

    def payload(self, cls: type[P]) -> P:
        """The step's item, which its kind says is a ``cls``."""
        assert isinstance(self.item, cls), self.kind
        return self.item

    @property
    def text(self) -> m.TimedText:  # think, assistant, tool-progress
        return self.payload(m.TimedText)

    @property
    def input(self) -> m.InputItem:
        return self.payload(m.InputItem)

    @property
    def output(self) -> m.ExecutionEvent:  # tool-output
        return self.payload(m.ExecutionEvent)

    @property
    def tool(self) -> m.ToolUse:  # tool-start, tool-result
        return self.payload(m.ToolUse)

    @property
    def error(self) -> m.LlmError:
        return self.payload(m.LlmError)


@frozen
class Schedule:
    scenario: m.Scenario
    steps: tuple[Step, ...]
    duration_ms: int

    def steps_of(self, event_index: int) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.event_index == event_index)

    def step_at_line(self, line: int) -> Step | None:
        """The first step written at or after ``line`` (for an editor cursor)."""
        best: Step | None = None
        for step in self.steps:
            if step.pos.line >= line and (best is None or step.pos.line < best.pos.line):
                best = step
        return best


# The kinds as module constants: an enum member's attribute lookup costs ~0.2 us in Python 3.11.
_ADVANCE, _INPUT, _LLM_RESPONSE, _EDIT, _THINK, _ASSISTANT, _LLM_ERROR = (StepKind.ADVANCE, StepKind.INPUT, StepKind.LLM_RESPONSE, StepKind.EDIT, StepKind.THINK, StepKind.ASSISTANT, StepKind.LLM_ERROR)  # fmt: skip
_TOOL_START, _TOOL_PROGRESS, _TOOL_OUTPUT, _TOOL_RESULT, _CONTROL = (StepKind.TOOL_START, StepKind.TOOL_PROGRESS, StepKind.TOOL_OUTPUT, StepKind.TOOL_RESULT, StepKind.CONTROL)  # fmt: skip


@record
class _State:
    seg_start: int = 0
    agent_t: int = 0
    now: int = 0  # the time by which everything written so far has happened
    user_max: tuple[int, Pos] | None = None
    seg_pos: Pos | None = None
    steps: list[tuple[int, int, Actor, StepKind, str, str, m.Event, int, Pos, Item, int]] = field(
        default_factory=list
    )

    def emit(self, at: int, actor: Actor, kind: StepKind, summary: str, event: m.Event, event_index: int,
             pos: Pos, item: Item = None, end: int = -1, action: str | None = None) -> None:  # fmt: skip
        """``action``: the name in traces, when it is not the kind's (a control event's spec's)."""
        self.steps.append(
            (at, len(self.steps), actor, kind, action or kind, summary, event, event_index, pos, item, end)
        )
        self.now = max(self.now, at)


def compile_schedule(scenario: m.Scenario) -> Schedule:
    """Turn ``scenario.timeline`` into a time-ordered schedule; raise ScenarioError on timing errors."""
    st = _State()
    for index, event in enumerate(scenario.timeline):
        if isinstance(event, m.AdvanceMs):
            _advance(st, event, index)
        elif event.actor == "agent":
            _agent(st, event, index)
        elif isinstance(event, m.UserInputs):
            _inputs(st, event, index)
        else:
            actor: Actor = "user" if event.actor == "user" else "control"
            spec = spec_of(event)
            if spec is None:
                st.emit(
                    st.now,
                    actor,
                    _CONTROL,
                    type(event).__name__,
                    event,
                    index,
                    event.pos,
                    action=type(event).__name__,
                )
            else:
                st.emit(
                    st.now, actor, spec.kind, spec.summary(event), event, index, event.pos, action=spec.action
                )
    ordered = sorted(st.steps, key=lambda s: (s[0], s[1]))
    steps = tuple(
        Step(
            i,
            at,
            actor,
            kind,
            action,
            summary,
            event,
            ev_index,
            pos,
            item,
            end if end >= 0 else at,
        )
        for i, (at, _, actor, kind, action, summary, event, ev_index, pos, item, end) in enumerate(ordered)
    )
    duration = max([st.now, st.agent_t, *(s.end_ms for s in steps)], default=0)
    return Schedule(scenario, steps, duration)


def early_inputs(schedule: Schedule) -> list[Diagnostic]:
    """A warning for each input the clock types before a control step (a screenshot, an assert) the file
    puts above it: valid (a user event's time counts from its segment's start, beside the agent), but
    a second prompt written after a turn's screenshot without an ``advanceMs`` reads as coming after it."""
    out: list[Diagnostic] = []
    latest: Step | None = None  # of the control steps above, the one the clock plays last
    for step in sorted(schedule.steps, key=lambda s: (s.event_index, s.index)):
        if step.kind is _CONTROL and (latest is None or step.at_ms > latest.at_ms):
            latest = step
        elif step.kind is _INPUT and latest is not None and step.at_ms < latest.at_ms:
            out.append(Diagnostic(step.pos, (
                f"this input is typed at {step.at_ms / 1000:.3f} s, before the {latest.action} at line "
                f"{latest.pos.line} above it ({latest.at_ms / 1000:.3f} s): a user event's time counts from "
                "the start of its segment, so it runs beside the agent's turn; to type it after the steps "
                "above it, put an `advanceMs` before it (0 is enough)"), Severity.WARNING))  # fmt: skip
    return out


def _advance(st: _State, event: m.AdvanceMs, index: int) -> None:
    if st.user_max is not None and event.ms < st.user_max[0]:
        offset, upos = st.user_max
        raise ScenarioError.at(
            event.pos,
            f"advanceMs {event.ms} is shorter than the user input at line {upos.line} "
            f"({offset} ms into this segment); it must be at least {offset}",
        )
    end = st.seg_start + event.ms
    start = max(end, st.agent_t)
    st.emit(start, "control", _ADVANCE, summarize(event), event, index, event.pos)
    st.seg_start = st.agent_t = st.now = start
    st.user_max = None
    st.seg_pos = event.pos


def _inputs(st: _State, event: m.UserInputs, index: int) -> None:
    for item in event.items:
        if item.timing is m.Timing.ABSOLUTE:
            offset = item.ms - st.seg_start
            if offset < 0:
                since = f" (set by the time advance at line {st.seg_pos.line})" if st.seg_pos else ""
                raise ScenarioError.at(
                    item.pos,
                    f"time went backwards: input at relativeTime {item.ms} ms is before the start of its segment, "
                    f"{st.seg_start} ms{since}",
                )
        else:
            offset = item.ms
        if st.user_max is None or offset >= st.user_max[0]:
            st.user_max = (offset, item.pos)
        st.emit(
            st.seg_start + offset,
            "user",
            _INPUT,
            f"input {quote(item.text)}",
            event,
            index,
            item.pos,
            item,
        )


def _agent(st: _State, event: m.Event, index: int) -> None:
    t = st.agent_t
    if isinstance(event, m.LlmResponse):
        if not event.pieces:
            st.emit(t, "agent", _LLM_RESPONSE, "llmResponse (empty)", event, index, event.pos)
        for piece in event.pieces:
            t = _piece(st, piece, event, index, t)
    elif isinstance(event, m.ToolUse):
        t = _tool(st, event, event, index, t)
    elif isinstance(event, m.FileEdit):
        st.emit(t, "agent", _EDIT, summarize(event), event, index, event.pos)
    else:
        st.emit(t, "agent", _kind(event), summarize(event), event, index, event.pos)
    st.agent_t = t
    st.now = max(st.now, t)


def _piece(st: _State, piece: m.Thinking | m.Assistant | m.LlmError | m.ToolUse, event: m.LlmResponse, index: int,
           t: int) -> int:  # fmt: skip
    if isinstance(piece, m.Thinking | m.Assistant):
        kind, label = (_THINK, "think") if isinstance(piece, m.Thinking) else (_ASSISTANT, "assistant")
        start = prev = t
        for item in piece.items:
            at = start + item.ms if item.timing is m.Timing.OFFSET else prev + item.ms
            prev = at
            st.emit(at, "agent", kind, f"{label} {quote(item.text)}", event, index, item.pos, item)
        return max(prev, t)
    if isinstance(piece, m.LlmError):
        st.emit(
            t,
            "agent",
            _LLM_ERROR,
            f"error {piece.status_code} {piece.error_type}",
            event,
            index,
            piece.pos,
            piece,
        )
        return t
    return _tool(st, piece, event, index, t)


def _tool(st: _State, tool: m.ToolUse, event: m.Event, index: int, t: int) -> int:
    event_index = index
    name = tool.tool_name
    st.emit(t, "agent", _TOOL_START, f"tool {name} {_args(tool)}", event, event_index, tool.pos, tool)
    end = t
    for item in tool.progress:
        end += item.ms
        st.emit(
            end,
            "agent",
            _TOOL_PROGRESS,
            f"tool {name} progress {quote(item.text)}",
            event,
            event_index,
            item.pos,
            item,
        )
    for out in tool.execution:
        at = t + out.time_ms
        label = f"exit {out.exit_code}" if out.type == "completion" else quote(out.content)
        st.emit(
            at,
            "agent",
            _TOOL_OUTPUT,
            f"tool {name} {out.type} {label}",
            event,
            event_index,
            out.pos,
            out,
        )
        end = max(end, at)
    result = (
        ""
        if tool.result is None
        else " " + quote(tool.result if isinstance(tool.result, str) else json.dumps(tool.result))
    )
    st.emit(
        end,
        "agent",
        _TOOL_RESULT,
        f"tool {name} {tool.status}{result}",
        event,
        event_index,
        tool.pos,
        tool,
        end,
    )
    return end


def _kind(event: m.Event) -> StepKind:
    spec = spec_of(event)
    return spec.kind if spec is not None else _CONTROL


def _args(tool: m.ToolUse) -> str:
    if not tool.args:
        return "{}"
    parts = [f"{k}: {quote(v, 32) if isinstance(v, str) else _quote_json(v)}" for k, v in tool.args.items()]
    return "{" + ", ".join(parts) + "}"


def _quote_json(value: Any, limit: int = 32) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
