"""The canonical scenario model: what every loader produces and every runner reads.

All classes are frozen, slotted dataclasses (``workbench.records``: the same
classes as ``dataclass(frozen=True, slots=True)`` makes, for a fifth of the
import time). Every event and every timed item carries the ``Pos`` (file, line,
column) it came from, so a failure at run time can point at the line that
scripted it. Free-form payloads that runners pass through
(tool ``args``, ``_meta``, ACP data) are kept as read-only mappings.

Time fields are in milliseconds. How they combine into absolute virtual time is
the compiler's business (``workbench.timeline``); the model only records which
timing form each value was written in (see :class:`Timing`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Literal

from workbench.records import frozen

from .diagnostics import Pos

Json = Any
"""A JSON-like value (str, int, float, bool, None, list, dict)."""

EMPTY: Mapping[str, Json] = MappingProxyType({})


def no_fields() -> Mapping[str, Json]:
    return EMPTY


def frozen_map(value: Mapping[str, Json] | None) -> Mapping[str, Json]:
    return MappingProxyType(dict(value)) if value else EMPTY


class Timing(StrEnum):
    """How a time value was written; decides what it is relative to."""

    DELTA = "delta"  # `[ms, text]` tuples and progress steps: after the previous item
    OFFSET = "offset"  # `{relativeTime}` in think/assistant: from the start of the element
    SEGMENT = "segment"  # `[ms, input]` user tuples: from the start of the segment
    ABSOLUTE = "absolute"  # `{relativeTime, input}` user objects: from the scenario start


# --------------------------------------------------------------------------- content


@frozen
class ContentBlock:
    """An ACP-style rich content block (`text`, `image`, `audio`, `resource`, `resource_link`, `diff`, `plan`)."""

    type: str
    data: Mapping[str, Json]
    pos: Pos

    @property
    def text(self) -> str:
        """A plain-text rendering, for runners that only show text."""
        d = self.data
        if self.type == "text":
            return str(d.get("text", ""))
        if self.type == "resource":
            res = d.get("resource") or {}
            return str(res.get("text") or res.get("uri") or "")
        if self.type == "resource_link":
            return str(d.get("title") or d.get("name") or d.get("uri") or "")
        if self.type == "diff":
            return f"diff {d.get('path', '')}"
        if self.type == "plan":
            return "\n".join(
                str(e.get("content", "")) for e in d.get("entries") or [] if isinstance(e, Mapping)
            )
        return f"[{self.type}]"


Content = str | tuple[ContentBlock, ...]


def content_text(content: Content) -> str:
    return content if isinstance(content, str) else "\n".join(b.text for b in content)


# --------------------------------------------------------------------------- timed pieces


@frozen
class TimedText:
    """One thinking or assistant chunk, or one progress line."""

    ms: int
    timing: Timing
    content: Content
    pos: Pos

    @property
    def text(self) -> str:
        return content_text(self.content)


@frozen
class Thinking:
    items: tuple[TimedText, ...]
    pos: Pos


@frozen
class Assistant:
    items: tuple[TimedText, ...]
    pos: Pos


@frozen
class LlmError:
    error_type: str
    message: str
    pos: Pos
    status_code: int = 400
    details: Json = None
    retry_after_seconds: int | None = None
    fault: Fault | None = (
        None  # `llmResponse: - fault:`: a failure on the wire (a cut stream, a reset), not an HTTP error
    )


# --------------------------------------------------------------------------- events


@frozen
class Event:
    """Base of every timeline event."""

    pos: Pos

    @property
    def kind(self) -> str:
        return type(self).__name__

    @property
    def actor(self) -> Literal["agent", "user", "control"]:
        return "control"


@frozen
class AgentEvent(Event):
    @property
    def actor(self) -> Literal["agent", "user", "control"]:
        return "agent"


@frozen
class UserEvent(Event):
    @property
    def actor(self) -> Literal["agent", "user", "control"]:
        return "user"


@frozen
class ExecutionEvent:
    """One `toolExecution.events[]` entry: output at `time_ms` after the tool started."""

    type: str  # stdout | stderr | progress | completion
    time_ms: int
    content: str
    pos: Pos
    exit_code: int | None = None


@frozen
class ToolUse(AgentEvent):
    """A tool call the agent makes (`agentToolUse` and every tool-specific event)."""

    tool_name: str
    args: Mapping[str, Json] = field(default_factory=no_fields)
    progress: tuple[TimedText, ...] = ()
    result: Json = None
    status: str = "ok"
    tool_call_id: str | None = None
    execution: tuple[ExecutionEvent, ...] = ()
    meta: Mapping[str, Json] = field(default_factory=no_fields)
    written_as: str = "agentToolUse"  # the event key it was written with, e.g. `runCmd`


@frozen
class LlmResponse(AgentEvent):
    """One model turn: thinking, assistant text, an error, and inline tool uses, in order."""

    pieces: tuple[Thinking | Assistant | LlmError | ToolUse, ...]
    meta: Mapping[str, Json] = field(default_factory=no_fields)
    legacy: bool = False  # written as a top-level `think`/`assistant`


@frozen
class FileEdit(AgentEvent):
    """`agentEdits`: the agent edits a file; the line counts are checked."""

    path: str
    lines_added: int = 0
    lines_removed: int = 0
    extra: Mapping[str, Json] = field(default_factory=no_fields)  # oldText/newText/description when given


@frozen
class AcpEvent(AgentEvent):
    """ACP-only agent events: agentPlan, setMode, setModel, agentFileReads,
    agentPermissionRequest, agentExtension, initialize, sessionStart."""

    name: str
    data: Json = None
    meta: Mapping[str, Json] = field(default_factory=no_fields)


@frozen
class InputItem:
    """What the user types: text (keys in `<Name>` notation inside it) or content blocks."""

    ms: int
    timing: Timing
    input: Content
    pos: Pos
    target: str | None = None
    expected_response: Mapping[str, Json] = field(default_factory=no_fields)
    meta: Mapping[str, Json] = field(default_factory=no_fields)

    @property
    def text(self) -> str:
        return content_text(self.input)


@frozen
class UserInputs(UserEvent):
    items: tuple[InputItem, ...]
    target: str | None = None


@frozen
class KeyPress(UserEvent):
    """A type-tagged `{type: key, key: Up}` step."""

    key: str


@frozen
class UserEdits(UserEvent):
    patch: str  # path relative to the scenario folder, confined to it


@frozen
class UserCommand(UserEvent):
    """`userCommand`: `cmd` + `cwd`, or the ah-cli task form `program` + `args` + `env` + `expect`."""

    cmd: str | None = None
    cwd: str | None = None
    program: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=no_fields)
    expect: Mapping[str, Json] = field(default_factory=no_fields)

    @property
    def argv(self) -> tuple[str, ...] | None:
        return (self.program, *self.args) if self.program else None


@frozen
class UserCancelSession(UserEvent):
    pass


@frozen
class AdvanceMs(Event):
    """`advanceMs` / `baseTimeDelta`: closes a time segment."""

    ms: int


@frozen
class Screenshot(Event):
    label: str


@frozen
class WaitFor(Event):
    """`waitFor` (our extension): hold the timeline until the screen shows ``text`` or matches ``regex``;
    after ``timeout_ms`` of real time the step fails with the screen."""

    text: str | None = None
    regex: str | None = None
    timeout_ms: int = 10_000


@frozen
class Log(Event):
    message: str


@frozen
class Status(Event):
    status: str


@frozen
class JsonFileCheck:
    path: str
    pointer: str
    equals: Json
    pos: Pos


@frozen
class Assert(Event):
    fs_exists: tuple[str, ...] = ()
    fs_not_exists: tuple[str, ...] = ()
    text_contains: tuple[str, ...] = ()
    json_file: tuple[JsonFileCheck, ...] = ()
    git_commit_message_contains: tuple[str, ...] = ()
    acp: Mapping[str, Json] = field(default_factory=no_fields)


@frozen
class AssertGit(Event):
    """The ah-cli task form: branch, exists, commitsAheadOf, commitCount, headMessageContains, remoteExists."""

    checks: Mapping[str, Json]


@frozen
class AssertVm(Event):
    """A type-tagged `assertVm` step (view-model checks of Agent Harbor's own TUI)."""

    checks: Mapping[str, Json]


@frozen
class SseEvent(Event):
    """A type-tagged `sse` step: a session event pushed to a simulation client."""

    event: Mapping[str, Json]


@frozen
class Complete(Event):
    value: bool = True


@frozen
class Merge(Event):
    value: bool = True


@frozen
class ApplyPatch(Event):
    path: str
    commit: bool = False
    message: str | None = None


# --------------------------------------------------------------------------- setup


@frozen
class RepoFile:
    path: str
    contents: bytes
    pos: Pos


@frozen
class Repo:
    init: bool = False
    branch: str | None = None
    dir: str | None = None
    files: tuple[RepoFile, ...] = ()
    pos: Pos | None = None
    commit: bool = True  # with `init`: commit the seeded files (`commit: false` leaves them uncommitted)
    dir_pos: Pos | None = (
        None  # where `dir`'s value is: a seed folder found unusable at run time is placed there
    )


@frozen
class AhInvocation:
    cmd: str | None = None
    flags: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=no_fields)
    pos: Pos | None = None


@frozen
class ServerConfig:
    mode: str = "none"  # none | mock | real
    llm_api_style: str = "openai"  # openai | anthropic
    coalesce_thinking_with_tool_use: bool = True
    pos: Pos | None = None


@frozen
class TerminalProfile:
    name: str | None = None
    width: int = 80
    height: int = 24
    theme: str = "default"
    rendering: Mapping[str, Json] = field(default_factory=no_fields)

    @property
    def id(self) -> str:
        """The folder name of goldens and runs: `name`, else `<width>x<height>`."""
        return self.name or f"{self.width}x{self.height}"


@frozen
class Artifact:
    type: str
    pattern: str
    pos: Pos


@frozen
class Expect:
    exit_code: int | None = None
    artifacts: tuple[Artifact, ...] = ()
    exit_code_pos: Pos | None = None  # where `exitCode` is written: a wrong exit code fails there


# --------------------------------------------------------------------------- Claudeless rules
# Both Claudeless dialects (v1 and v2) load into these classes; field names follow
# v1 where the two differ (`max_matches`, `turns`, `auto_approve`), identity keys
# follow Claudeless's own canonical (v2) names (see :class:`RuleSet`).


@frozen
class Pattern:
    """What a prompt must look like: `exact` equality, `regex` unanchored search, `glob`
    whole-prompt match, `contains` substring (all case-sensitive), or `any`."""

    type: Literal["exact", "regex", "glob", "contains", "any"]
    text: str = ""
    pos: Pos | None = None


@frozen
class ToolCall:
    """A tool call the scripted model makes; ``result`` is the canned result, if any.
    ``$file`` references in ``input`` are already replaced by the files' contents."""

    tool: str
    input: Mapping[str, Json] = field(default_factory=no_fields)
    result: str | None = None
    pos: Pos | None = None


@frozen
class Fault:
    """A failure injected on the wire (network_unreachable, rate_limit, ...)."""

    type: str
    params: Mapping[str, Json] = field(default_factory=no_fields)
    pos: Pos | None = None


@frozen
class Reply:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Mapping[str, int] = field(default_factory=no_fields)
    delay_ms: int | None = None
    failure: Fault | None = None
    pos: Pos | None = None


@frozen
class Turn:
    expect: Pattern
    reply: Reply
    pos: Pos | None = None


@frozen
class ResponseRule:
    pattern: Pattern
    reply: Reply | None
    max_matches: int | None = None
    turns: tuple[Turn, ...] = ()
    pos: Pos | None = None


@frozen
class ToolSetting:
    """Per-tool settings: ``auto_approve`` (v2 ``approve``; None when not written, which
    Claudeless reads as false), a canned ``result`` (parsed but unused by Claudeless),
    a simulated ``error``, and AskUserQuestion ``answers`` (question -> label(s))."""

    auto_approve: bool | None = None
    result: str | None = None
    error: str | None = None
    answers: Mapping[str, Json] = field(default_factory=no_fields)
    pos: Pos | None = None


TimeoutSource = Literal["scenario", "env", "default"]


@frozen
class Timeouts:
    """Resolved timeouts: the scenario's value, else ``CLAUDELESS_*`` from the environment,
    else the default. ``source`` says which one each value came from (missing = default)."""

    exit_hint_ms: int = 2000
    compact_delay_ms: int = 20
    hook_timeout_ms: int = 5000
    mcp_timeout_ms: int = 30000
    response_delay_ms: int = 20
    source: Mapping[str, TimeoutSource] = field(default_factory=no_fields)


@frozen
class RuleSet:
    """A Claudeless scenario: ordered response rules plus identity and tool settings.

    ``identity`` holds the identity and environment keys the file wrote, under
    Claudeless's canonical names whichever dialect wrote them: `model`, `version`,
    `username`, `session_id`, `project_path`, `launch_timestamp`, `placeholder`,
    `provider`, `working_directory`, `show_welcome_back`, `welcome_back_right_panel`,
    `trusted`, `logged_in`, `permission_mode` (v1's `default_model`, `claude_version`
    and `user_name` become `model`, `version` and `username`).
    """

    rules: tuple[ResponseRule, ...] = ()
    default_reply: Reply | None = None
    tool_mode: Literal["mock", "live"] = "live"
    tools: Mapping[str, ToolSetting] = field(default_factory=no_fields)
    identity: Mapping[str, Json] = field(default_factory=no_fields)
    timeouts: Timeouts = Timeouts()
    format_version: int = 1

    @property
    def trusted(self) -> bool:
        return bool(self.identity.get("trusted", True))

    @property
    def logged_in(self) -> bool:
        return bool(self.identity.get("logged_in", True))

    @property
    def permission_mode(self) -> str | None:
        """Normalised to lower case, as Claudeless compares it."""
        mode = self.identity.get("permission_mode")
        return mode.lower() if isinstance(mode, str) else None


# --------------------------------------------------------------------------- the scenario


Format = Literal["agent-harbor", "claudeless"]


@frozen
class Scenario:
    name: str
    file: str
    format: Format
    timeline: tuple[Event, ...] = ()
    tags: tuple[str, ...] = ()
    description: str | None = None
    initial_prompt: str | None = None
    command: tuple[str, ...] | None = None
    command_pos: Pos | None = None  # where `command` is written: a program that cannot start fails there
    mode: str | None = None  # our extension `mode:`: the mode the scenario is written for (e.g. simulation)
    mode_pos: Pos | None = None
    masks: tuple[str, ...] = ()  # our extension: regexes blanked out of every screenshot before comparison
    mask_places: tuple[
        Pos, ...
    ] = ()  # where each of `masks` is written (a pattern too slow to match is placed there)
    repo: Repo | None = None
    ah: AhInvocation | None = None
    server: ServerConfig = ServerConfig()
    acp: Mapping[str, Json] = field(default_factory=no_fields)
    terminal: TerminalProfile = TerminalProfile()
    expect: Expect = Expect()
    rules: RuleSet | None = None
    hooks: Mapping[str, Json] = field(default_factory=no_fields)
    pos: Pos | None = None
    extra: Mapping[str, Json] = field(default_factory=no_fields)
    on_screen: Any = None  # our extension `onScreen:`, a workbench.scenario.on_screen.OnScreen

    @property
    def effective_initial_prompt(self) -> str | None:
        """The first `userInputs` after `sessionStart`, else the first one, else `initialPrompt`."""
        after_start = False
        first: str | None = None
        for ev in self.timeline:
            if isinstance(ev, AcpEvent) and ev.name == "sessionStart":
                after_start = True
            elif isinstance(ev, UserInputs) and ev.items:
                text = ev.items[0].text
                if after_start:
                    return text
                first = first if first is not None else text
        return first if first is not None else self.initial_prompt
