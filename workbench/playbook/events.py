"""What the agent did during a playbook's conversation, for the test to assert on.

* ``tool_calls``: every call the model made (the playbook's tool name and params,
  and the agent tool and arguments it was sent as);
* ``tool_results``: each call's result as the agent reported it in its next request;
* ``blocked_calls``: calls the agent never returned a result for (it refused or
  dropped them);
* ``messages``: user prompts as the agent sent them, and the model's text;
* ``ui``: the answers the screen responders typed (``ui_calls_for(kind)``);
* ``all``: every record in order, each a ``(kind, record)`` pair.

A listener (the run's trace) sees each record as it is added.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from workbench.playbook.dsl import ToolResultRecord


@dataclass(frozen=True)
class ToolCallRecord:
    step: int
    turn: int
    tool: str
    input: dict[str, Any]
    call_id: str
    sent_as: str = ""  # the agent's own tool name
    sent_input: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MessageRecord:
    role: str  # user | assistant
    text: str
    turn: int


@dataclass(frozen=True)
class UiRecord:
    """A screen responder answered: the rule, what matched on the screen, the keys typed."""

    rule: str
    matched: str
    keys: str
    at_ms: int = 0
    method: str = ""  # confirm | select | input | match (a text rule)
    value: Any = None  # what was answered: True/False, the option's text, the text typed, the keys


Listener = Callable[[str, dict[str, Any]], None]


@dataclass
class Events:
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    tool_results: list[ToolResultRecord] = field(default_factory=list)
    blocked_calls: list[ToolCallRecord] = field(default_factory=list)
    messages: list[MessageRecord] = field(default_factory=list)
    ui: list[UiRecord] = field(default_factory=list)
    all: list[tuple[str, Any]] = field(default_factory=list)
    listeners: list[Listener] = field(default_factory=list)

    def tool_sequence(self) -> list[str]:
        """The playbook tool names of the calls made, in order."""
        return [c.tool for c in self.tool_calls]

    def tool_calls_for(self, tool: str) -> list[ToolCallRecord]:
        return [c for c in self.tool_calls if c.tool == tool]

    def ui_calls_for(self, method: str) -> list[UiRecord]:
        """The screen answers of one kind (``confirm``, ``select``, ``input``, ``match``), as the pi harness's
        ``uiCallsFor``."""
        return [u for u in self.ui if u.method == method]

    def tool_results_for(self, tool: str) -> list[ToolResultRecord]:
        return [r for r in self.tool_results if r.tool == tool]

    def _add(self, kind: str, bucket: list[Any], record: Any) -> None:
        bucket.append(record)
        self.all.append((kind, record))
        for listener in self.listeners:
            listener(kind, asdict(record))

    def add_call(self, record: ToolCallRecord) -> None:
        self._add("tool_call", self.tool_calls, record)

    def add_result(self, record: ToolResultRecord) -> None:
        self._add("tool_result", self.tool_results, record)

    def add_blocked(self, record: ToolCallRecord) -> None:
        self._add("blocked_call", self.blocked_calls, record)

    def add_message(self, record: MessageRecord) -> None:
        self._add("message", self.messages, record)

    def add_ui(self, record: UiRecord) -> None:
        self._add("ui", self.ui, record)
