"""Claudeless response rules (TOML or JSON, dialects v1 and v2) into the canonical model.

Claudeless (``alfredjeanlab/claudeless``) is a stand-in for the ``claude`` binary
that answers prompts from a scenario of ordered pattern rules. We load its files
so the same scenario can drive our mock LLM server, and we validate them the way
Claudeless does, so a file that passes here also runs there:

* where Claudeless rejects (``deny_unknown_fields`` structs, missing required
  fields, wrong types, its ``validate()`` checks, bad regex/glob, unreadable
  ``$file``) we raise a :class:`~.diagnostics.ScenarioError` at ``file:line:col``
  with Claudeless's own words (``unknown field `defualt_model` ``, ``Invalid
  session_id '…': must be a valid UUID``, …) plus what is allowed and, when a
  name is close, what was probably meant;
* where Claudeless silently ignores something (extra keys in a pattern, a
  detailed response, a failure or ``usage``, which its serde types do not deny)
  the file still loads, with a warning, because it would still run there.

Dialects. v1 (the reference commit ``fae3464``, and every corpus file):
``responses[] {pattern {type, text|pattern}, response (string or {text,
tool_calls[{tool, input, result}], usage, delay_ms}), failure, max_matches,
turns[{expect, response, failure}]}``, ``default_response``, ``tool_execution
{mode, tools{<Tool>{auto_approve, result, error, answers}}}``, identity and
environment keys at the top, ``[timeouts]``. v2 (later commits, used by
oddjobs): ``responses[] {on, say, tools[{call, input, result}], usage,
delay_ms, failure, max, then[]}``, ``[default]``, ``[tools] mode`` with
per-tool tables beside it (``approve``), ``[claude]`` identity with
``[claude.timeouts]``; ``trusted`` / ``logged_in`` / ``permission_mode`` at the
top (the latest form) or in ``[claude]`` (commit ``78ff06e``). The dialect is
told by its keys; a file mixing both is an error that names one key of each.

Semantics kept from Claudeless: timeouts come from the scenario, else the
``CLAUDELESS_*`` environment variable (``CLAUDELESS_EXIT_HINT_TIMEOUT_MS``,
``CLAUDELESS_COMPACT_DELAY_MS``, ``CLAUDELESS_HOOK_TIMEOUT_MS``,
``CLAUDELESS_MCP_TIMEOUT_MS``, ``CLAUDELESS_RESPONSE_DELAY_MS``), else the
default (Claudeless's documented precedence is "scenario config > environment
variable > default"); an unparsable environment value, which Claudeless would
quietly ignore, is an error here so that a typo does not go unnoticed. A
``{"$file": path}`` table anywhere in a tool input is replaced by the file's
contents (parsed when the name ends in ``.json``), read relative to the
scenario; unlike Claudeless we confine the path to the scenario folder
(``..``, absolute paths and symlinks out are errors).

Divergences, chosen on purpose: a tool ``input`` must be a table (Claudeless
takes any JSON value, but the API it imitates needs an object); regexes are
checked with Python's :mod:`re` after rejecting what Rust's ``regex`` crate does
not support (look-around, backreferences). Not a divergence but easy to trip
on: v2 rejects ``name`` and a top-level ``[timeouts]``, as Claudeless v2 does;
the diagnostic says where they go instead.

Our own top-level ``command`` (the argv of the program under test) is allowed
in both dialects. Claudeless itself denies unknown fields, so a file that uses
``command`` must have it removed before Claudeless is given the file.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from . import model as m
from .diagnostics import Pos, Reporter, ScenarioError, one_of
from .fields import as_bool, expect_list, expect_map, type_name
from .matching import Untranslatable, python_regex
from .names import check_name
from .paths import resolve_inside
from .source import PList, PMap

# --------------------------------------------------------------------------- the vocabulary

IDENTITY_V1 = ("default_model", "claude_version", "user_name", "session_id", "placeholder", "provider",
               "show_welcome_back", "welcome_back_right_panel")  # fmt: skip
ENVIRONMENT = ("project_path", "working_directory", "trusted", "logged_in", "permission_mode")
V1_TOP = ("name", "default_response", "responses", "tool_execution", *IDENTITY_V1, *ENVIRONMENT,
          "launch_timestamp", "timeouts", "command")  # fmt: skip
V2_TOP = ("claude", "default", "responses", "tools", "trusted", "logged_in", "permission_mode", "command")
V2_CLAUDE = ("session_id", "project_path", "launch_timestamp", "username", "version", "model", "provider",
             "placeholder", "working_directory", "show_welcome_back", "welcome_back_right_panel", "timeouts",
             "trusted", "logged_in", "permission_mode")  # fmt: skip
CANONICAL = {"default_model": "model", "claude_version": "version", "user_name": "username"}
"""v1 identity names -> Claudeless's canonical (v2) names, which the model uses."""

RULE_V1 = ("pattern", "response", "failure", "max_matches", "turns")
TURN_V1 = ("expect", "response", "failure")
RESPONSE_V1 = ("text", "tool_calls", "usage", "delay_ms")
TOOL_CALL_V1 = ("tool", "input", "result")
TOOL_EXECUTION_V1 = ("mode", "tools")
TOOL_SETTING_V1 = ("auto_approve", "result", "error", "answers")
RULE_V2 = ("on", "say", "tools", "usage", "delay_ms", "failure", "max", "then")
TURN_V2 = ("on", "say", "tools", "usage", "delay_ms", "failure")
DEFAULT_V2 = ("say", "tools", "usage", "delay_ms")
TOOL_CALL_V2 = ("call", "input", "result")
TOOL_SETTING_V2 = ("approve", "result", "error", "answers")
PATTERN_V2 = ("contains", "regexp")
USAGE = ("input_tokens", "output_tokens")

PATTERN_TYPES = ("exact", "regex", "glob", "contains", "any")
PATTERN_FIELD = {"exact": "text", "contains": "text", "regex": "pattern", "glob": "pattern"}
_CHECKED_KINDS: dict[str, Literal["exact", "regex", "glob", "contains"]] = {
    "exact": "exact",
    "regex": "regex",
    "glob": "glob",
    "contains": "contains",
}
FAILURE_FIELDS: dict[str, tuple[tuple[str, Literal["str", "u64"]], ...]] = {
    "network_unreachable": (),
    "connection_timeout": (("after_ms", "u64"),),
    "auth_error": (("message", "str"),),
    "rate_limit": (("retry_after", "u64"),),
    "out_of_credits": (),
    "partial_response": (("partial_text", "str"),),
    "malformed_json": (("raw", "str"),),
}
FAILURE_TYPES = tuple(FAILURE_FIELDS)
PERMISSION_MODES = ("default", "plan", "bypass-permissions", "accept-edits", "dont-ask", "delegate")
TOOL_MODES = ("mock", "live")
TIMEOUT_DEFAULTS = {"exit_hint_ms": 2000, "compact_delay_ms": 20, "hook_timeout_ms": 5000,
                    "mcp_timeout_ms": 30000, "response_delay_ms": 20}  # fmt: skip
TIMEOUT_ENV = {"exit_hint_ms": "CLAUDELESS_EXIT_HINT_TIMEOUT_MS", "compact_delay_ms": "CLAUDELESS_COMPACT_DELAY_MS",
               "hook_timeout_ms": "CLAUDELESS_HOOK_TIMEOUT_MS", "mcp_timeout_ms": "CLAUDELESS_MCP_TIMEOUT_MS",
               "response_delay_ms": "CLAUDELESS_RESPONSE_DELAY_MS"}  # fmt: skip
U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1

# Keys that only one dialect has, to tell them apart (`name`, `timeouts`, `failure`, shared
# identity keys are left out: they are either in both or get their own hint).
V1_ONLY_TOP = ("default_response", "tool_execution", "default_model", "claude_version", "user_name",
               "placeholder", "provider", "show_welcome_back", "welcome_back_right_panel", "project_path",
               "working_directory", "session_id", "launch_timestamp")  # fmt: skip
V2_ONLY_TOP = ("claude", "default", "tools")
V1_ONLY_RULE = ("pattern", "response", "max_matches", "turns")
V2_ONLY_RULE = ("on", "say", "then", "max", "tools", "usage", "delay_ms")

# What the other dialect calls a key, for hints when one is used in the wrong place.
OTHER_DIALECT = {
    "pattern": "on", "expect": "on", "response": "say", "text": "say", "max_matches": "max", "turns": "then",
    "tool_calls": "tools", "tool": "call", "auto_approve": "approve", "default_response": "default",
    "tool_execution": "tools", "default_model": "claude.model", "claude_version": "claude.version",
    "user_name": "claude.username", "on": "pattern", "say": "response", "max": "max_matches",
    "then": "turns", "call": "tool", "approve": "auto_approve", "default": "default_response",
    "regexp": "regex",
}  # fmt: skip

_HEX = "[0-9a-fA-F]"
_UUID_HYPHENATED = f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"
_UUID = re.compile(
    rf"(?:{_HEX}{{32}}|{_UUID_HYPHENATED}|\{{{_UUID_HYPHENATED}\}}|urn:uuid:{_UUID_HYPHENATED})"
)
_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?"
    r"(?:[Zz]|[+-]([0-9]{2}):([0-5][0-9]))"
)
_U64_TEXT = re.compile(r"\+?[0-9]+")


# --------------------------------------------------------------------------- messages


def _suggest(key: str, allowed: Iterable[str]) -> str:
    import difflib  # only for a key that is not allowed

    close = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.75)
    return f" (did you mean `{close[0]}`?)" if close else ""


def unknown_field(pos: Pos, key: str, allowed: Iterable[str], hint: str = "") -> ScenarioError:
    """Claudeless's ``unknown field `x` ``, plus the allowed fields and a likely correction."""
    allowed = tuple(allowed)
    suggestion = _suggest(key, allowed)
    if not suggestion and OTHER_DIALECT.get(key) in allowed:
        suggestion = f" (this dialect calls it `{OTHER_DIALECT[key]}`)"
    return ScenarioError.at(
        pos,
        f"unknown field `{key}`{suggestion}; expected one of {one_of(allowed)}"
        + (f"; {hint}" if hint else ""),
    )


def _deny_unknown(doc: PMap, allowed: Iterable[str], hints: Mapping[str, str] | None = None) -> None:
    """Claudeless's ``deny_unknown_fields``: the first key not in ``allowed`` is an error."""
    allowed = tuple(allowed)
    for key in doc:
        if key not in allowed:
            raise unknown_field(doc.at_key(key), key, allowed, (hints or {}).get(key, ""))


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, int | float):
        return f"`{value}`"
    if isinstance(value, dt.date | dt.time):
        return "a TOML date-time (write it in quotes to make it a string)"
    return type_name(value)


def _str(value: Any, pos: Pos, what: str) -> str:
    if isinstance(value, str):
        return value
    raise ScenarioError.at(pos, f"{what} must be a string, got {_describe(value)}")


def _uint(value: Any, pos: Pos, what: str, limit: int = U64_MAX) -> int:
    """A whole number as Claudeless's serde reads ``u32``/``u64``: no floats, no negatives."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
        raise ScenarioError.at(
            pos, f"{what} must be a whole number from 0 to {limit}, got {_describe(value)}"
        )
    return value


def _a(word: str) -> str:
    """`word` in backquotes with its article: "an `any`", "a `glob`"."""
    return f"{'an' if word[:1] in 'aeiou' else 'a'} `{word}`"


def _bool(value: Any, pos: Pos, what: str) -> bool:
    return as_bool(value, pos, what)


def _json_safe(value: Any) -> Any:
    """Plain JSON data: containers stripped of positions, TOML dates as ISO 8601 strings."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return value


# --------------------------------------------------------------------------- validation rules


def check_session_id(text: str, pos: Pos) -> str:
    """The UUID forms Rust's ``uuid::Uuid::parse_str`` accepts: simple, hyphenated, braced, URN."""
    if not _UUID.fullmatch(text):
        raise ScenarioError.at(pos, f"Invalid session_id '{text}': must be a valid UUID")
    return text


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def check_launch_timestamp(text: str, pos: Pos) -> str:
    """RFC 3339 as chrono's ``DateTime::parse_from_rfc3339`` reads it: seconds and a zone required."""
    match = _RFC3339.fullmatch(text)
    valid = match is not None
    if match is not None:
        year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
        offset_hour = int(match.group(7) or 0)
        valid = (
            1 <= month <= 12
            and 1 <= day <= _days_in_month(year, month)
            and hour <= 23
            and minute <= 59
            and second <= 60
            and offset_hour <= 23
        )
    if not valid:
        raise ScenarioError.at(
            pos, f"Invalid launch_timestamp '{text}': must be ISO 8601 format (e.g., 2025-01-15T10:30:00Z)"
        )
    return text


def check_permission_mode(text: str, pos: Pos) -> str:
    """One of Claudeless's modes, compared in lower case as it does; kept as written."""
    if text.lower() in PERMISSION_MODES:
        return text
    kebab = re.sub(r"(?<=[a-z])(?=[A-Z])", "-", text).lower()
    hint = (
        f" (did you mean `{kebab}`?)"
        if kebab in PERMISSION_MODES
        else _suggest(text.lower(), PERMISSION_MODES)
    )
    listed = ", ".join(f'"{mode}"' for mode in PERMISSION_MODES)
    raise ScenarioError.at(pos, f"Invalid permission_mode '{text}': must be one of [{listed}]{hint}")


_GLOB_WILDCARDS = "wildcards are either regular `*` or recursive `**`"
_GLOB_RECURSIVE = "recursive wildcards must form a single path component"
_GLOB_RANGE = "invalid range pattern"


def glob_error(pattern: str) -> str | None:
    """Why Rust's ``glob::Pattern::new`` rejects ``pattern``, in its words; None if it accepts it."""
    chars = list(pattern)
    n = len(chars)
    i = 0
    while i < n:
        ch = chars[i]
        if ch == "*":
            start = i
            while i < n and chars[i] == "*":
                i += 1
            count = i - start
            if count > 2:
                return f"Pattern syntax error near position {start + 2}: {_GLOB_WILDCARDS}"
            if count == 2:
                if i == 2 or chars[start - 1] == "/":
                    if i < n and chars[i] == "/":
                        i += 1
                    elif i != n:
                        return f"Pattern syntax error near position {i}: {_GLOB_RECURSIVE}"
                else:
                    return f"Pattern syntax error near position {start - 1}: {_GLOB_RECURSIVE}"
        elif ch == "[":
            if i + 4 <= n and chars[i + 1] == "!":
                if "]" in chars[i + 3 :]:
                    i = chars.index("]", i + 3) + 1
                    continue
            elif i + 3 <= n and chars[i + 1] != "!" and "]" in chars[i + 2 :]:
                i = chars.index("]", i + 2) + 1
                continue
            return f"Pattern syntax error near position {i}: {_GLOB_RANGE}"
        else:
            i += 1
    return None


_REGEX_UNSUPPORTED = (
    (re.compile(r"\(\?<?[=!]"), "look-around, including look-ahead and look-behind, is not supported"),
    (re.compile(r"\(\?P=|\\[1-9]|\\g<"), "backreferences are not supported"),
    (re.compile(r"\(\?[>(#]"), "this group syntax is not supported"),
)
_REGEX_FLAGS = re.compile(r"\(\?([A-Za-z-]*)([):])")


def regex_error(pattern: str) -> str | None:
    """Why Rust's ``regex`` crate would reject ``pattern``; None if it compiles.

    Python's :mod:`re` does the syntax check, after two adjustments: constructs Rust
    lacks (look-around, backreferences, atomic and conditional groups, comments) are
    refused first, and Rust-only spellings Python cannot parse (``(?<name>``, ``\\z``,
    ``\\p{L}``, POSIX classes, the ``U``/``R`` flags, flags in mid-pattern) are mapped
    to equivalents that have the same syntax.
    """
    plain = _strip_escaped(pattern)
    for finder, message in _REGEX_UNSUPPORTED:
        if finder.search(plain):
            return message
    verbose = False

    def flags(match: re.Match[str]) -> str:
        nonlocal verbose
        letters, end = match.group(1), match.group(2)
        bad = set(letters) - set("imsUuxR-")
        if bad:
            raise re.error(f"unrecognized flag `{sorted(bad)[0]}`")
        verbose = verbose or "x" in letters.split("-")[0]
        kept = "".join(c for c in letters if c in "imsx-").rstrip("-")
        if end == ":":
            return f"(?{kept}:" if kept and not kept.startswith("-") else "(?:"
        return f"(?{kept})" if match.start() == 0 and kept and "-" not in kept else "(?:)"

    try:
        text = pattern.replace("(?<", "(?P<").replace("(?P<=", "(?<=").replace("(?P<!", "(?<!")
        text = re.sub(r"\\z", r"\\Z", text)
        text = re.sub(r"\\[pP](\{[^}]*\}|[A-Za-z])", "a", text)
        text = re.sub(r"\[:\^?[a-z]+:\]", "a", text)
        text = _REGEX_FLAGS.sub(flags, text)
        with warnings.catch_warnings():  # "possible nested set" and friends: Rust syntax, fine here
            warnings.simplefilter("ignore")
            re.compile(text, re.VERBOSE if verbose else 0)
    except re.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        return f"{exc.msg}{where}"
    except (RecursionError, OverflowError, ValueError) as exc:
        return str(exc) or type(exc).__name__
    return None


def _strip_escaped(pattern: str) -> str:
    """The pattern with escaped characters blanked, so `\\(?=` is not taken for look-ahead."""
    return re.sub(r"\\[^1-9gz]", "__", pattern)


# --------------------------------------------------------------------------- the loader


class _Loader:
    """Reads one parsed document; ``v2`` selects the dialect's key names."""

    def __init__(self, file: str, base_dir: Path, reporter: Reporter, env: Mapping[str, str]) -> None:
        self.file = file
        self.base_dir = base_dir
        self.reporter = reporter
        self.env = env
        self.v2 = False

    # ------------------------------------------------------------------ top level

    def load(self, doc: PMap) -> m.Scenario:
        self.v2 = self._dialect(doc)
        identity: dict[str, Any] = {}
        timeouts_doc: PMap | None = None
        if self.v2:
            _deny_unknown(
                doc,
                V2_TOP,
                {
                    "name": "a v2 scenario has no `name` (the file name names it)",
                    "timeouts": "in v2, timeouts go in `[claude.timeouts]`",
                },
            )
            if "claude" in doc:
                claude = expect_map(doc["claude"], doc.at_value("claude"), "`claude`")
                _deny_unknown(claude, V2_CLAUDE)
                for key in claude:
                    if key == "timeouts":
                        timeouts_doc = expect_map(claude[key], claude.at_value(key), "`claude.timeouts`")
                    else:
                        identity[key] = self._identity(key, claude[key], claude.at_value(key))
            for key in ("trusted", "logged_in", "permission_mode"):
                if key in doc:
                    identity[key] = self._identity(key, doc[key], doc.at_value(key))
        else:
            _deny_unknown(doc, V1_TOP)
            for key in (*IDENTITY_V1, *ENVIRONMENT, "launch_timestamp"):
                if key in doc:
                    identity[CANONICAL.get(key, key)] = self._identity(key, doc[key], doc.at_value(key))
            if "timeouts" in doc:
                timeouts_doc = expect_map(doc["timeouts"], doc.at_value("timeouts"), "`timeouts`")
        name = _str(doc["name"], doc.at_value("name"), "`name`") if "name" in doc else ""
        if name:
            check_name(name, doc.at_value("name"))  # it names a folder: `../..` must not write elsewhere
        default_key = "default" if self.v2 else "default_response"
        default = None
        if default_key in doc:
            pos = doc.at_value(default_key)
            if self.v2:
                table = expect_map(doc[default_key], pos, "`default`")
                _deny_unknown(
                    table, DEFAULT_V2, {"failure": "`[default]` cannot inject a failure; use a rule"}
                )
                default = self._reply_v2(table)
            else:
                default = self._response_v1(doc[default_key], pos, "`default_response`")
        tool_mode, tools = self._tools(doc)
        ruleset = m.RuleSet(
            rules=tuple(self._rules(doc)),
            default_reply=default,
            tool_mode=tool_mode,
            tools=m.frozen_map(tools),
            identity=m.frozen_map(identity),
            timeouts=self._timeouts(timeouts_doc, doc),
            format_version=2 if self.v2 else 1,
        )
        return m.Scenario(
            name=name.strip() or Path(self.file).stem,
            file=self.file,
            format="claudeless",
            rules=ruleset,
            command=self._command(doc),
            pos=doc.pos,
            tags=("claudeless",),
        )

    def _dialect(self, doc: PMap) -> bool:
        """True for v2. A key only one dialect has decides; both kinds at once is an error."""
        v1: tuple[str, Pos] | None = None
        v2: tuple[str, Pos] | None = None
        for key in doc:
            if key in V1_ONLY_TOP and v1 is None:
                v1 = (key, doc.at_key(key))
            if key in V2_ONLY_TOP and v2 is None:
                v2 = (key, doc.at_key(key))
        responses = doc.get("responses")
        if isinstance(responses, PList):
            for rule in responses:
                if isinstance(rule, PMap):
                    for key in rule:
                        if key in V1_ONLY_RULE and v1 is None:
                            v1 = (key, rule.at_key(key))
                        if key in V2_ONLY_RULE and v2 is None:
                            v2 = (key, rule.at_key(key))
        if v1 is not None and v2 is not None:
            later = max(v1[1], v2[1])
            raise ScenarioError.at(
                later,
                f"this file mixes the two Claudeless dialects: `{v1[0]}` (line {v1[1].line}) is v1 and "
                f"`{v2[0]}` (line {v2[1].line}) is v2; v1 writes rules with `pattern`, `response`, `max_matches`, "
                "`turns` and has `default_response`, `tool_execution` and identity keys at the top; v2 writes "
                "them with `on`, `say`, `tools`, `max`, `then` and has `[default]`, `[tools]` and `[claude]`",
            )
        return v2 is not None

    def _command(self, doc: PMap) -> tuple[str, ...] | None:
        """Our extension: the argv of the program under test (Claudeless itself has no such key)."""
        if "command" not in doc:
            return None
        value, pos = doc["command"], doc.at_value("command")
        if isinstance(value, str):
            raise ScenarioError.at(
                pos, '`command` must be a list (the argv of the program under test), e.g. ["claude", "-p"]'
            )
        seq = expect_list(value, pos, "`command`")
        argv = tuple(_str(v, p, "`command` item") for v, p in seq.items_with_pos())
        if not argv:
            raise ScenarioError.at(pos, "`command` must not be empty")
        return argv

    def _identity(self, key: str, value: Any, pos: Pos) -> Any:
        """One identity/environment value, with Claudeless's ``validate()`` checks."""
        if key in ("trusted", "logged_in", "show_welcome_back"):
            return _bool(value, pos, f"`{key}`")
        if key == "welcome_back_right_panel":
            rows = expect_list(value, pos, f'`{key}` (rows of text; "---" is a separator)')
            return tuple(_str(v, p, f"a `{key}` row") for v, p in rows.items_with_pos())
        text = _str(value, pos, f"`{key}`")
        if key == "session_id":
            return check_session_id(text, pos)
        if key == "launch_timestamp":
            return check_launch_timestamp(text, pos)
        if key == "permission_mode":
            return check_permission_mode(text, pos)
        return text

    def _timeouts(self, table: PMap | None, doc: PMap) -> m.Timeouts:
        """Scenario value, else ``CLAUDELESS_*`` from the environment, else the default."""
        if table is not None:
            _deny_unknown(table, TIMEOUT_DEFAULTS)
        values: dict[str, int] = {}
        source: dict[str, m.TimeoutSource] = {}
        for key, default in TIMEOUT_DEFAULTS.items():
            if table is not None and key in table:
                values[key] = _uint(table[key], table.at_value(key), f"`timeouts.{key}`")
                source[key] = "scenario"
                continue
            name = TIMEOUT_ENV[key]
            raw = self.env.get(name)
            if raw is None:
                values[key] = default
                continue
            if not _U64_TEXT.fullmatch(raw) or int(raw) > U64_MAX:
                raise ScenarioError.at(
                    table.pos if table is not None else doc.pos,
                    f"the environment variable {name}={raw!r} is not a whole number of milliseconds; "
                    f"set it to one (Claudeless would ignore it and use {default}) or give `{key}` in the "
                    "scenario's timeouts",
                )
            values[key] = int(raw)
            source[key] = "env"
        return m.Timeouts(**values, source=m.frozen_map(source))

    # ------------------------------------------------------------------ rules

    def _rules(self, doc: PMap) -> Iterable[m.ResponseRule]:
        if "responses" not in doc:
            return
        seq = expect_list(doc["responses"], doc.at_value("responses"), "`responses`")
        for item, pos in seq.items_with_pos():
            rule = expect_map(item, pos, "a response rule")
            yield self._rule_v2(rule) if self.v2 else self._rule_v1(rule)

    def _rule_v1(self, rule: PMap) -> m.ResponseRule:
        _deny_unknown(rule, RULE_V1)
        if "pattern" not in rule:
            raise ScenarioError.at(
                rule.pos, 'missing field `pattern` in a response rule, e.g. pattern = { type = "any" }'
            )
        pattern = self._pattern_v1(rule["pattern"], rule.at_value("pattern"), "`pattern`")
        failure = self._failure(rule["failure"], rule.at_value("failure")) if "failure" in rule else None
        if "response" in rule:
            reply = self._response_v1(rule["response"], rule.at_value("response"), "`response`")
        else:
            if failure is None:
                self.reporter.warn(
                    rule.pos,
                    "this rule has neither `response` nor `failure`; Claudeless answers it with empty text",
                )
            reply = m.Reply(pos=rule.pos)
        if failure is not None:
            reply = _with_failure(reply, failure)
        max_matches = (
            _uint(rule["max_matches"], rule.at_value("max_matches"), "`max_matches`", U32_MAX)
            if "max_matches" in rule
            else None
        )
        turns: list[m.Turn] = []
        if "turns" in rule:
            for item, pos in expect_list(rule["turns"], rule.at_value("turns"), "`turns`").items_with_pos():
                turn = expect_map(item, pos, "a turn")
                _deny_unknown(turn, TURN_V1)
                if "expect" not in turn:
                    raise ScenarioError.at(
                        turn.pos,
                        'missing field `expect` in a turn; write expect = { type = "any" } to take any prompt',
                    )
                if "response" not in turn:
                    raise ScenarioError.at(turn.pos, 'missing field `response` in a turn (it may be "")')
                expect = self._pattern_v1(turn["expect"], turn.at_value("expect"), "`expect`")
                turn_reply = self._response_v1(turn["response"], turn.at_value("response"), "`response`")
                if "failure" in turn:
                    turn_reply = _with_failure(
                        turn_reply, self._failure(turn["failure"], turn.at_value("failure"))
                    )
                turns.append(m.Turn(expect, turn_reply, turn.pos))
        return m.ResponseRule(pattern, reply, max_matches, tuple(turns), rule.pos)

    def _rule_v2(self, rule: PMap) -> m.ResponseRule:
        _deny_unknown(rule, RULE_V2)
        if "on" not in rule:
            raise ScenarioError.at(
                rule.pos, 'missing field `on` in a response rule; on = "*" takes any prompt'
            )
        pattern = self._pattern_v2(rule["on"], rule.at_value("on"))
        reply = self._reply_v2(rule)
        max_matches = _uint(rule["max"], rule.at_value("max"), "`max`", U32_MAX) if "max" in rule else None
        turns: list[m.Turn] = []
        if "then" in rule:
            for item, pos in expect_list(rule["then"], rule.at_value("then"), "`then`").items_with_pos():
                turn = expect_map(item, pos, "a `then` turn")
                _deny_unknown(turn, TURN_V2)
                if "on" not in turn:
                    raise ScenarioError.at(
                        turn.pos, 'missing field `on` in a `then` turn; on = "*" takes any prompt'
                    )
                turns.append(
                    m.Turn(self._pattern_v2(turn["on"], turn.at_value("on")), self._reply_v2(turn), turn.pos)
                )
        return m.ResponseRule(pattern, reply, max_matches, tuple(turns), rule.pos)

    def _reply_v2(self, doc: PMap) -> m.Reply:
        """`say`, `tools`, `usage`, `delay_ms` and `failure`, which v2 writes on the rule itself."""
        text = _str(doc["say"], doc.at_value("say"), "`say`") if "say" in doc else ""
        calls = self._tool_calls(doc, "tools", "call", TOOL_CALL_V2)
        failure = self._failure(doc["failure"], doc.at_value("failure")) if "failure" in doc else None
        return m.Reply(text, calls, self._usage(doc), self._delay(doc), failure, doc.pos)

    def _response_v1(self, value: Any, pos: Pos, what: str) -> m.Reply:
        """A plain string, or a detailed table whose `text` is required (Claudeless's untagged enum)."""
        if isinstance(value, str):
            return m.Reply(text=value, pos=pos)
        if not isinstance(value, PMap):
            raise ScenarioError.at(
                pos,
                f"{what} must be a string or a table with `text` (and optionally `tool_calls`, `usage`, "
                f"`delay_ms`), got {_describe(value)}",
            )
        for key in value:
            if key not in RESPONSE_V1:
                hint = (
                    "; put `failure` on the rule or turn, beside `response`"
                    if key == "failure"
                    else _suggest(key, RESPONSE_V1)
                )
                self.reporter.warn(
                    value.at_key(key),
                    f"field `{key}` in {what} is ignored by Claudeless; a detailed response has "
                    f"{one_of(RESPONSE_V1)}{hint}",
                )
        if "text" not in value:
            raise ScenarioError.at(
                value.pos, f'missing field `text` in {what}: a detailed response needs `text` (it may be "")'
            )
        text = _str(value["text"], value.at_value("text"), "`text`")
        calls = self._tool_calls(value, "tool_calls", "tool", TOOL_CALL_V1)
        return m.Reply(text, calls, self._usage(value), self._delay(value), None, value.pos)

    def _tool_calls(
        self, doc: PMap, key: str, name_key: str, allowed: tuple[str, ...]
    ) -> tuple[m.ToolCall, ...]:
        if key not in doc:
            return ()
        calls: list[m.ToolCall] = []
        for item, pos in expect_list(doc[key], doc.at_value(key), f"`{key}`").items_with_pos():
            call = expect_map(item, pos, "a tool call")
            _deny_unknown(call, allowed)
            if name_key not in call:
                raise ScenarioError.at(
                    call.pos, f"missing field `{name_key}` (the tool's name) in a tool call"
                )
            tool = _str(call[name_key], call.at_value(name_key), f"`{name_key}`")
            if "input" not in call:
                raise ScenarioError.at(
                    call.pos,
                    f"missing field `input` in the tool call `{tool}`; write input = {{}} for no parameters",
                )
            where = call.at_value("input")
            tool_input = self._resolve_files(expect_map(call["input"], where, "`input`"))
            if not isinstance(tool_input, Mapping):
                raise ScenarioError.at(
                    where,
                    f"`input` of the tool call `{tool}` must be a table, but its `$file` holds {type_name(tool_input)}",
                )
            result = _str(call["result"], call.at_value("result"), "`result`") if "result" in call else None
            calls.append(m.ToolCall(tool, m.frozen_map(tool_input), result, call.pos))
        return tuple(calls)

    def _resolve_files(self, value: Any) -> Any:
        """Replace every ``{"$file": path}`` table by the file's contents (``.json`` files parsed)."""
        if isinstance(value, PMap):
            if isinstance(value.get("$file"), str):
                if len(value) > 1:
                    self.reporter.warn(
                        value.pos,
                        "keys beside `$file` are dropped: the file's contents replace the whole table",
                    )
                return self._read_file(value["$file"], value.at_value("$file"))
            if "$file" in value:
                self.reporter.warn(
                    value.at_value("$file"),
                    f"`$file` must be a string path to be read, got {_describe(value['$file'])}; "
                    "the table is passed on unchanged",
                )
            return {k: self._resolve_files(v) for k, v in value.items()}
        if isinstance(value, PList):
            return [self._resolve_files(v) for v in value]
        return _json_safe(value)

    def _read_file(self, rel: str, pos: Pos) -> Any:
        try:
            path = resolve_inside(self.base_dir, rel, pos, "`$file`")
            text = path.read_bytes().decode("utf-8")
        except ScenarioError as exc:
            reason = exc.diagnostics[0].message
            raise ScenarioError.at(pos, f"Failed to resolve file reference '{rel}': {reason}") from None
        except IsADirectoryError:
            raise ScenarioError.at(
                pos, f"Failed to resolve file reference '{rel}': it is a directory"
            ) from None
        except OSError as exc:
            raise ScenarioError.at(pos, f"Failed to resolve file reference '{rel}': {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ScenarioError.at(
                pos, f"Failed to resolve file reference '{rel}': stream did not contain valid UTF-8"
            ) from None
        if path.suffix != ".json":
            return text
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScenarioError.at(
                pos, f"Failed to parse JSON: {exc.msg} at line {exc.lineno} column {exc.colno} of '{rel}'"
            ) from None
        except RecursionError:
            raise ScenarioError.at(pos, f"Failed to parse JSON: '{rel}' is nested too deeply") from None

    def _usage(self, doc: PMap) -> dict[str, int]:
        """Token counts; both are required, extra keys ignored (with a warning), as Claudeless does."""
        if "usage" not in doc:
            return {}
        usage = expect_map(doc["usage"], doc.at_value("usage"), "`usage`")
        for key in usage:
            if key not in USAGE:
                self.reporter.warn(
                    usage.at_key(key),
                    f"field `{key}` in `usage` is ignored by Claudeless; usage has {one_of(USAGE)}"
                    + _suggest(key, USAGE),
                )
        for key in USAGE:
            if key not in usage:
                raise ScenarioError.at(
                    usage.pos, f"missing field `{key}` in `usage` (it needs {one_of(USAGE)})"
                )
        return {key: _uint(usage[key], usage.at_value(key), f"`usage.{key}`", U32_MAX) for key in USAGE}

    def _delay(self, doc: PMap) -> int | None:
        return _uint(doc["delay_ms"], doc.at_value("delay_ms"), "`delay_ms`") if "delay_ms" in doc else None

    # ------------------------------------------------------------------ patterns, failures, tools

    def _pattern_v1(self, value: Any, pos: Pos, what: str) -> m.Pattern:
        doc = expect_map(value, pos, f'{what} (a table such as {{ type = "contains", text = "hello" }})')
        if "type" not in doc:
            raise ScenarioError.at(
                doc.pos, f"missing field `type` in {what}; expected one of {one_of(PATTERN_TYPES)}"
            )
        kind = _str(doc["type"], doc.at_value("type"), f"{what} `type`")
        if kind not in PATTERN_TYPES:
            raise ScenarioError.at(
                doc.at_value("type"),
                f"unknown variant `{kind}`, expected one of {one_of(PATTERN_TYPES)}"
                + _suggest(kind, PATTERN_TYPES),
            )
        field_name = PATTERN_FIELD.get(kind)
        for key in doc:
            if key != "type" and key != field_name:
                reads = f"it reads `{field_name}`" if field_name else "it takes no other field"
                self.reporter.warn(
                    doc.at_key(key), f"field `{key}` is ignored in {_a(kind)} pattern ({reads})"
                )
        if field_name is None:
            return m.Pattern("any", pos=doc.pos)
        if field_name not in doc:
            other = "text" if field_name == "pattern" else "pattern"
            hint = f" ({_a(kind)} pattern reads `{field_name}`, not `{other}`)" if other in doc else ""
            raise ScenarioError.at(doc.pos, f"missing field `{field_name}` in {_a(kind)} pattern{hint}")
        text = _str(doc[field_name], doc.at_value(field_name), f"`{field_name}`")
        return self._checked(_CHECKED_KINDS[kind], text, doc.at_value(field_name))

    def _pattern_v2(self, value: Any, pos: Pos) -> m.Pattern:
        """A bare string is a glob (``*`` any, no wildcard = exact), or {contains} / {regexp}."""
        if isinstance(value, str):
            if value == "*":
                return m.Pattern("any", pos=pos)
            if not any(c in value for c in "*?["):
                return m.Pattern("exact", value, pos)
            return self._checked("glob", value, pos)
        if not isinstance(value, PMap):
            raise ScenarioError.at(
                pos,
                f"`on` must be a string (glob pattern) or table with 'contains' or 'regexp' key, got {_describe(value)}",
            )
        for key in value:
            if key not in PATTERN_V2:
                raise ScenarioError.at(
                    value.at_key(key),
                    f"unknown field `{key}`, expected `contains` or `regexp`"
                    + _suggest(key, PATTERN_V2)
                    + (
                        '; an exact or glob pattern is a bare string: on = "text"'
                        if key in ("exact", "glob")
                        else ""
                    ),
                )
        if len(value) == 2:
            raise ScenarioError.at(value.pos, "pattern must have either 'contains' or 'regexp', not both")
        if not value:
            raise ScenarioError.at(value.pos, "pattern table must have 'contains' or 'regexp' key")
        ((key, raw),) = value.items()
        text = _str(raw, value.at_value(key), f"`{key}`")
        return self._checked("regex" if key == "regexp" else "contains", text, value.at_value(key))

    def _checked(self, kind: Literal["exact", "regex", "glob", "contains"], text: str, pos: Pos) -> m.Pattern:
        """Compile-check a regex or glob where it is written, as Claudeless does at load time."""
        if kind == "regex":
            problem = regex_error(text)
            if problem is not None:
                raise ScenarioError.at(pos, f"Invalid regex pattern: {problem} in {text!r}")
            try:
                python_regex(text)
            except Untranslatable as exc:
                self.reporter.warn(pos, f"{exc}: Claudeless accepts {text!r}, but in the workbench this rule never "
                                        "matches; write it without that construct")  # fmt: skip
        elif kind == "glob":
            problem = glob_error(text)
            if problem is not None:
                raise ScenarioError.at(pos, f"Invalid glob pattern: {problem} in {text!r}")
        return m.Pattern(kind, text, pos)

    def _failure(self, value: Any, pos: Pos) -> m.Fault:
        doc = expect_map(value, pos, "`failure` (a table with `type`)")
        if "type" not in doc:
            raise ScenarioError.at(
                doc.pos, f"missing field `type` in `failure`; expected one of {one_of(FAILURE_TYPES)}"
            )
        kind = _str(doc["type"], doc.at_value("type"), "`failure.type`")
        if kind not in FAILURE_TYPES:
            snake = kind.replace("-", "_")
            hint = (
                f" (did you mean `{snake}`? `{kind}` is how the --failure flag spells it)"
                if snake in FAILURE_TYPES
                else _suggest(kind, FAILURE_TYPES)
            )
            raise ScenarioError.at(
                doc.at_value("type"),
                f"unknown variant `{kind}`, expected one of {one_of(FAILURE_TYPES)}{hint}",
            )
        fields = FAILURE_FIELDS[kind]
        names = tuple(name for name, _ in fields)
        for key in doc:
            if key != "type" and key not in names:
                takes = f"it takes {one_of(names)}" if names else "it takes no other field"
                self.reporter.warn(
                    doc.at_key(key),
                    f"field `{key}` is ignored by {_a(kind)} failure ({takes}){_suggest(key, names)}",
                )
        params: dict[str, Any] = {}
        for name, kind_of in fields:
            if name not in doc:
                raise ScenarioError.at(doc.pos, f"missing field `{name}` in {_a(kind)} failure")
            where = doc.at_value(name)
            params[name] = (
                _uint(doc[name], where, f"`{name}`")
                if kind_of == "u64"
                else _str(doc[name], where, f"`{name}`")
            )
        return m.Fault(kind, m.frozen_map(params), doc.pos)

    def _tools(self, doc: PMap) -> tuple[Literal["mock", "live"], dict[str, m.ToolSetting]]:
        """v1 ``[tool_execution] mode`` + ``tools.<Tool>``; v2 ``[tools] mode`` + ``<Tool>`` beside it."""
        key = "tools" if self.v2 else "tool_execution"
        if key not in doc:
            return "live", {}
        section = expect_map(doc[key], doc.at_value(key), f"`{key}`")
        mode: Literal["mock", "live"] = "live"
        if "mode" in section:
            text = _str(section["mode"], section.at_value("mode"), f"`{key}.mode`")
            if text not in TOOL_MODES:
                raise ScenarioError.at(
                    section.at_value("mode"),
                    f"unknown variant `{text}`, expected `mock` or `live`" + _suggest(text, TOOL_MODES),
                )
            mode = "mock" if text == "mock" else "live"
        if self.v2:
            holder, where = section, "`tools`"
            entries = [name for name in section if name != "mode"]
        else:
            _deny_unknown(section, TOOL_EXECUTION_V1)
            if "tools" not in section:
                return mode, {}
            holder = expect_map(section["tools"], section.at_value("tools"), "`tool_execution.tools`")
            where, entries = "`tool_execution.tools`", list(holder)
        tools: dict[str, m.ToolSetting] = {}
        allowed = TOOL_SETTING_V2 if self.v2 else TOOL_SETTING_V1
        for name in entries:
            value = holder[name]
            if not isinstance(value, PMap):
                hint = _suggest(name, ("mode",)) if self.v2 else ""
                raise ScenarioError.at(
                    holder.at_value(name),
                    f"{where} `{name}` must be a table of settings for the tool `{name}` ({one_of(allowed)}), "
                    f"got {_describe(value)}{hint}",
                )
            tools[name] = self._tool_setting(value, allowed)
        return mode, tools

    def _tool_setting(self, setting: PMap, allowed: tuple[str, ...]) -> m.ToolSetting:
        _deny_unknown(setting, allowed)
        approve_key = allowed[0]
        answers: dict[str, str] = {}
        if "answers" in setting:
            table = expect_map(
                setting["answers"], setting.at_value("answers"), "`answers` (question -> option label)"
            )
            for question, label in table.items():
                answers[question] = _str(
                    label,
                    table.at_value(question),
                    f'the answer to "{question}" (an option label; join several with ", ")',
                )
        return m.ToolSetting(
            auto_approve=(
                _bool(setting[approve_key], setting.at_value(approve_key), f"`{approve_key}`")
                if approve_key in setting
                else None
            ),
            result=_str(setting["result"], setting.at_value("result"), "`result`")
            if "result" in setting
            else None,
            error=_str(setting["error"], setting.at_value("error"), "`error`")
            if "error" in setting
            else None,
            answers=m.frozen_map(answers),
            pos=setting.pos,
        )


def _with_failure(reply: m.Reply, failure: m.Fault) -> m.Reply:
    return m.Reply(reply.text, reply.tool_calls, reply.usage, reply.delay_ms, failure, reply.pos)


def load_claudeless(
    doc: Any, file: str, base_dir: Path, reporter: Reporter, env: Mapping[str, str]
) -> m.Scenario:
    """Validate and normalise one parsed Claudeless document (TOML or JSON, v1 or v2).

    ``base_dir`` is the scenario's folder (``$file`` paths are read from it and may not
    leave it); ``env`` supplies the ``CLAUDELESS_*`` timeouts. Raises ScenarioError;
    warnings (what Claudeless would silently ignore) go to ``reporter``.
    """
    if doc is None:
        doc = PMap(Pos(file, 1, 1))
    if not isinstance(doc, PMap):
        raise ScenarioError.at(
            getattr(doc, "pos", Pos(file, 1, 1)),
            f"a Claudeless scenario must be a table of keys, got {type_name(doc)}",
        )
    return _Loader(file, base_dir, reporter, env).load(doc)
