"""What a turn of a real ACP agent must show, by the scenario: checks of a :class:`TurnRecord`.

The mock LLM server plays the model, so the agent's *messages* are the
scenario's assistant text (an agent may add its own words around it, so each
scripted text must appear, whitespace aside); its *tool calls* follow the
scenario's tools in order (agents name tools their own way, so the checks are
on count and outcome: the n-th call answers the n-th scripted tool, and a tool
the scenario says succeeds must end ``completed``); an ``agentPlan`` must be
the last plan the agent sent; each ``agentPermissionRequest`` must have been
asked; ``setMode`` must have been announced; the stop reason is
``expectedResponse.stopReason`` of the input, else ``cancelled`` when the user
cancels in the turn, else ``end_turn``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import assert_never

from acp.schema import PermissionOption

from workbench.scenario import model as m
from workbench.timeline import Step, StepKind

from .client import TurnRecord, first_allow
from .subset import subset

OK_STATUSES = frozenset({"ok", "completed", "success"})


@dataclass(frozen=True)
class Expectation:
    step: int
    line: int
    message: str


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def check_turn(prompt: m.InputItem | None, steps: Sequence[Step], turn: TurnRecord) -> list[Expectation]:
    """Every way ``turn`` differs from the scenario ``steps`` that answer ``prompt``."""
    out: list[Expectation] = []
    text = _norm(turn.text)
    cancelled = any(s.kind is StepKind.CANCEL for s in steps)
    want_stop = None
    if prompt is not None and isinstance(prompt.expected_response, Mapping):
        want_stop = prompt.expected_response.get("stopReason")
    want_stop = want_stop or ("cancelled" if cancelled else "end_turn")
    anchor = steps[0] if steps else None
    if turn.stop_reason != want_stop:
        line = prompt.pos.line if prompt is not None else (anchor.pos.line if anchor else 0)
        out.append(Expectation(anchor.index if anchor else 0, line,
                               f"the turn ended with {turn.stop_reason!r}, expected {want_stop!r}"))  # fmt: skip
    tools: list[Step] = []
    for step in steps:
        match step.kind:
            case StepKind.ASSISTANT:
                said = _norm(step.text.text)
                if said and said not in text and not cancelled:
                    out.append(Expectation(step.index, step.pos.line,
                                           f"the agent did not say {said[:80]!r}; it said {text[:200]!r}"))  # fmt: skip
            case StepKind.TOOL_START:
                tools.append(step)
            case StepKind.ACP:
                if isinstance(step.event, m.AcpEvent):
                    out += _acp(step, step.event, turn)
            case (StepKind.THINK | StepKind.LLM_ERROR | StepKind.LLM_RESPONSE | StepKind.TOOL_PROGRESS
                  | StepKind.TOOL_OUTPUT | StepKind.TOOL_RESULT | StepKind.EDIT | StepKind.INPUT | StepKind.KEY
                  | StepKind.CANCEL | StepKind.ADVANCE | StepKind.CONTROL):  # fmt: skip
                pass  # not what a turn is checked against
            case unknown:
                assert_never(unknown)
    calls = list(turn.tool_calls.values())
    for number, tool_step in enumerate(tools if not cancelled else []):
        tool = tool_step.tool
        if number >= len(calls):
            out.append(Expectation(tool_step.index, tool_step.pos.line,
                                   f"the agent made {len(calls)} tool call(s); none for {tool.tool_name} "
                                   f"(tool {number + 1} of {len(tools)})"))  # fmt: skip
            continue
        call = calls[number]
        if str(tool.status).lower() in OK_STATUSES and call.status != "completed":
            out.append(Expectation(tool_step.index, tool_step.pos.line,
                                   f"the agent's tool call {call.title or call.id!r} ended {call.status!r}; "
                                   f"the scenario's {tool.tool_name} succeeds"))  # fmt: skip
    return out


def _acp(step: Step, event: m.AcpEvent, turn: TurnRecord) -> list[Expectation]:
    data = event.data if isinstance(event.data, Mapping) else {}
    if event.name == "agentPlan":
        want = [str(e.get("content", "")) for e in data.get("entries") or [] if isinstance(e, Mapping)]
        got = [str(e.get("content", "")) for e in turn.plan]
        if want != got:
            return [
                Expectation(step.index, step.pos.line, f"the agent's last plan was {got}, expected {want}")
            ]
    elif event.name == "agentPermissionRequest" and not turn.permissions:
        return [Expectation(step.index, step.pos.line,
                            "the scenario has the agent ask for permission here; it asked for none in this turn")]  # fmt: skip
    elif event.name == "agentExtension":
        method = str(data.get("method"))
        sent = [e for e in turn.extensions if e["method"] == method]
        if not sent:
            seen = [e["method"] for e in turn.extensions]
            return [Expectation(step.index, step.pos.line,
                                f"the agent sent no extension message `{method}` (it sent {seen or 'none'})")]  # fmt: skip
        params = data.get("params")
        if isinstance(params, Mapping) and all(subset(params, e["params"], "params") for e in sent):
            problem = subset(params, sent[0]["params"], "params")
            return [Expectation(step.index, step.pos.line, f"the agent's `{method}`: {problem}")]
    elif event.name == "setMode" and str(data.get("modeId")) not in turn.modes:
        return [Expectation(step.index, step.pos.line,
                            f"the agent did not switch to mode {data.get('modeId')!r} (modes: {turn.modes})")]  # fmt: skip
    return []


def scripted_extensions(scenario: m.Scenario) -> dict[str, list[dict[str, object]]]:
    """The scenario's answers to the agent's extension requests: method -> each `respond` in order
    (`{}` when an `agentExtension` gives none)."""
    out: dict[str, list[dict[str, object]]] = {}
    for e in scenario.timeline:
        if isinstance(e, m.AcpEvent) and e.name == "agentExtension" and isinstance(e.data, Mapping):
            respond = e.data.get("respond")
            out.setdefault(str(e.data.get("method")), []).append(
                dict(respond) if isinstance(respond, Mapping) else {}
            )
    return out


Answer = tuple[int, Mapping[str, object], tuple[str, tuple[str, ...]] | None]
"""A scripted permission answer: its line, its data, and the tool it precedes (kind, identifying words)."""


def scripted_answers(scenario: m.Scenario, steps: Sequence[Step] = ()) -> list[Answer]:
    """The scenario's permission answers in order (the user's side of ``agentPermissionRequest``), with their
    lines and, from the schedule's ``steps``, the tool call each one precedes in the scenario (as in
    `workbench acp-agent`, an answer belongs to the next tool or edit before any other agent step)."""
    ordered = sorted(steps, key=lambda s: (s.event_index, s.index))
    out: list[Answer] = []
    for n, step in enumerate(ordered):
        event = step.event
        if not (isinstance(event, m.AcpEvent) and event.name == "agentPermissionRequest"):
            continue
        if isinstance(event.data, Mapping):
            out.append((event.pos.line, event.data, _target(ordered[n + 1 :])))
    if not steps:  # no schedule: the answers alone, in order
        out = [(e.pos.line, e.data, None) for e in scenario.timeline
               if isinstance(e, m.AcpEvent) and e.name == "agentPermissionRequest" and isinstance(e.data, Mapping)]  # fmt: skip
    return out


def _target(after: Sequence[Step]) -> tuple[str, tuple[str, ...]] | None:
    from .content import tool_kind

    for step in after:
        if step.kind is StepKind.EDIT and isinstance(step.event, m.FileEdit):
            return "edit", (step.event.path.rsplit("/", 1)[-1],)
        if step.kind is StepKind.TOOL_START:
            tool = step.tool
            keys = [str(v) for k, v in tool.args.items() if k in ("cmd", "command", "path", "file_path")
                    and isinstance(v, str) and v]  # fmt: skip
            words = tuple(k.rsplit("/", 1)[-1] if "/" in k and " " not in k else k.split()[0] for k in keys)
            return tool_kind(tool.tool_name), words
        if step.kind in (StepKind.THINK, StepKind.ASSISTANT, StepKind.LLM_ERROR, StepKind.CANCEL):
            return None
    return None


class ScriptedAnswers:
    """A permission answerer for :class:`~workbench.acp.client.WorkbenchClient`: each of the scenario's
    answers belongs to the tool it precedes, so a request gets the answer of the first unanswered tool
    whose kind and words (its command's program, its file's name) the request shows; a request no
    scripted tool matches gets the next answer with no tool, then the first allow option
    (``decision.optionId``, ``decision.outcome: cancelled``, ``granted: false`` -> the first reject option)."""

    def __init__(self, answers: Sequence[Answer | tuple[int, Mapping[str, object]]]) -> None:
        self.queue: list[Answer] = [a if len(a) == 3 else (a[0], a[1], None) for a in answers]
        self.problems: list[tuple[int, str]] = []

    def _take(self, call: dict[str, object]) -> tuple[int, Mapping[str, object]]:
        import json

        shown = json.dumps(call, ensure_ascii=False, default=str)
        kind = call.get("kind")
        for n, (line, data, target) in enumerate(self.queue):
            if (
                target is not None
                and kind in (target[0], None, "other")
                and all(w in shown for w in target[1])
            ):
                del self.queue[n]
                return line, data
        for n, (line, data, target) in enumerate(self.queue):  # an answer that names no tool
            if target is None:
                del self.queue[n]
                return line, data
        return 0, {}  # meant for another tool: this one is allowed

    def __call__(self, call: dict[str, object], options: list[PermissionOption]) -> str | None:
        line, data = self._take(call)
        ids = [o.option_id for o in options]
        decision = data.get("decision")
        if isinstance(decision, Mapping):
            if decision.get("outcome") == "cancelled":
                return None
            wanted = decision.get("optionId")
            if wanted in ids:
                return str(wanted)
            if wanted is not None:
                self.problems.append((line, f"the scenario answers `{wanted}`, the agent offered {ids}"))
        if data.get("granted") is False:
            return next((o.option_id for o in options if o.kind.startswith("reject")), None)
        return first_allow(call, options)
