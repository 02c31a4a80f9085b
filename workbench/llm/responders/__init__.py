"""Responders decide what the model says next: from a timeline or from Claudeless rules.

A responder sees one :class:`TurnContext` per request of its session (never a
side request) and returns a :class:`~workbench.llm.reply.Reply`; the server
shapes and sends it. Failures go to the ``record`` callback it was built with. Tool calls are mapped to the agent's own tools through the
context, which knows the request's tool profile.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from workbench.timeline import Step

from ..checks import LlmFailure
from ..conversation import ChatRequest
from ..ids import IdMaker
from ..profiles import Call, MapContext, ToolProfile
from ..reply import Reply
from ..wire import Wire, wire_named

Record = Callable[[LlmFailure], None]

AssertHook = Callable[[Step], "list[LlmFailure] | Awaitable[list[LlmFailure]]"]
StepHook = Callable[[Step], "Awaitable[None] | None"]
PromptHook = Callable[[Step, str, bool], None]
"""``on_prompt(step, prompt, holds)``: a request reached the input ``step`` with the agent's own prompt,
and whether that prompt holds what the step types."""


@dataclass
class Hooks:
    """What the engine lends the server: the workspace and callbacks into the run."""

    workspace: Path | None = None
    on_assert: AssertHook | None = None
    on_step: StepHook | None = None
    on_prompt: PromptHook | None = None

    async def assert_step(self, step: Step) -> list[LlmFailure] | None:
        """The engine's verdict on an assert step, or None without a hook."""
        if self.on_assert is None:
            return None
        result = self.on_assert(step)
        if inspect.isawaitable(result):
            result = await result
        return list(result)

    def prompt(self, step: Step, prompt: str, holds: bool) -> None:
        if self.on_prompt is not None:
            self.on_prompt(step, prompt, holds)

    async def step(self, step: Step) -> None:
        if self.on_step is not None:
            result = self.on_step(step)
            if inspect.isawaitable(result):
                await result


@dataclass
class TurnContext:
    """One request, as a responder sees it."""

    chat: ChatRequest
    ids: IdMaker
    profile: ToolProfile
    session: str = ""
    workspace: Path | None = None
    notes: list[str] = field(default_factory=list)
    wire: Wire | None = None  # the request's style (default: the one named by ``chat.style``)
    consumed: str = ""  # which scenario step the reply is, for the request log
    _called: list[str] = field(default_factory=list)

    def new_call_id(self, name: str = "") -> str:
        """The id of the next tool call of this reply (Gemini's are the call's name and order)."""
        wire = self.wire or wire_named(self.chat.style)
        call_id = wire.call_id(self.chat, name, self.ids, self._called)
        self._called.append(name)
        return call_id

    def outcome(self, summary: str) -> str:
        return f"{summary} ({self.consumed})" if self.consumed else summary

    def map_tool(self, name: str, args: Mapping[str, Any]) -> Call:
        """The scenario's call as a tool the agent offers (``{workspace}`` in any argument is
        the run's workspace). A call with ``unmapped`` set cannot be sent: the caller fails the run."""
        offered = {t.name: t for t in self.chat.tools}
        cwd = self.chat.agent_cwd() or (str(self.workspace) if self.workspace else None)
        if self.workspace is not None or cwd is not None:
            args = with_workspace(args, str(self.workspace or cwd))
        call, note = self.profile.map(name, args, MapContext(offered, cwd))
        if call.decision:
            self.notes.append(f"tool mapping: {call.decision}")
        if note and not call.unmapped:
            self.notes.append(note)
        return call


def with_workspace(value: Any, workspace: str) -> Any:
    """``value`` with ``{workspace}`` in every string replaced by the run's workspace."""
    if isinstance(value, str):
        return value.replace("{workspace}", workspace)
    if isinstance(value, Mapping):
        return {k: with_workspace(v, workspace) for k, v in value.items()}
    if isinstance(value, list):
        return [with_workspace(v, workspace) for v in value]
    return value


class Responder(Protocol):
    def tool_uses(self) -> list[tuple[str, Mapping[str, Any]]]:
        """Every tool call the scenario can make (name, args), for `--strict-tools`."""
        ...

    async def respond(self, ctx: TurnContext) -> Reply:
        """The reply to this request."""
        ...

    def position(self) -> int:
        """The index of the last schedule step played (-1 before the first)."""
        ...

    async def finish(self) -> None:
        """The session is over: check what is left (final asserts, unserved replies)."""
        ...
