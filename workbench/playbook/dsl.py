"""The playbook language: what the model does, turn by turn, written in Python.

    from workbench.playbook import Playbook, call, say, think, when

    ids = {}
    playbook = Playbook(
        when("Create a ticket and show it", [
            think("Create it first."),
            call("runCmd", {"cmd": "echo T-42"}).then(lambda r: ids.update(ticket=r.text.strip())),
            call("runCmd", lambda: {"cmd": f"echo showing {ids['ticket']}"}),
            say("Ticket created and shown."),
        ]),
        when("Thanks", [say("You're welcome.")]),
    )

One :func:`when` per user turn. Within a turn the actions are cut into model
responses: thinking and text join the tool calls that follow them in one
response, consecutive calls go out together (parallel tool calls), and a call
whose params are a function starts a response of its own, because it may depend
on the results of the calls before it. A response without calls ends the turn.

A playbook and a YAML scenario are two front-ends to one schedule:
:meth:`Playbook.to_yaml` writes the scenario the playbook plays (late-bound
params, which exist only when the call is served, are written as the
`<late-bound>` marker and noted in a comment).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

Params = Mapping[str, Any]
LateParams = Callable[[], Params]
LATE_BOUND = "<late-bound>"
_HERE = os.path.dirname(os.path.abspath(__file__))


def written_at() -> str | None:
    """Where the playbook's author wrote the action being made (``file:line`` of the first caller outside
    this package; relative to the working folder when under it): failures name it, so an action left over
    is found in the test file, not by its text."""
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if os.path.dirname(path) != _HERE and not frame.f_code.co_filename.startswith("<"):
            relative = os.path.relpath(path)
            return f"{path if relative.startswith('..') else relative}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return None


@dataclass(frozen=True)
class ToolResultRecord:
    """A tool's result as the agent reported it in its next request (or as a mock produced it)."""

    step: int  # the playbook action (1-based, over the whole playbook) of the call
    turn: int  # 1-based
    tool: str  # the playbook's tool name
    call_id: str
    text: str
    is_error: bool
    mocked: bool = False
    details: Mapping[str, Any] = field(default_factory=dict)  # a mock's structured `details`, as in pi

    @property
    def content(self) -> str:
        return self.text


@dataclass(eq=False)
class Call:
    """The model calls ``tool`` with ``params`` (a mapping, or a function called when the call is served)."""

    tool: str
    params: Params | LateParams = field(default_factory=dict)
    callback: Callable[[ToolResultRecord], Any] | None = None
    at: str | None = field(default_factory=written_at, compare=False, repr=False)

    def then(self, callback: Callable[[ToolResultRecord], Any]) -> Call:
        """Call ``callback`` with the tool's real result once the agent sends it back."""
        self.callback = callback
        return self

    @property
    def late_bound(self) -> bool:
        return callable(self.params)

    def describe(self) -> str:
        params = (
            LATE_BOUND if callable(self.params) else _short(json.dumps(dict(self.params), default=str), 80)
        )
        return f"call({json.dumps(self.tool)}, {params})"


@dataclass(frozen=True)
class Say:
    """The model answers with text."""

    text: str
    at: str | None = field(default_factory=written_at, compare=False, repr=False)

    def describe(self) -> str:
        return f"say({json.dumps(_short(self.text, 60))})"


@dataclass(frozen=True)
class Think:
    """The model thinks (shown by agents that show thinking; dropped by wire styles without it)."""

    text: str
    at: str | None = field(default_factory=written_at, compare=False, repr=False)

    def describe(self) -> str:
        return f"think({json.dumps(_short(self.text, 60))})"


Action: TypeAlias = Call | Say | Think


@dataclass(frozen=True)
class Turn:
    prompt: str
    actions: tuple[Action, ...]
    at: str | None = field(default_factory=written_at, compare=False, repr=False)

    def describe(self) -> str:
        return f"when({json.dumps(_short(self.prompt, 60))})"

    def responses(self) -> list[tuple[Action, ...]]:
        """The turn cut into model responses (see the module docstring)."""
        out: list[tuple[Action, ...]] = []
        current: list[Action] = []
        for action in self.actions:
            has_call = any(isinstance(a, Call) for a in current)
            if isinstance(action, Call):
                if has_call and action.late_bound:
                    out.append(tuple(current))
                    current = []
                current.append(action)
            else:
                if has_call:
                    out.append(tuple(current))
                    current = []
                current.append(action)
        if current:
            out.append(tuple(current))
        return out


def when(prompt: str, actions: Iterable[Action]) -> Turn:
    """One user turn: the user says ``prompt``; the model does ``actions``."""
    if not isinstance(prompt, str):
        raise TypeError(f"when({prompt!r}, ...): the prompt is text (a str), got {type(prompt).__name__}")
    if isinstance(actions, str | Mapping | Call | Say | Think) or not isinstance(actions, Iterable):
        raise TypeError(f"when({prompt!r}, ...): the actions are a list of call(), say() and think(), "
                        f"got {type(actions).__name__}: when({prompt!r}, [...])")  # fmt: skip
    actions = tuple(actions)
    if not actions:
        raise ValueError(f"when({prompt!r}, []): a turn needs an action; end it with say(...)")
    for action in actions:
        if not isinstance(action, Call | Say | Think):
            raise TypeError(f"when({prompt!r}): {action!r} is not an action; use call(), say() or think()")
    return Turn(prompt, actions)


def call(tool: str, params: Params | LateParams | None = None) -> Call:
    """The model calls ``tool``; ``params`` may be a function, called when the call is served."""
    if not isinstance(tool, str):
        raise TypeError(f"call({tool!r}, ...): the tool is its name (a str), got {type(tool).__name__}")
    if params is not None and not callable(params) and not isinstance(params, Mapping):
        raise TypeError(f"call({tool!r}, ...): params must be a mapping or a function returning one")
    return Call(tool, params if params is not None else {})


def _text(kind: str, text: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{kind}({text!r}): the text is a str, got {type(text).__name__}")
    return text


def say(text: str) -> Say:
    return Say(_text("say", text))


calls = call  # the pi harness's names since its 0.3.0, so its examples read the same in Python
says = say


def think(text: str) -> Think:
    return Think(_text("think", text))


MockResult: TypeAlias = "str | Mapping[str, Any] | Callable[[Mapping[str, Any]], Any]"


@dataclass(frozen=True)
class UiRule:
    """A screen responder (``mock_ui``): when the screen shows ``match`` (a regex with ``regex=True``),
    type ``keys``, once, every time (``times=None``) or up to ``times`` times; the YAML `onScreen:` rule."""

    match: str
    keys: str
    regex: bool = False
    times: int | None = 1  # None: every time


Confirm: TypeAlias = "bool | Callable[[str], bool]"
Select: TypeAlias = "int | str | Callable[[list[str]], int | str]"
Text: TypeAlias = "str | Callable[[str], str]"


@dataclass(frozen=True)
class MockUi:
    """Answers to the agent's TUI questions, with the pi harness's defaults: a `(y/n)` confirm is
    answered yes, a numbered menu with a cursor gets its first option, text rules answer what they
    match, and a free-text question (the program waits to read a line from its terminal while the run
    waits for it) gets an empty line. ``confirm``: a bool or a function of the question's line;
    ``select``: an index, an option's text (or a unique part of it), or a function of the options
    returning either; ``input``: the text to type, or a function of the question's line; ``editor``:
    the text a program that opens ``$VISUAL``/``$EDITOR`` gets back in its file (default empty), or a
    function of the file's text; ``rules``: text rules (:class:`UiRule`) tried first."""

    confirm: Confirm = True
    select: Select = 0
    input: Text = ""
    editor: Text = ""
    rules: Sequence[UiRule] = ()


def as_mock_ui(value: MockUi | Sequence[UiRule] | Mapping[str, Any] | None) -> MockUi:
    """``mock_ui`` as given: a :class:`MockUi`, a list of :class:`UiRule`, or pi's mapping
    ``{"confirm": False, "select": 1}`` (with ``rules`` too)."""
    if value is None:
        return MockUi()
    if isinstance(value, MockUi):
        return value
    if isinstance(value, Mapping):
        unknown = set(value) - {"confirm", "select", "input", "editor", "rules"}
        if unknown:
            raise TypeError(
                f"mock_ui: unknown key(s) {sorted(unknown)}; allowed: confirm, select, input, editor, rules"
            )
        return MockUi(**dict(value))
    rules = tuple(value)
    for rule in rules:
        if not isinstance(rule, UiRule):
            raise TypeError(f"mock_ui: {rule!r} is not a UiRule(match, keys)")
    return MockUi(rules=rules)


@dataclass
class Playbook:
    """A scripted model for one conversation: turns, plus what the built-in mock agent should fake.

    * ``mock_tools``: tool name -> its result instead of running it (built-in mock agent): a string,
      a function of the call's params (returning a string or a full result), or a full result
      ``{"content": str, "is_error": bool, "details": {...}}`` (``details`` reach the result record).
    * ``mock_ui``: answers to the agent's TUI questions (:class:`MockUi`, a list of :class:`UiRule`, or
      a mapping); without one the defaults answer (confirm -> yes, select -> the first option).
    * ``propagate_errors``: a ``mock_tools`` function that raises (a tool that crashed) fails the test
      at once with its step and traceback (default); with False the agent gets it as an error result.
      A result the agent reports as an error (``is_error``) never fails the test: it is recorded and
      the playbook goes on, as in the pi harness.
    """

    turns: tuple[Turn, ...]
    name: str = "playbook"
    mock_tools: Mapping[str, Any] = field(default_factory=dict)
    mock_ui: MockUi = field(default_factory=MockUi)
    propagate_errors: bool = True

    def __init__(
        self,
        *turns: Turn | Iterable[Turn],
        name: str = "playbook",
        mock_tools: Mapping[str, Any] | None = None,
        mock_ui: MockUi | Sequence[UiRule] | Mapping[str, Any] | None = None,
        propagate_errors: bool = True,
    ) -> None:
        flat: list[Turn] = []
        for item in turns:
            if isinstance(item, Turn):
                flat.append(item)
            else:
                for turn in item:
                    if not isinstance(turn, Turn):
                        raise TypeError(f"Playbook(...): {turn!r} is not a turn; use when(prompt, [...])")
                    flat.append(turn)
        if not flat:
            raise ValueError("a playbook needs at least one when(prompt, [...]) turn")
        self.turns = tuple(flat)
        self.name = name
        self.mock_tools = dict(mock_tools or {})
        for tool, result in self.mock_tools.items():
            if not (isinstance(result, str | Mapping) or callable(result)):
                raise TypeError(f"mock_tools[{tool!r}]: a result is a str, a mapping or a function of the params, "
                                f"got {type(result).__name__}")  # fmt: skip
        self.mock_ui = as_mock_ui(mock_ui)
        self.propagate_errors = propagate_errors

    @property
    def actions(self) -> list[tuple[int, Action]]:
        """Every action with its 1-based turn number, in order."""
        return [(n, a) for n, turn in enumerate(self.turns, 1) for a in turn.actions]

    def to_yaml(self) -> str:
        """The Agent Harbor scenario this playbook plays (see the module docstring)."""
        from workbench.playbook.schedule import scenario_yaml

        return scenario_yaml(self)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
