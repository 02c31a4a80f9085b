"""The Claudeless loader: each validation rule and its error text at file:line:col,
both dialects, TOML and JSON, timeouts from the environment, `$file` confinement,
TOML positions, and the rules table `workbench timeline` prints."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import SCENARIOS, write
from workbench.scenario import model as m
from workbench.scenario.claudeless import glob_error, regex_error
from workbench.scenario.diagnostics import Reporter, ScenarioError
from workbench.scenario.formats import looks_like_claudeless
from workbench.scenario.loader import load_scenario
from workbench.scenario.source import parse_toml
from workbench.timeline.rules_table import rules_table

UUID = "550e8400-e29b-41d4-a716-446655440000"


def load(tmp_path: Path, text: str, name: str = "s.toml", env: dict[str, str] | None = None) -> m.Scenario:
    return load_scenario(write(tmp_path, name, text), env=env or {})


def rules(tmp_path: Path, text: str, name: str = "s.toml", env: dict[str, str] | None = None) -> m.RuleSet:
    ruleset = load(tmp_path, text, name, env).rules
    assert ruleset is not None
    return ruleset


def error(tmp_path: Path, text: str, name: str = "s.toml", env: dict[str, str] | None = None) -> str:
    """`line:col: message` of the first diagnostic."""
    with pytest.raises(ScenarioError) as info:
        load(tmp_path, text, name, env)
    d = info.value.diagnostics[0]
    assert d.pos.file.endswith(name)
    return f"{d.pos.line}:{d.pos.col}: {d.message}"


def warnings(tmp_path: Path, text: str, name: str = "s.toml") -> list[str]:
    reporter = Reporter()
    load_scenario(write(tmp_path, name, text), env={}, reporter=reporter)
    assert not reporter.errors
    return [f"{d.pos.line}:{d.pos.col}: {d.message}" for d in reporter.warnings]


ANY_RULE = '[[responses]]\npattern = { type = "any" }\nresponse = "x"\n'


# --------------------------------------------------------------------------- unknown fields


def test_unknown_field_names_the_allowed_fields_and_a_likely_correction(tmp_path: Path) -> None:
    message = error(tmp_path, 'name = "x"\ndefualt_model = "opus"\n')
    assert message.startswith(
        "2:1: unknown field `defualt_model` (did you mean `default_model`?); expected one of "
    )
    for allowed in (
        "`name`",
        "`responses`",
        "`default_response`",
        "`tool_execution`",
        "`timeouts`",
        "`command`",
    ):
        assert allowed in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (ANY_RULE + "max_match = 1\n", "4:1: unknown field `max_match` (did you mean `max_matches`?)"),
        (
            ANY_RULE + '[[responses.turns]]\nexpect = { type = "any" }\nresponse = ""\nrespnse = "y"\n',
            "7:1: unknown field `respnse` (did you mean `response`?); expected one of `expect`, `response`, `failure`",
        ),
        (
            '[[responses]]\npattern = { type = "any" }\n[responses.response]\ntext = ""\n'
            '[[responses.response.tool_calls]]\ntool = "Read"\ninput = {}\nresults = "x"\n',
            "8:1: unknown field `results` (did you mean `result`?); expected one of `tool`, `input`, `result`",
        ),
        ('[tool_execution]\nmoode = "mock"\n', "2:1: unknown field `moode` (did you mean `mode`?)"),
        (
            "[tool_execution.tools.Bash]\nauto_aprove = true\n",
            "2:1: unknown field `auto_aprove` (did you mean `auto_approve`?)",
        ),
        ("[timeouts]\nexit_hint = 5\n", "2:1: unknown field `exit_hint` (did you mean `exit_hint_ms`?)"),
        ('username = "a"\n', "1:1: unknown field `username` (did you mean `user_name`?)"),
    ],
)
def test_unknown_fields_everywhere_claudeless_denies_them(tmp_path: Path, text: str, expected: str) -> None:
    assert error(tmp_path, text).startswith(expected)


# --------------------------------------------------------------------------- identity rules


@pytest.mark.parametrize(
    "good", [UUID, UUID.upper(), UUID.replace("-", ""), "{" + UUID + "}", "urn:uuid:" + UUID]
)
def test_session_id_accepts_the_uuid_forms_rust_accepts(tmp_path: Path, good: str) -> None:
    assert rules(tmp_path, f'session_id = "{good}"\n').identity["session_id"] == good


@pytest.mark.parametrize("bad", ["abc", "", UUID + "0", "550e8400-e29b41d4-a716-446655440000", "g" * 32])
def test_session_id_must_be_a_uuid(tmp_path: Path, bad: str) -> None:
    assert (
        error(tmp_path, f'session_id = "{bad}"\n')
        == f"1:14: Invalid session_id '{bad}': must be a valid UUID"
    )


@pytest.mark.parametrize(
    "good",
    [
        "2025-01-15T10:30:00Z",
        "2025-01-15T10:30:00-08:00",
        "2025-01-15T10:30:00.123456789+05:30",
        "2025-01-15t10:30:00z",
        "2025-01-15 10:30:00Z",
        "2024-02-29T23:59:60Z",
    ],
)
def test_launch_timestamp_accepts_rfc_3339(tmp_path: Path, good: str) -> None:
    assert rules(tmp_path, f'launch_timestamp = "{good}"\n').identity["launch_timestamp"] == good


@pytest.mark.parametrize(
    "bad",
    [
        "2025-01-15T10:30:00",  # no zone
        "2025-01-15T10:30Z",  # no seconds
        "2025-01-15",
        "2025-02-29T00:00:00Z",  # not a leap year
        "2025-13-01T00:00:00Z",
        "2025-01-15T24:00:00Z",
        "2025-01-15T10:30:00+0100",  # chrono wants the colon
        "2025-01-15T10:30:00+24:00",
        "yesterday",
    ],
)
def test_launch_timestamp_must_be_iso_8601_with_a_zone(tmp_path: Path, bad: str) -> None:
    assert error(tmp_path, f'launch_timestamp = "{bad}"\n') == (
        f"1:20: Invalid launch_timestamp '{bad}': must be ISO 8601 format (e.g., 2025-01-15T10:30:00Z)"
    )


def test_an_unquoted_toml_date_is_not_a_string(tmp_path: Path) -> None:
    assert error(tmp_path, "launch_timestamp = 2025-01-15T10:30:00Z\n") == (
        "1:20: `launch_timestamp` must be a string, got a TOML date-time (write it in quotes to make it a string)"
    )


def test_permission_mode_values(tmp_path: Path) -> None:
    assert rules(tmp_path, 'permission_mode = "PLAN"\n').permission_mode == "plan"  # compared in lower case
    allowed = '["default", "plan", "bypass-permissions", "accept-edits", "dont-ask", "delegate"]'
    assert error(tmp_path, 'permission_mode = "yolo"\n') == (
        f"1:19: Invalid permission_mode 'yolo': must be one of {allowed}"
    )
    assert error(tmp_path, 'permission_mode = "acceptEdits"\n') == (
        f"1:19: Invalid permission_mode 'acceptEdits': must be one of {allowed} (did you mean `accept-edits`?)"
    )


def test_identity_types_and_canonical_names(tmp_path: Path) -> None:
    text = (
        'default_model = "opus"\nclaude_version = "2.1.29"\nuser_name = "Ada"\ntrusted = false\n'
        'welcome_back_right_panel = ["a", "---"]\n'
    )
    ruleset = rules(tmp_path, text)
    assert dict(ruleset.identity) == {
        "model": "opus",
        "version": "2.1.29",
        "username": "Ada",
        "trusted": False,
        "welcome_back_right_panel": ("a", "---"),
    }
    assert ruleset.trusted is False and ruleset.logged_in is True and ruleset.permission_mode is None
    assert error(tmp_path, 'trusted = "yes"\n') == "1:11: `trusted` must be true or false, got a string"
    assert error(tmp_path, "welcome_back_right_panel = [1]\n").startswith(
        "1:29: a `welcome_back_right_panel` row must be a string"
    )
    assert error(tmp_path, "name = 3\n") == "1:8: `name` must be a string, got `3`"


# --------------------------------------------------------------------------- patterns


def rule_with(pattern: str) -> str:
    return f'[[responses]]\npattern = {{ {pattern} }}\nresponse = "x"\n'


def test_each_pattern_type_reads_its_own_field(tmp_path: Path) -> None:
    text = "".join(
        rule_with(p)
        for p in (
            'type = "exact", text = "hi"',
            'type = "contains", text = "bug"',
            'type = "regex", pattern = "^a+$"',
            'type = "glob", pattern = "*.md"',
            'type = "any"',
        )
    )
    got = [(r.pattern.type, r.pattern.text) for r in rules(tmp_path, text).rules]
    assert got == [("exact", "hi"), ("contains", "bug"), ("regex", "^a+$"), ("glob", "*.md"), ("any", "")]
    assert error(tmp_path, rule_with('type = "regex", text = "a"')) == (
        "2:11: missing field `pattern` in a `regex` pattern (a `regex` pattern reads `pattern`, not `text`)"
    )
    assert (
        error(tmp_path, rule_with('type = "contains"'))
        == "2:11: missing field `text` in a `contains` pattern"
    )
    assert error(tmp_path, rule_with('text = "a"')).startswith(
        "2:11: missing field `type` in `pattern`; expected"
    )
    assert error(tmp_path, rule_with('type = "contain", text = "a"')) == (
        "2:20: unknown variant `contain`, expected one of `exact`, `regex`, `glob`, `contains`, `any` "
        "(did you mean `contains`?)"
    )
    assert error(tmp_path, '[[responses]]\nresponse = "x"\n').startswith("1:1: missing field `pattern`")


def test_fields_a_pattern_ignores_are_warned_about(tmp_path: Path) -> None:
    assert warnings(tmp_path, rule_with('type = "any", text = "a"')) == [
        "2:27: field `text` is ignored in an `any` pattern (it takes no other field)"
    ]


def test_a_bad_regex_is_reported_at_its_pattern(tmp_path: Path) -> None:
    message = error(tmp_path, rule_with('type = "regex", pattern = "(unclosed"'))
    assert message.startswith("2:39: Invalid regex pattern: missing ), unterminated subpattern at position 0")
    assert error(tmp_path, rule_with('type = "regex", pattern = "a(?=b)"')) == (
        "2:39: Invalid regex pattern: look-around, including look-ahead and look-behind, is not supported in 'a(?=b)'"
    )


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("(a)\\1", "backreferences are not supported"),
        ("(?<=a)b", "look-around, including look-ahead and look-behind, is not supported"),
        ("(?>a)", "this group syntax is not supported"),
        ("(?Q)a", "unrecognized flag `Q`"),
        ("[a-", "unterminated character set at position 0"),
        ("a{2,1}", "min repeat greater than max repeat at position 2"),
    ],
)
def test_regexes_rust_rejects(pattern: str, problem: str) -> None:
    assert regex_error(pattern) == problem


@pytest.mark.parametrize(
    "pattern",
    ["(?i)fix.*bug", "(?<year>\\d{4})", "\\p{L}+", "[[:alpha:]]+", "end\\z", "a(?i)b", "\\(?=x", "(?x) a b"],
)
def test_regexes_rust_accepts(pattern: str) -> None:
    assert regex_error(pattern) is None


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("a[b", "Pattern syntax error near position 1: invalid range pattern"),
        ("[]", "Pattern syntax error near position 0: invalid range pattern"),
        ("***", "Pattern syntax error near position 2: wildcards are either regular `*` or recursive `**`"),
        (
            "a**",
            "Pattern syntax error near position 0: recursive wildcards must form a single path component",
        ),
        (
            "**a",
            "Pattern syntax error near position 2: recursive wildcards must form a single path component",
        ),
        ("*.md", None),
        ("**", None),
        ("a/**/b", None),
        ("[!x]y", None),
        ("[]]", None),
        ("a]", None),
    ],
)
def test_globs_as_rusts_glob_crate_reads_them(pattern: str, problem: str | None) -> None:
    assert glob_error(pattern) == problem


def test_a_bad_glob_is_reported_at_its_pattern(tmp_path: Path) -> None:
    assert error(tmp_path, rule_with('type = "glob", pattern = "a[b"')) == (
        "2:38: Invalid glob pattern: Pattern syntax error near position 1: invalid range pattern in 'a[b'"
    )


# --------------------------------------------------------------------------- responses, turns, tool calls


def test_simple_and_detailed_responses(tmp_path: Path) -> None:
    text = """\
[[responses]]
pattern = { type = "contains", text = "hi" }
response = "hello"

[[responses]]
pattern = { type = "contains", text = "read" }
[responses.response]
text = "Reading."
delay_ms = 50
usage = { input_tokens = 10, output_tokens = 2 }
[[responses.response.tool_calls]]
tool = "Read"
input = { file_path = "a.txt", lines = [1, 2] }
result = "contents"
"""
    simple, detailed = rules(tmp_path, text).rules
    assert simple.reply == m.Reply("hello", pos=simple.reply.pos if simple.reply else None)
    reply = detailed.reply
    assert reply is not None and (reply.text, reply.delay_ms, dict(reply.usage)) == (
        "Reading.",
        50,
        {"input_tokens": 10, "output_tokens": 2},
    )
    (call,) = reply.tool_calls
    assert (call.tool, dict(call.input), call.result) == (
        "Read",
        {"file_path": "a.txt", "lines": [1, 2]},
        "contents",
    )
    assert call.pos is not None and call.pos.line == 11


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[[responses]]\npattern = { type = "any" }\n[responses.response]\ndelay_ms = 5\n',
            '3:1: missing field `text` in `response`: a detailed response needs `text` (it may be "")',
        ),
        (
            '[[responses]]\npattern = { type = "any" }\nresponse = 5\n',
            "3:12: `response` must be a string or a table with `text` (and optionally `tool_calls`, `usage`, "
            "`delay_ms`), got `5`",
        ),
        (
            ANY_RULE + 'turns = [{ response = "" }]\n',
            '4:10: missing field `expect` in a turn; write expect = { type = "any" } to take any prompt',
        ),
        (
            ANY_RULE + 'turns = [{ expect = { type = "any" } }]\n',
            '4:10: missing field `response` in a turn (it may be "")',
        ),
        (
            '[[responses]]\npattern = { type = "any" }\n[responses.response]\ntext = ""\n'
            '[[responses.response.tool_calls]]\ntool = "Bash"\n',
            "5:1: missing field `input` in the tool call `Bash`; write input = {} for no parameters",
        ),
        (
            '[[responses]]\npattern = { type = "any" }\n[responses.response]\ntext = ""\n'
            '[[responses.response.tool_calls]]\ntool = "Bash"\ninput = {}\nresult = { ok = true }\n',
            "8:10: `result` must be a string, got a mapping",
        ),
        (
            '[[responses]]\npattern = { type = "any" }\n[responses.response]\ntext = ""\n'
            '[[responses.response.tool_calls]]\ntool = "Bash"\ninput = "ls"\n',
            "7:9: `input` must be a mapping, got a string",
        ),
        (
            ANY_RULE + "max_matches = -1\n",
            "4:15: `max_matches` must be a whole number from 0 to 4294967295, got `-1`",
        ),
        (
            ANY_RULE + "max_matches = 1.0\n",
            "4:15: `max_matches` must be a whole number from 0 to 4294967295, got `1.0`",
        ),
        (
            '[[responses]]\npattern = { type = "any" }\n[responses.response]\ntext = ""\nusage = { input_tokens = 1 }\n',
            "5:9: missing field `output_tokens` in `usage` (it needs `input_tokens`, `output_tokens`)",
        ),
    ],
)
def test_response_rule_errors(tmp_path: Path, text: str, expected: str) -> None:
    assert error(tmp_path, text) == expected


def test_what_claudeless_tolerates_loads_with_a_warning(tmp_path: Path) -> None:
    text = """\
[[responses]]
pattern = { type = "any" }

[[responses]]
pattern = { type = "any" }
[responses.response]
text = "x"
failure = { type = "out_of_credits" }
usage = { input_tokens = 1, output_tokens = 2, cache = 3 }
"""
    assert warnings(tmp_path, text) == [
        "1:1: this rule has neither `response` nor `failure`; Claudeless answers it with empty text",
        "8:1: field `failure` in `response` is ignored by Claudeless; a detailed response has `text`, "
        "`tool_calls`, `usage`, `delay_ms`; put `failure` on the rule or turn, beside `response`",
        "9:48: field `cache` in `usage` is ignored by Claudeless; usage has `input_tokens`, `output_tokens`",
    ]


def test_turns_inline_and_as_array_of_tables(tmp_path: Path) -> None:
    text = """\
[[responses]]
pattern = { type = "contains", text = "login" }
response = "user?"
turns = [
  { expect = { type = "any" }, response = "password?" },
  { expect = { type = "contains", text = "pw" }, response = "", failure = { type = "auth_error", message = "no" } },
]

[[responses]]
pattern = { type = "any" }
failure = { type = "network_unreachable" }
[[responses.turns]]
expect = { type = "exact", text = "again" }
response = "back"
"""
    first, second = rules(tmp_path, text).rules
    assert [(t.expect.type, t.reply.text) for t in first.turns] == [("any", "password?"), ("contains", "")]
    assert [t.pos.line for t in first.turns if t.pos] == [5, 6]
    failure = first.turns[1].reply.failure
    assert failure is not None and (failure.type, dict(failure.params)) == ("auth_error", {"message": "no"})
    assert second.reply is not None and second.reply.failure is not None and second.reply.text == ""
    assert second.turns[0].expect.text == "again" and second.turns[0].pos is not None
    assert second.turns[0].pos.line == 12


# --------------------------------------------------------------------------- failures


def test_every_failure_type_and_its_parameters(tmp_path: Path) -> None:
    failures = [
        'type = "network_unreachable"',
        'type = "connection_timeout", after_ms = 100',
        'type = "auth_error", message = "expired"',
        'type = "rate_limit", retry_after = 30',
        'type = "out_of_credits"',
        'type = "partial_response", partial_text = "I was"',
        'type = "malformed_json", raw = "{oops"',
    ]
    text = "".join(f'[[responses]]\npattern = {{ type = "any" }}\nfailure = {{ {f} }}\n' for f in failures)
    got = [
        (r.reply.failure.type, dict(r.reply.failure.params))
        for r in rules(tmp_path, text).rules
        if r.reply and r.reply.failure
    ]
    assert got == [
        ("network_unreachable", {}),
        ("connection_timeout", {"after_ms": 100}),
        ("auth_error", {"message": "expired"}),
        ("rate_limit", {"retry_after": 30}),
        ("out_of_credits", {}),
        ("partial_response", {"partial_text": "I was"}),
        ("malformed_json", {"raw": "{oops"}),
    ]


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        ('type = "connection_timeout"', "3:11: missing field `after_ms` in a `connection_timeout` failure"),
        ('type = "rate_limit", retry_after = -5', "3:48: `retry_after` must be a whole number from 0 to "),
        (
            'type = "rate-limit", retry_after = 5',
            "3:20: unknown variant `rate-limit`, expected one of `network_unreachable`, `connection_timeout`, "
            "`auth_error`, `rate_limit`, `out_of_credits`, `partial_response`, `malformed_json` (did you mean "
            "`rate_limit`? `rate-limit` is how the --failure flag spells it)",
        ),
        ("retry_after = 5", "3:11: missing field `type` in `failure`; expected one of `network_unreachable`"),
        ('type = "auth_error", message = 401', "3:44: `message` must be a string, got `401`"),
    ],
)
def test_failure_errors(tmp_path: Path, failure: str, expected: str) -> None:
    text = f'[[responses]]\npattern = {{ type = "any" }}\nfailure = {{ {failure} }}\n'
    assert error(tmp_path, text).startswith(expected)


def test_a_failure_field_that_does_not_belong_is_ignored_with_a_warning(tmp_path: Path) -> None:
    text = '[[responses]]\npattern = { type = "any" }\nfailure = { type = "rate_limit", retry_after = 5, after_ms = 9 }\n'
    assert warnings(tmp_path, text) == [
        "3:51: field `after_ms` is ignored by a `rate_limit` failure (it takes `retry_after`)"
    ]


# --------------------------------------------------------------------------- tool execution


def test_tool_execution_modes_and_per_tool_settings(tmp_path: Path) -> None:
    text = """\
[tool_execution]
mode = "mock"

[tool_execution.tools.Bash]
auto_approve = false
error = "denied"

[tool_execution.tools.Read]
auto_approve = true
result = "canned"

[tool_execution.tools.AskUserQuestion.answers]
"Which language?" = "Rust"
"""
    ruleset = rules(tmp_path, text)
    assert ruleset.tool_mode == "mock"
    assert ruleset.tools["Bash"] == m.ToolSetting(False, None, "denied", pos=ruleset.tools["Bash"].pos)
    assert ruleset.tools["Read"].auto_approve is True and ruleset.tools["Read"].result == "canned"
    assert dict(ruleset.tools["AskUserQuestion"].answers) == {"Which language?": "Rust"}
    assert ruleset.tools["AskUserQuestion"].auto_approve is None  # not written: Claudeless reads false
    assert rules(tmp_path, "[tool_execution]\n").tool_mode == "live"
    assert error(tmp_path, '[tool_execution]\nmode = "fake"\n') == (
        "2:8: unknown variant `fake`, expected `mock` or `live`"
    )
    assert error(tmp_path, "[tool_execution.tools.X.answers]\nq = 1\n").startswith(
        '2:5: the answer to "q" (an option label; join several with ", ") must be a string'
    )


# --------------------------------------------------------------------------- timeouts


def test_timeouts_scenario_then_environment_then_default(tmp_path: Path) -> None:
    text = "[timeouts]\nexit_hint_ms = 111\n"
    env = {
        "CLAUDELESS_EXIT_HINT_TIMEOUT_MS": "999",
        "CLAUDELESS_MCP_TIMEOUT_MS": "777",
        "CLAUDELESS_RESPONSE_DELAY_MS": "+5",
    }
    timeouts = rules(tmp_path, text, env=env).timeouts
    assert timeouts.exit_hint_ms == 111  # the scenario wins
    assert timeouts.mcp_timeout_ms == 777 and timeouts.response_delay_ms == 5  # then the environment
    assert timeouts.compact_delay_ms == 20 and timeouts.hook_timeout_ms == 5000  # then the default
    assert dict(timeouts.source) == {
        "exit_hint_ms": "scenario",
        "mcp_timeout_ms": "env",
        "response_delay_ms": "env",
    }
    assert rules(tmp_path, "", env={"CLAUDELESS_EXIT_HINT_TIMEOUT_MS": "42"}).timeouts.exit_hint_ms == 42
    # the short name is not Claudeless's variable
    assert rules(tmp_path, "", env={"CLAUDELESS_EXIT_HINT_MS": "42"}).timeouts.exit_hint_ms == 2000


def test_an_invalid_environment_timeout_is_an_error_when_it_would_be_used(tmp_path: Path) -> None:
    assert error(tmp_path, 'name = "x"\n', env={"CLAUDELESS_HOOK_TIMEOUT_MS": " 5"}) == (
        "1:1: the environment variable CLAUDELESS_HOOK_TIMEOUT_MS=' 5' is not a whole number of milliseconds; "
        "set it to one (Claudeless would ignore it and use 5000) or give `hook_timeout_ms` in the scenario's timeouts"
    )
    assert error(tmp_path, "[timeouts]\n", env={"CLAUDELESS_COMPACT_DELAY_MS": "soon"}).startswith(
        "1:1: the environment"
    )
    overridden = rules(
        tmp_path, "[timeouts]\nhook_timeout_ms = 1\n", env={"CLAUDELESS_HOOK_TIMEOUT_MS": "soon"}
    )
    assert overridden.timeouts.hook_timeout_ms == 1
    assert error(tmp_path, "[timeouts]\nmcp_timeout_ms = -1\n").startswith(
        "2:18: `timeouts.mcp_timeout_ms` must be a whole number from 0 to 18446744073709551615"
    )


# --------------------------------------------------------------------------- $file references

FILE_RULE = (
    '[[responses]]\npattern = {{ type = "any" }}\n[responses.response]\ntext = "x"\n'
    '[[responses.response.tool_calls]]\ntool = "Write"\n'
    'input = {{ content = {{ "$file" = "{}" }}, meta = {{ "$file" = "data/input.json" }} }}\n'
)


def test_file_references_are_read_relative_to_the_scenario(tmp_path: Path) -> None:
    write(tmp_path, "data/input.json", '{"a": [1, 2]}')
    write(tmp_path, "data/body.txt", "text body\n")
    scenario = load(tmp_path, FILE_RULE.format("data/body.txt"), "sub/../s.toml")
    call = scenario.rules.rules[0].reply.tool_calls[0]  # type: ignore[union-attr]
    assert dict(call.input) == {"content": "text body\n", "meta": {"a": [1, 2]}}


def test_file_references_stay_inside_the_scenario_folder(tmp_path: Path) -> None:
    write(tmp_path, "data/input.json", "{}")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("secret")
    os.symlink(outside, tmp_path / "data" / "link.txt")
    assert error(tmp_path, FILE_RULE.format("../outside.txt")) == (
        "7:33: Failed to resolve file reference '../outside.txt': `$file` `../outside.txt` escapes the scenario "
        "folder (`..`)"
    )
    assert error(tmp_path, FILE_RULE.format("/etc/passwd")) == (
        "7:33: Failed to resolve file reference '/etc/passwd': `$file` `/etc/passwd` is absolute; paths must be "
        "relative to the scenario folder"
    )
    assert error(tmp_path, FILE_RULE.format("data/link.txt")) == (
        "7:33: Failed to resolve file reference 'data/link.txt': `$file` `data/link.txt` leads outside the "
        "scenario folder (through a symlink)"
    )
    assert error(tmp_path, FILE_RULE.format("data/missing.txt")).startswith(
        "7:33: Failed to resolve file reference 'data/missing.txt': `$file` `data/missing.txt` not found"
    )
    assert error(tmp_path, FILE_RULE.format("data")) == (
        "7:33: Failed to resolve file reference 'data': it is a directory"
    )


def test_file_reference_content_errors(tmp_path: Path) -> None:
    write(tmp_path, "data/input.json", "{broken")
    write(tmp_path, "data/body.txt", "x")
    assert error(tmp_path, FILE_RULE.format("data/body.txt")) == (
        "7:71: Failed to parse JSON: Expecting property name enclosed in double quotes at line 1 column 2 "
        "of 'data/input.json'"
    )
    (tmp_path / "data" / "input.json").write_bytes(b'"caf\xe9"')
    assert error(tmp_path, FILE_RULE.format("data/body.txt")) == (
        "7:71: Failed to resolve file reference 'data/input.json': stream did not contain valid UTF-8"
    )


def test_file_reference_oddities_claudeless_tolerates(tmp_path: Path) -> None:
    write(tmp_path, "body.txt", "B")
    text = (
        '[default_response]\ntext = ""\n[[default_response.tool_calls]]\ntool = "T"\n'
        '[default_response.tool_calls.input]\na = { "$file" = "body.txt", extra = 1 }\nb = { "$file" = 5 }\n'
    )
    assert warnings(tmp_path, text) == [
        "6:5: keys beside `$file` are dropped: the file's contents replace the whole table",
        "7:17: `$file` must be a string path to be read, got `5`; the table is passed on unchanged",
    ]
    default = rules(tmp_path, text).default_reply
    assert default is not None and dict(default.tool_calls[0].input) == {"a": "B", "b": {"$file": 5}}


# --------------------------------------------------------------------------- TOML positions


def test_toml_positions_reach_inline_tables_arrays_and_nested_tables() -> None:
    text = """\
# comment [not a table]
name = "x"  # trailing
[[responses]]
pattern = { type = "regex", pattern = "a]" }
turns = [
  { expect = { type = "any" }, response = "one" },
  { expect = { type = "any" }, response = \"\"\"two
lines\"\"\" },
]
[responses.response]
text = 'lit'
[[responses.response.tool_calls]]
tool = "Read"
[responses.response.tool_calls.input]
"quoted key" = 1
a.b = 2
"""
    doc = parse_toml(text, "f.toml")
    assert (doc.at_key("name").line, doc.at_value("name").col) == (2, 8)
    rule = doc["responses"][0]
    assert (doc["responses"].at(0).line, doc["responses"].at(0).col) == (3, 1)
    pattern = rule["pattern"]
    assert (pattern.pos.line, pattern.pos.col) == (4, 11)
    assert (pattern.at_key("pattern").col, pattern.at_value("pattern").col) == (29, 39)
    turns = rule["turns"]
    assert [(p.line, p.col) for p in turns.item_pos] == [(6, 3), (7, 3)]
    assert (turns[1].at_key("response").line, turns[1].at_key("response").col) == (7, 32)
    assert turns[1]["expect"].at_value("type").col == 23
    assert rule["response"].pos.line == 10 and rule["response"].at_value("text").col == 8
    call = rule["response"]["tool_calls"][0]
    assert call.pos.line == 12 and call["input"].pos.line == 14
    assert call["input"].at_key("quoted key").line == 15
    assert (call["input"]["a"].pos.line, call["input"]["a"].at_key("b").col) == (16, 3)


def test_toml_syntax_errors_have_positions(tmp_path: Path) -> None:
    assert error(tmp_path, 'name = "x"\nresponses = [\n').startswith("3:1: Failed to parse TOML")
    assert error(tmp_path, 'name = "x"\nname = "y"\n').startswith("2:")
    assert error(tmp_path, 'name = "x\n').startswith("1:")


# --------------------------------------------------------------------------- v2


V2 = """\
trusted = false
permission_mode = "plan"

[claude]
version = "2.1.29"
model = "claude-haiku-4-5"
username = "Ada"
session_id = "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b"

[claude.timeouts]
response_delay_ms = 0

[[responses]]
on = { contains = "deploy" }
say = "Deploying."
max = 2
delay_ms = 5
usage = { input_tokens = 3, output_tokens = 4 }
[[responses.tools]]
call = "Bash"
input = { command = "make deploy" }
[[responses.then]]
on = { regexp = "^ok" }
say = "Done."

[[responses]]
on = "*"
say = "Anything else."

[[responses]]
on = "*.txt"
failure = { type = "out_of_credits" }

[[responses]]
on = "literal"
say = "Exactly."

[default]
say = "Nothing."

[tools]
mode = "mock"
[tools.Bash]
approve = false
"""


def test_v2_dialect(tmp_path: Path) -> None:
    ruleset = rules(tmp_path, V2)
    assert ruleset.format_version == 2
    assert dict(ruleset.identity) == {
        "version": "2.1.29",
        "model": "claude-haiku-4-5",
        "username": "Ada",
        "session_id": "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b",
        "trusted": False,
        "permission_mode": "plan",
    }
    assert (
        ruleset.timeouts.response_delay_ms == 0 and ruleset.timeouts.source["response_delay_ms"] == "scenario"
    )
    deploy, anything, txt, literal = ruleset.rules
    assert (deploy.pattern.type, deploy.pattern.text, deploy.max_matches) == ("contains", "deploy", 2)
    assert deploy.reply is not None and deploy.reply.tool_calls[0].tool == "Bash"
    assert (deploy.reply.delay_ms, dict(deploy.reply.usage)) == (5, {"input_tokens": 3, "output_tokens": 4})
    assert deploy.pos is not None and deploy.pos.line == 13
    assert [(t.expect.type, t.expect.text, t.reply.text) for t in deploy.turns] == [("regex", "^ok", "Done.")]
    assert anything.pattern.type == "any"
    assert (txt.pattern.type, txt.pattern.text) == ("glob", "*.txt") and txt.reply and txt.reply.failure
    assert (literal.pattern.type, literal.pattern.text) == ("exact", "literal")
    assert ruleset.tool_mode == "mock" and ruleset.tools["Bash"].auto_approve is False
    assert ruleset.default_reply is not None and ruleset.default_reply.text == "Nothing."


def test_v2_accepts_environment_keys_inside_claude_too(tmp_path: Path) -> None:
    ruleset = rules(tmp_path, '[claude]\ntrusted = false\nlogged_in = false\n[[responses]]\non = "*"\n')
    assert (ruleset.trusted, ruleset.logged_in) == (False, False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[claude]\nversoin = '1'\n", "2:1: unknown field `versoin` (did you mean `version`?)"),
        (
            'name = "x"\n[claude]\n',
            "1:1: unknown field `name`; expected one of `claude`, `default`, `responses`, `tools`, `trusted`, "
            "`logged_in`, `permission_mode`, `command`; a v2 scenario has no `name` (the file name names it)",
        ),
        ("[claude]\n[timeouts]\n", "2:1: unknown field `timeouts`"),
        (
            '[[responses]]\nsay = "x"\n',
            '1:1: missing field `on` in a response rule; on = "*" takes any prompt',
        ),
        (
            '[[responses]]\non = { exact = "x" }\n',
            "2:8: unknown field `exact`, expected `contains` or `regexp`",
        ),
        (
            '[[responses]]\non = { contains = "a", regexp = "b" }\n',
            "2:6: pattern must have either 'contains' or 'regexp', not both",
        ),
        ("[[responses]]\non = {}\n", "2:6: pattern table must have 'contains' or 'regexp' key"),
        (
            "[[responses]]\non = 5\n",
            "2:6: `on` must be a string (glob pattern) or table with 'contains' or 'regexp' key, got `5`",
        ),
        ('[[responses]]\non = "a**"\n', "2:6: Invalid glob pattern: Pattern syntax error near position 0"),
        (
            '[[responses]]\non = { regexp = "(" }\n',
            "2:17: Invalid regex pattern: missing ), unterminated subpattern",
        ),
        ('[[responses]]\non = "*"\nthen = [{ say = "x" }]\n', "3:9: missing field `on` in a `then` turn"),
        ('[[responses]]\non = "*"\nresponse = "x"\n', "3:1: this file mixes the two Claudeless dialects"),
        ('[default]\nsay = "x"\nfailure = { type = "out_of_credits" }\n', "3:1: unknown field `failure`"),
        (
            '[tools]\nmoode = "mock"\n',
            "2:9: `tools` `moode` must be a table of settings for the tool `moode` (`approve`, `result`, `error`, "
            "`answers`), got a string (did you mean `mode`?)",
        ),
        (
            "[tools.Bash]\nauto_approve = true\n",
            "2:1: unknown field `auto_approve` (this dialect calls it `approve`)",
        ),
    ],
)
def test_v2_errors(tmp_path: Path, text: str, expected: str) -> None:
    assert error(tmp_path, text).startswith(expected)


def test_mixing_dialects_names_a_key_of_each(tmp_path: Path) -> None:
    text = 'default_response = "x"\n[[responses]]\non = "*"\nsay = "y"\n'
    assert error(tmp_path, text) == (
        "3:1: this file mixes the two Claudeless dialects: `default_response` (line 1) is v1 and `on` (line 3) is "
        "v2; v1 writes rules with `pattern`, `response`, `max_matches`, `turns` and has `default_response`, "
        "`tool_execution` and identity keys at the top; v2 writes them with `on`, `say`, `tools`, `max`, `then` and "
        "has `[default]`, `[tools]` and `[claude]`"
    )


# --------------------------------------------------------------------------- JSON, command, detection


def test_json_scenarios_in_both_dialects_with_positions(tmp_path: Path) -> None:
    v1 = '{"responses": [{"pattern": {"type": "exact", "text": "hi"}, "response": "hello"}],\n "command": ["claudeless"]}'
    scenario = load(tmp_path, v1, "s.json")
    assert scenario.format == "claudeless" and scenario.command == ("claudeless",) and scenario.name == "s"
    v2 = '{"claude": {"username": "Ada"},\n "responses": [{"on": "*", "say": "hi"}]}'
    assert rules(tmp_path, v2, "v.json").format_version == 2
    bad = '{"responses": [],\n "defualt_response": "x"}'
    assert error(tmp_path, bad, "s.json").startswith("2:2: unknown field `defualt_response`")
    bad_id = '{\n  "session_id": "nope"}'
    assert error(tmp_path, bad_id, "s.json") == "2:17: Invalid session_id 'nope': must be a valid UUID"


def test_command_is_our_extension(tmp_path: Path) -> None:
    assert load(tmp_path, 'command = ["claudeless", "--scenario", "s.toml"]\n').command == (
        "claudeless",
        "--scenario",
        "s.toml",
    )
    assert error(tmp_path, 'command = "claudeless -p"\n').startswith("1:11: `command` must be a list")
    assert error(tmp_path, "command = []\n") == "1:11: `command` must not be empty"
    assert error(tmp_path, "command = [1]\n") == "1:12: `command` item must be a string, got `1`"


def test_an_empty_toml_file_is_an_empty_scenario(tmp_path: Path) -> None:
    scenario = load(tmp_path, "# nothing yet\n", "empty.toml")
    assert scenario.name == "empty" and scenario.rules == m.RuleSet(
        rules=(), timeouts=scenario.rules.timeouts
    )  # type: ignore[union-attr]
    assert scenario.timeline == ()


def test_which_json_and_yaml_documents_are_claudeless() -> None:
    assert looks_like_claudeless({"responses": []})
    assert looks_like_claudeless({"name": "x", "default_response": "y"})
    assert looks_like_claudeless({"claude": {}})
    assert not looks_like_claudeless({"name": "x", "timeline": [], "responses": []})
    assert not looks_like_claudeless({"name": "x"})
    assert not looks_like_claudeless(["responses"])


# --------------------------------------------------------------------------- the examples and the table


def test_examples_cover_every_feature() -> None:
    files = sorted(p for p in (SCENARIOS / "claudeless").glob("*.*"))
    assert {p.suffix for p in files} == {".toml", ".json"}
    scenarios = [load_scenario(p, env={}) for p in files]
    sets = [s.rules for s in scenarios if s.rules is not None]
    assert len(sets) == len(files) and {r.format_version for r in sets} == {1, 2}
    every = [rule for r in sets for rule in r.rules]
    turns = [turn for rule in every for turn in rule.turns]
    replies = [rule.reply for rule in every if rule.reply] + [t.reply for t in turns]
    replies += [r.default_reply for r in sets if r.default_reply]
    assert {rule.pattern.type for rule in every} == {"exact", "regex", "glob", "contains", "any"}
    assert {t.expect.type for t in turns} >= {"any", "contains", "glob", "regex"}
    assert {r.failure.type for r in replies if r.failure} == {
        "network_unreachable",
        "connection_timeout",
        "auth_error",
        "rate_limit",
        "out_of_credits",
        "partial_response",
        "malformed_json",
    }
    assert any(r.failure for r in (t.reply for t in turns))
    assert any(rule.max_matches for rule in every) and all(r.default_reply for r in sets)
    assert any(r.usage for r in replies) and any(r.delay_ms for r in replies)
    calls = [call for r in replies for call in r.tool_calls]
    assert any(call.result for call in calls)
    fixed = (SCENARIOS / "claudeless/_data/app-fixed.py").read_text()
    assert any(call.input.get("content") == fixed for call in calls)  # a `$file` text input
    assert any(isinstance(call.input.get("todos"), list) for call in calls)  # a `$file` JSON input
    settings = [s for r in sets for s in r.tools.values()]
    assert any(s.auto_approve for s in settings) and any(s.auto_approve is False for s in settings)
    assert (
        any(s.error for s in settings)
        and any(s.result for s in settings)
        and any(s.answers for s in settings)
    )
    assert {r.tool_mode for r in sets} == {"mock", "live"}
    identity_keys = set().union(*(r.identity for r in sets))
    assert identity_keys >= {
        "model", "version", "username", "session_id", "placeholder", "provider", "show_welcome_back",
        "welcome_back_right_panel", "project_path", "working_directory", "trusted", "logged_in",
        "permission_mode", "launch_timestamp",
    }  # fmt: skip
    assert any(r.timeouts.source for r in sets) and any(s.command for s in scenarios)


def test_rules_table_lists_rules_in_matching_order() -> None:
    scenario = load_scenario(SCENARIOS / "claudeless/v2-failures.toml", env={})
    table = rules_table(scenario).splitlines()
    assert table[0].split() == ["#", "when", "the", "prompt", "matches", "reply", "max", "line"]
    assert table[2].split()[:3] == ["1", "contains", "'offline'"] and table[2].endswith("27")
    assert any(row.lstrip().startswith("8.1    then any") for row in table)
    assert table[-1].startswith(
        "v2-failures: Claudeless v2, 9 rules (2 turns), a default reply; tools mock: Bash"
    )
