"""A scenario cut into ACP prompt turns.

An ACP agent answers prompts; a scenario is one timeline. The cut:

* every user input starts a turn; the agent steps written after it (in file
  order) until the next input are the answer to that prompt;
* agent steps written before any input form a turn that answers whatever the
  first prompt says (``prompt`` is None);
* ``sessionStart`` splits *history* from live turns: a client that
  ``session/load``s the session gets the history replayed as updates and then
  the live turns; a client that calls ``session/new`` gets every turn live, as
  if no history existed;
* ``userCancelSession`` inside a turn is where the client is expected to send
  ``session/cancel``.

File order, not virtual time, decides which turn a step belongs to (a user
input is concurrent in the schedule, but to ACP it is the start of a turn);
virtual time only paces the steps inside a turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import assert_never

from workbench.scenario import model as m
from workbench.timeline import Schedule, Step, StepKind


@dataclass
class Turn:
    """One prompt and the steps that answer it."""

    prompt: m.InputItem | None
    steps: list[Step] = field(default_factory=list)
    start_ms: int = 0

    @property
    def line(self) -> int:
        if self.prompt is not None:
            return self.prompt.pos.line
        return self.steps[0].pos.line if self.steps else 0


@dataclass
class Script:
    scenario: m.Scenario
    history: list[Turn]
    live: list[Turn]
    whole: list[Turn]
    session_start: m.AcpEvent | None = None
    initialize: m.AcpEvent | None = None

    @property
    def session_id(self) -> str | None:
        data = self.session_start.data if self.session_start is not None else None
        sid = data.get("sessionId") if isinstance(data, dict) else None
        return str(sid) if sid else None

    @property
    def load_session(self) -> bool:
        caps = self.scenario.acp.get("capabilities") or {}
        value = caps.get("loadSession") if isinstance(caps, dict) else None
        return bool(value) if value is not None else self.session_start is not None

    def acp_events(self, name: str) -> list[m.AcpEvent]:
        return [e for e in self.scenario.timeline if isinstance(e, m.AcpEvent) and e.name == name]


def _cut(steps: list[Step]) -> list[Turn]:
    turns: list[Turn] = []
    for step in steps:
        match step.kind:
            case StepKind.INPUT:
                turns.append(Turn(step.input, [], step.at_ms))
                continue
            case (StepKind.THINK | StepKind.ASSISTANT | StepKind.LLM_ERROR | StepKind.TOOL_START
                  | StepKind.TOOL_PROGRESS | StepKind.TOOL_OUTPUT | StepKind.TOOL_RESULT | StepKind.EDIT
                  | StepKind.ACP | StepKind.CANCEL):  # fmt: skip
                pass  # what the agent plays in a turn
            case StepKind.CONTROL:
                if not isinstance(step.event, m.Log):
                    continue
            case StepKind.LLM_RESPONSE | StepKind.KEY | StepKind.ADVANCE:
                continue
            case unknown:
                assert_never(unknown)
        if not turns:
            turns.append(Turn(None, [], step.at_ms))
        turns[-1].steps.append(step)
    return turns


def build_script(schedule: Schedule) -> Script:
    scenario = schedule.scenario
    ordered = sorted(schedule.steps, key=lambda s: (s.event_index, s.index))
    start_index: int | None = None
    init: m.AcpEvent | None = None
    start: m.AcpEvent | None = None
    for index, event in enumerate(scenario.timeline):
        if isinstance(event, m.AcpEvent) and event.name == "sessionStart" and start is None:
            start, start_index = event, index
        elif isinstance(event, m.AcpEvent) and event.name == "initialize" and init is None:
            init = event

    def wanted(step: Step) -> bool:
        return not (isinstance(step.event, m.AcpEvent) and step.event.name in ("sessionStart", "initialize"))

    played = [s for s in ordered if wanted(s)]
    if start_index is None:
        return Script(scenario, [], _cut(played), _cut(played), None, init)
    history = _cut([s for s in played if s.event_index < start_index])
    live = _cut([s for s in played if s.event_index > start_index])
    return Script(scenario, history, live, _cut(played), start, init)
