"""Claudeless response rules (TOML or JSON, v1 and v2) into the canonical model.

Claudeless rejects unknown fields, and so do we, with its own words
(``unknown field `defualt_model` ``) plus what is allowed and a likely
correction. Its validation rules and error texts are kept: a UUID
``session_id``, an ISO 8601 ``launch_timestamp`` with a zone, a known
``permission_mode``, a valid regex or glob, resolvable ``$file`` references.

* v1: ``responses[] {pattern {type, text|pattern}, response (string or {text,
  tool_calls, usage, delay_ms}), failure, max_matches, turns[] {expect,
  response, failure}}``, ``default_response``, ``tool_execution {mode, tools}``,
  identity and environment keys at the top, ``[timeouts]``.
* v2: ``responses[] {on, say, tools[] {call, input, result}, usage, delay_ms,
  failure, max, then[]}``, ``[default]``, ``[tools] mode`` with per-tool tables
  beside it (``approve``), ``[claude]`` identity (and timeouts).

Timeouts: the scenario's value, else ``CLAUDELESS_<NAME>`` from the environment
(for example ``CLAUDELESS_EXIT_HINT_MS``), else the default, as Claudeless does.
``$file`` references inside tool inputs are replaced by the file's contents
(parsed when it is ``.json``), read relative to the scenario and confined to its
folder. Our own top-level ``command`` (argv of the program under test) is allowed.
"""

from __future__ import annotations

import difflib
import fnmatch
import json
import re
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from . import model as m
from .diagnostics import Pos, Reporter, ScenarioError, one_of
from .fields import as_bool, as_int, as_str, expect_list, expect_map, to_plain, type_name
from .paths import resolve_inside
from .source import PList, PMap

V1_TOP = ("name", "responses", "default_response", "tool_execution", "default_model", "claude_version",
          "user_name", "session_id", "placeholder", "provider", "show_welcome_back", "welcome_back_right_panel",
          "project_path", "working_directory", "trusted", "logged_in", "permission_mode", "launch_timestamp",
          "timeouts", "command")  # fmt: skip
V2_TOP = ("name", "claude", "responses", "default", "tools", "trusted", "logged_in", "permission_mode", "timeouts",
          "command")  # fmt: skip
V2_CLAUDE = ("version", "username", "model", "session_id", "launch_timestamp", "project_path", "placeholder",
             "provider", "working_directory", "show_welcome_back", "welcome_back_right_panel", "timeouts",
             "trusted", "logged_in", "permission_mode")  # fmt: skip
IDENTITY_V1 = ("default_model", "claude_version", "user_name", "session_id", "placeholder", "provider",
               "show_welcome_back", "welcome_back_right_panel", "project_path", "working_directory", "trusted",
               "logged_in", "permission_mode", "launch_timestamp")  # fmt: skip
V2_TO_V1 = {"version": "claude_version", "username": "user_name", "model": "default_model"}
RULE_V1 = ("pattern", "response", "failure", "max_matches", "turns")
RULE_V2 = ("on", "say", "tools", "usage", "delay_ms", "failure", "max", "then")
TURN_V1 = ("expect", "response", "failure")
RESPONSE_V1 = ("text", "tool_calls", "usage", "delay_ms")
TOOL_CALL_V1 = ("tool", "input", "result")
TOOL_CALL_V2 = ("call", "input", "result")
PATTERN_TYPES = ("exact", "regex", "glob", "contains", "any")
FAILURE_TYPES = ("network_unreachable", "connection_timeout", "auth_error", "rate_limit", "out_of_credits",
                 "partial_response", "malformed_json")  # fmt: skip
FAILURE_FIELDS = {"network_unreachable": (), "connection_timeout": ("after_ms",), "auth_error": ("message",),
                  "rate_limit": ("retry_after",), "out_of_credits": (), "partial_response": ("partial_text",),
                  "malformed_json": ("raw",)}  # fmt: skip
PERMISSION_MODES = ("default", "plan", "bypass-permissions", "accept-edits", "dont-ask", "delegate",
                    "bypassPermissions", "acceptEdits", "dontAsk")  # fmt: skip
TIMEOUTS = {"exit_hint_ms": 2000, "compact_delay_ms": 20, "hook_timeout_ms": 5000, "mcp_timeout_ms": 30000,
            "response_delay_ms": 20}  # fmt: skip
TOOL_SETTING_V1 = ("auto_approve", "result", "error", "answers")
TOOL_SETTING_V2 = ("approve", "result", "error", "answers")
_ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$")
_CLAUDELESS_KEYS = {"responses", "default_response", "tool_execution", "claude_version", "default_model", "claude",
                    "default", "session_id", "launch_timestamp", "user_name"}  # fmt: skip


def looks_like_claudeless(doc: Any) -> bool:
    """A JSON/YAML document with Claudeless keys and no Agent Harbor timeline."""
    if not isinstance(doc, Mapping):
        return False
    if any(k in doc for k in ("timeline", "steps", "turns", "agentActions", "userActions")):
        return False
    return bool(_CLAUDELESS_KEYS & set(doc))


def unknown_field(pos: Pos, key: str, allowed: Iterable[str]) -> ScenarioError:
    allowed = tuple(allowed)
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f" (did you mean `{close[0]}`?)" if close else ""
    return ScenarioError.at(pos, f"unknown field `{key}`{hint}; expected one of {one_of(allowed)}")


def _deny_unknown(doc: PMap, allowed: Iterable[str]) -> None:
    allowed = tuple(allowed)
    for key in doc:
        if key not in allowed:
            raise unknown_field(doc.at_key(key), key, allowed)


class _Loader:
    def __init__(self, file: str, base_dir: Path, reporter: Reporter, env: Mapping[str, str]) -> None:
        self.file = file
        self.base_dir = base_dir
        self.reporter = reporter
        self.env = env

    # ------------------------------------------------------------------ top level

    def load(self, doc: Any) -> m.Scenario:
        if doc is None:
            doc = PMap(Pos(self.file, 1, 1))
        doc = expect_map(doc, Pos(self.file, 1, 1), "a Claudeless scenario")
        v2 = self._is_v2(doc)
        _deny_unknown(doc, V2_TOP if v2 else V1_TOP)
        identity: dict[str, Any] = {}
        timeouts_doc: PMap | None = None
        if v2:
            if "claude" in doc:
                claude = expect_map(doc["claude"], doc.at_value("claude"), "`claude`")
                _deny_unknown(claude, V2_CLAUDE)
                for key in claude:
                    if key == "timeouts":
                        timeouts_doc = expect_map(claude[key], claude.at_value(key), "`claude.timeouts`")
                    else:
                        identity[V2_TO_V1.get(key, key)] = self._identity_value(
                            V2_TO_V1.get(key, key), claude[key], claude.at_value(key)
                        )
            for key in ("trusted", "logged_in", "permission_mode"):
                if key in doc:
                    identity[key] = self._identity_value(key, doc[key], doc.at_value(key))
        else:
            for key in IDENTITY_V1:
                if key in doc:
                    identity[key] = self._identity_value(key, doc[key], doc.at_value(key))
        if "timeouts" in doc:
            timeouts_doc = expect_map(doc["timeouts"], doc.at_value("timeouts"), "`timeouts`")
        name = as_str(doc["name"], doc.at_value("name"), "`name`") if "name" in doc else Path(self.file).stem
        rules = tuple(self._rules(doc, v2))
        default_key = "default" if v2 else "default_response"
        default = None
        if default_key in doc:
            default = (
                self._reply_v2(
                    expect_map(doc[default_key], doc.at_value(default_key), "`default`"),
                    allow=("say", "tools", "usage", "delay_ms", "failure"),
                )
                if v2
                else self._response_v1(doc[default_key], doc.at_value(default_key), "`default_response`")
            )
        tool_mode, tools = self._tools(doc, v2)
        ruleset = m.RuleSet(
            rules=rules, default_reply=default, tool_mode=tool_mode, tools=tools, identity=identity,
            timeouts=self._timeouts(timeouts_doc), format_version=2 if v2 else 1,
        )  # fmt: skip
        return m.Scenario(
            name=name, file=self.file, format="claudeless", rules=ruleset, command=self._command(doc),
            pos=doc.pos, tags=("claudeless",),
        )  # fmt: skip

    def _is_v2(self, doc: PMap) -> bool:
        if "claude" in doc or "default" in doc or "tools" in doc:
            return True
        responses = doc.get("responses")
        if isinstance(responses, list):
            return any(isinstance(r, Mapping) and ("on" in r or "say" in r) for r in responses)
        return False

    def _command(self, doc: PMap) -> tuple[str, ...] | None:
        if "command" not in doc:
            return None
        seq = expect_list(doc["command"], doc.at_value("command"), "`command`")
        argv = tuple(as_str(v, p, "`command` item", allow_scalars=True) for v, p in seq.items_with_pos())
        if not argv:
            raise ScenarioError.at(seq.pos, "`command` must not be empty")
        return argv

    def _identity_value(self, key: str, value: Any, pos: Pos) -> Any:
        if key == "session_id":
            text = as_str(value, pos, "`session_id`")
            try:
                uuid.UUID(text)
            except ValueError:
                raise ScenarioError.at(pos, f"Invalid session_id '{text}': must be a valid UUID") from None
            return text
        if key == "launch_timestamp":
            text = as_str(value, pos, "`launch_timestamp`")
            if not _ISO_8601.match(text):
                raise ScenarioError.at(
                    pos,
                    f"Invalid launch_timestamp '{text}': must be ISO 8601 format with a zone "
                    "(e.g. 2025-01-15T10:30:00Z)",
                )
            return text
        if key == "permission_mode":
            text = as_str(value, pos, "`permission_mode`")
            if text not in PERMISSION_MODES:
                raise ScenarioError.at(
                    pos,
                    f"Invalid permission_mode '{text}': must be one of [{', '.join(PERMISSION_MODES[:6])}]",
                )
            return text
        if key in ("trusted", "logged_in", "show_welcome_back"):
            return as_bool(value, pos, f"`{key}`")
        if key == "welcome_back_right_panel":
            return to_plain(expect_list(value, pos, f"`{key}`"))
        return as_str(value, pos, f"`{key}`")

    def _timeouts(self, doc: PMap | None) -> m.Timeouts:
        values: dict[str, int] = {}
        if doc is not None:
            _deny_unknown(doc, TIMEOUTS)
        for key, default in TIMEOUTS.items():
            if doc is not None and key in doc:
                values[key] = as_int(doc[key], doc.at_value(key), f"`timeouts.{key}`")
                continue
            env_name = "CLAUDELESS_" + key.upper()
            raw = self.env.get(env_name)
            if raw is not None:
                if not raw.strip().isdigit():
                    raise ScenarioError.at(
                        Pos(self.file, 1, 1),
                        f"{env_name}={raw!r} in the environment is not a number of milliseconds",
                    )
                values[key] = int(raw)
            else:
                values[key] = default
        return m.Timeouts(**values)

    # ------------------------------------------------------------------ rules

    def _rules(self, doc: PMap, v2: bool) -> Iterable[m.ResponseRule]:
        if "responses" not in doc:
            return
        seq = expect_list(doc["responses"], doc.at_value("responses"), "`responses`")
        for item, pos in seq.items_with_pos():
            rule = expect_map(item, pos, "a response rule")
            yield self._rule_v2(rule) if v2 else self._rule_v1(rule)

    def _rule_v1(self, rule: PMap) -> m.ResponseRule:
        _deny_unknown(rule, RULE_V1)
        if "pattern" not in rule:
            raise ScenarioError.at(rule.pos, "missing field `pattern` in a response rule")
        pattern = self._pattern_v1(rule["pattern"], rule.at_value("pattern"), "`pattern`")
        failure = self._failure(rule["failure"], rule.at_value("failure")) if "failure" in rule else None
        if "response" in rule:
            reply: m.Reply | None = self._response_v1(
                rule["response"], rule.at_value("response"), "`response`"
            )
        elif failure is not None:
            reply = m.Reply(pos=rule.pos)
        else:
            raise ScenarioError.at(
                rule.pos, "missing field `response` (a rule needs `response` or `failure`)"
            )
        if failure is not None and reply is not None:
            reply = _with_failure(reply, failure)
        max_matches = (
            as_int(rule["max_matches"], rule.at_value("max_matches"), "`max_matches`")
            if "max_matches" in rule
            else None
        )
        turns: list[m.Turn] = []
        if "turns" in rule:
            for item, pos in expect_list(rule["turns"], rule.at_value("turns"), "`turns`").items_with_pos():
                turn = expect_map(item, pos, "a turn")
                _deny_unknown(turn, TURN_V1)
                if "response" not in turn:
                    raise ScenarioError.at(turn.pos, 'missing field `response` in a turn (it may be "")')
                expect = (
                    self._pattern_v1(turn["expect"], turn.at_value("expect"), "`expect`")
                    if "expect" in turn
                    else m.Pattern("any", pos=turn.pos)
                )
                turn_reply = self._response_v1(turn["response"], turn.at_value("response"), "`response`")
                if "failure" in turn:
                    turn_reply = _with_failure(
                        turn_reply, self._failure(turn["failure"], turn.at_value("failure"))
                    )
                turns.append(m.Turn(expect, turn_reply, turn.pos))
        return m.ResponseRule(pattern, reply, max_matches, tuple(turns), rule.pos)

    def _rule_v2(self, rule: PMap) -> m.ResponseRule:
        _deny_unknown(rule, RULE_V2)
        pattern = (
            self._pattern_v2(rule["on"], rule.at_value("on"))
            if "on" in rule
            else m.Pattern("any", pos=rule.pos)
        )
        reply = self._reply_v2(rule, allow=RULE_V2)
        max_matches = as_int(rule["max"], rule.at_value("max"), "`max`") if "max" in rule else None
        turns: list[m.Turn] = []
        if "then" in rule:
            for item, pos in expect_list(rule["then"], rule.at_value("then"), "`then`").items_with_pos():
                turn = expect_map(item, pos, "a `then` turn")
                _deny_unknown(turn, ("on", "say", "tools", "usage", "delay_ms", "failure"))
                expect = (
                    self._pattern_v2(turn["on"], turn.at_value("on"))
                    if "on" in turn
                    else m.Pattern("any", pos=turn.pos)
                )
                turns.append(
                    m.Turn(
                        expect,
                        self._reply_v2(turn, allow=("on", "say", "tools", "usage", "delay_ms", "failure")),
                        turn.pos,
                    )
                )
        return m.ResponseRule(pattern, reply, max_matches, tuple(turns), rule.pos)

    def _reply_v2(self, doc: PMap, allow: Iterable[str]) -> m.Reply:
        _deny_unknown(doc, allow)
        text = as_str(doc["say"], doc.at_value("say"), "`say`") if "say" in doc else ""
        calls: list[m.ToolCall] = []
        if "tools" in doc:
            for item, pos in expect_list(doc["tools"], doc.at_value("tools"), "`tools`").items_with_pos():
                call = expect_map(item, pos, "a tool call")
                _deny_unknown(call, TOOL_CALL_V2)
                if "call" not in call:
                    raise ScenarioError.at(call.pos, "missing field `call` (the tool name) in a tool call")
                calls.append(self._tool_call(as_str(call["call"], call.at_value("call"), "`call`"), call))
        failure = self._failure(doc["failure"], doc.at_value("failure")) if "failure" in doc else None
        return m.Reply(text, tuple(calls), self._usage(doc), self._delay(doc), failure, doc.pos)

    def _response_v1(self, value: Any, pos: Pos, what: str) -> m.Reply:
        if isinstance(value, str):
            return m.Reply(text=value, pos=pos)
        doc = expect_map(
            value, pos, f"{what} (a string or a table with `text`, `tool_calls`, `usage`, `delay_ms`)"
        )
        _deny_unknown(doc, RESPONSE_V1)
        text = as_str(doc["text"], doc.at_value("text"), "`text`") if "text" in doc else ""
        calls: list[m.ToolCall] = []
        if "tool_calls" in doc:
            for item, ipos in expect_list(
                doc["tool_calls"], doc.at_value("tool_calls"), "`tool_calls`"
            ).items_with_pos():
                call = expect_map(item, ipos, "a tool call")
                _deny_unknown(call, TOOL_CALL_V1)
                if "tool" not in call:
                    raise ScenarioError.at(call.pos, "missing field `tool` in a tool call")
                calls.append(self._tool_call(as_str(call["tool"], call.at_value("tool"), "`tool`"), call))
        return m.Reply(text, tuple(calls), self._usage(doc), self._delay(doc), None, doc.pos)

    def _tool_call(self, tool: str, call: PMap) -> m.ToolCall:
        tool_input: dict[str, Any] = {}
        if "input" in call:
            tool_input = self._resolve_files(expect_map(call["input"], call.at_value("input"), "`input`"))
        result = None
        if "result" in call:
            raw = call["result"]
            result = raw if isinstance(raw, str) else json.dumps(to_plain(raw))
        return m.ToolCall(tool, tool_input, result, call.pos)

    def _resolve_files(self, value: Any) -> Any:
        """Replace every ``{"$file": path}`` by the file's contents (JSON files parsed)."""
        if isinstance(value, PMap):
            if set(value) == {"$file"}:
                pos = value.at_value("$file")
                rel = as_str(value["$file"], pos, "`$file`")
                try:
                    path = resolve_inside(self.base_dir, rel, pos, "`$file`")
                    text = path.read_text(encoding="utf-8")
                    return json.loads(text) if path.suffix == ".json" else text
                except ScenarioError as exc:
                    raise ScenarioError.at(
                        pos, f"Failed to resolve file reference '{rel}': {exc.diagnostics[0].message}"
                    ) from None
                except (OSError, ValueError) as exc:
                    raise ScenarioError.at(pos, f"Failed to resolve file reference '{rel}': {exc}") from None
            return {k: self._resolve_files(v) for k, v in value.items()}
        if isinstance(value, PList):
            return [self._resolve_files(v) for v in value]
        return value

    def _usage(self, doc: PMap) -> dict[str, int]:
        if "usage" not in doc:
            return {}
        usage = expect_map(doc["usage"], doc.at_value("usage"), "`usage`")
        _deny_unknown(usage, ("input_tokens", "output_tokens"))
        return {k: as_int(v, usage.at_value(k), f"`usage.{k}`") for k, v in usage.items()}

    def _delay(self, doc: PMap) -> int | None:
        return as_int(doc["delay_ms"], doc.at_value("delay_ms"), "`delay_ms`") if "delay_ms" in doc else None

    # ------------------------------------------------------------------ patterns, failures, tools

    def _pattern_v1(self, value: Any, pos: Pos, what: str) -> m.Pattern:
        doc = expect_map(value, pos, f'{what} (a table such as {{ type = "contains", text = "hello" }})')
        _deny_unknown(doc, ("type", "text", "pattern"))
        if "type" not in doc:
            raise ScenarioError.at(
                doc.pos, f"missing field `type` in {what}; expected one of {one_of(PATTERN_TYPES)}"
            )
        kind = as_str(doc["type"], doc.at_value("type"), "`type`")
        if kind not in PATTERN_TYPES:
            raise ScenarioError.at(
                doc.at_value("type"), f"unknown variant `{kind}`, expected one of {one_of(PATTERN_TYPES)}"
            )
        if kind == "any":
            return m.Pattern("any", pos=doc.pos)
        key = "pattern" if "pattern" in doc else "text"
        if key not in doc:
            raise ScenarioError.at(
                doc.pos, f"a `{kind}` pattern needs `{'pattern' if kind in ('regex', 'glob') else 'text'}`"
            )
        text = as_str(doc[key], doc.at_value(key), f"`{key}`")
        return self._checked(kind, text, doc.at_value(key))

    def _pattern_v2(self, value: Any, pos: Pos) -> m.Pattern:
        if isinstance(value, str):
            if value == "*":
                return m.Pattern("any", pos=pos)
            if any(c in value for c in "*?["):
                return self._checked("glob", value, pos)
            return m.Pattern("exact", value, pos)
        doc = expect_map(value, pos, "`on` (a string, or { contains = … } / { regexp = … })")
        _deny_unknown(doc, ("contains", "regexp", "exact", "glob"))
        if len(doc) != 1:
            raise ScenarioError.at(doc.pos, "`on` takes exactly one of `contains`, `regexp`, `exact`, `glob`")
        ((key, raw),) = doc.items()
        kind = {"regexp": "regex"}.get(key, key)
        return self._checked(kind, as_str(raw, doc.at_value(key), f"`{key}`"), doc.at_value(key))

    def _checked(self, kind: str, text: str, pos: Pos) -> m.Pattern:
        if kind == "regex":
            try:
                re.compile(text)
            except re.error as exc:
                raise ScenarioError.at(pos, f"Invalid regex pattern: {exc}") from None
        elif kind == "glob":
            if text.count("[") != text.count("]"):
                raise ScenarioError.at(pos, f"Invalid glob pattern: unbalanced `[` in {text!r}")
            fnmatch.translate(text)
        return m.Pattern(kind, text, pos)  # type: ignore[arg-type]

    def _failure(self, value: Any, pos: Pos) -> m.Failure:
        doc = expect_map(value, pos, "`failure` (a table with `type`)")
        if "type" not in doc:
            raise ScenarioError.at(
                doc.pos, f"missing field `type` in `failure`; expected one of {one_of(FAILURE_TYPES)}"
            )
        kind = as_str(doc["type"], doc.at_value("type"), "`failure.type`").replace("-", "_")
        if kind not in FAILURE_TYPES:
            raise ScenarioError.at(
                doc.at_value("type"), f"unknown variant `{kind}`, expected one of {one_of(FAILURE_TYPES)}"
            )
        allowed = ("type", *FAILURE_FIELDS[kind])
        _deny_unknown(doc, allowed)
        params: dict[str, Any] = {}
        for key in FAILURE_FIELDS[kind]:
            if key in doc:
                params[key] = (
                    as_int(doc[key], doc.at_value(key), f"`{key}`")
                    if key.endswith(("_ms", "_after"))
                    else as_str(doc[key], doc.at_value(key), f"`{key}`")
                )
        return m.Failure(kind, params, doc.pos)

    def _tools(self, doc: PMap, v2: bool) -> tuple[Any, dict[str, m.ToolSetting]]:
        key = "tools" if v2 else "tool_execution"
        if key not in doc:
            return "live", {}
        section = expect_map(doc[key], doc.at_value(key), f"`{key}`")
        mode = "live"
        per_tool: PMap | None = None
        if not v2:
            _deny_unknown(section, ("mode", "tools"))
            if "tools" in section:
                per_tool = expect_map(section["tools"], section.at_value("tools"), "`tool_execution.tools`")
        if "mode" in section:
            mode = as_str(section["mode"], section.at_value("mode"), "`mode`")
            if mode not in ("mock", "live"):
                raise ScenarioError.at(
                    section.at_value("mode"), f"unknown variant `{mode}`, expected one of `mock`, `live`"
                )
        tools: dict[str, m.ToolSetting] = {}
        entries = (
            per_tool
            if per_tool is not None
            else ({k: v for k, v in section.items() if k != "mode"} if v2 else {})
        )
        holder = per_tool if per_tool is not None else section
        for name, value in entries.items():
            setting = expect_map(value, holder.at_value(name), f"the settings of tool `{name}`")
            _deny_unknown(setting, TOOL_SETTING_V2 if v2 else TOOL_SETTING_V1)
            approve_key = "approve" if v2 else "auto_approve"
            tools[name] = m.ToolSetting(
                auto_approve=as_bool(setting[approve_key], setting.at_value(approve_key), f"`{approve_key}`") if approve_key in setting else None,
                result=_text(setting.get("result")),
                error=as_str(setting["error"], setting.at_value("error"), "`error`") if "error" in setting else None,
                answers=to_plain(setting.get("answers")) or {},
            )  # fmt: skip
        return mode, tools


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(to_plain(value))


def _with_failure(reply: m.Reply, failure: m.Failure) -> m.Reply:
    return m.Reply(reply.text, reply.tool_calls, reply.usage, reply.delay_ms, failure, reply.pos)


def load_claudeless(
    doc: Any, file: str, base_dir: Path, reporter: Reporter, env: Mapping[str, str]
) -> m.Scenario:
    """Validate and normalise one Claudeless document (TOML or JSON)."""
    if doc is not None and not isinstance(doc, PMap):
        raise ScenarioError.at(
            Pos(file, 1, 1), f"a Claudeless scenario must be a table, got {type_name(doc)}"
        )
    return _Loader(file, base_dir, reporter, env).load(doc)
