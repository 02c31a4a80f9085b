"""The Claudeless loader: its validation rules and error texts, at file:line:col."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import SCENARIOS, write
from workbench.scenario import model as m
from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import load_scenario


def load(tmp_path: Path, text: str, name: str = "s.toml", env: dict[str, str] | None = None) -> m.Scenario:
    return load_scenario(write(tmp_path, name, text), env=env or {})


def error(tmp_path: Path, text: str, name: str = "s.toml", env: dict[str, str] | None = None) -> str:
    with pytest.raises(ScenarioError) as info:
        load(tmp_path, text, name, env)
    d = info.value.diagnostics[0]
    return f"{d.pos.line}:{d.pos.col}: {d.message}"


def test_unknown_field_is_rejected_with_its_position_and_a_suggestion(tmp_path: Path) -> None:
    text = 'name = "x"\ndefualt_model = "opus"\n'
    assert error(tmp_path, text).startswith(
        "2:1: unknown field `defualt_model` (did you mean `default_model`?)"
    )
    nested = '[[responses]]\npattern = { type = "any" }\nresponse = "hi"\nmax_match = 1\n'
    assert error(tmp_path, nested).startswith("4:1: unknown field `max_match` (did you mean `max_matches`?)")


def test_identity_validation_texts(tmp_path: Path) -> None:
    assert error(tmp_path, 'session_id = "abc"\n') == "1:14: Invalid session_id 'abc': must be a valid UUID"
    assert error(tmp_path, 'launch_timestamp = "2025-01-15 10:30"\n').startswith(
        "1:20: Invalid launch_timestamp '2025-01-15 10:30': must be ISO 8601 format"
    )
    assert error(tmp_path, 'launch_timestamp = "2025-01-15T10:30:00"\n').startswith(
        "1:20: Invalid launch_timestamp"
    )
    assert error(tmp_path, 'permission_mode = "yolo"\n').startswith(
        "1:19: Invalid permission_mode 'yolo': must be one of [default, plan, bypass-permissions"
    )
    ok = load(tmp_path, 'launch_timestamp = "2025-01-15T10:30:00+01:00"\npermission_mode = "plan"\n')
    assert ok.rules is not None and ok.rules.identity["permission_mode"] == "plan"


def test_bad_patterns_and_failures(tmp_path: Path) -> None:
    rule = '[[responses]]\npattern = {{ {} }}\nresponse = "x"\n'
    assert error(tmp_path, rule.format('type = "regex", pattern = "(unclosed"')).startswith(
        "2:11: Invalid regex pattern:"
    )
    assert error(tmp_path, rule.format('type = "fuzzy", text = "a"')).startswith(
        "2:11: unknown variant `fuzzy`"
    )
    assert "Invalid glob pattern" in error(tmp_path, rule.format('type = "glob", pattern = "a[b"'))
    no_reply = '[[responses]]\npattern = { type = "any" }\n'
    assert error(tmp_path, no_reply).startswith("1:1: missing field `response`")
    failure = '[[responses]]\npattern = { type = "any" }\nfailure = { type = "rate_limit", after_ms = 5 }\n'
    assert error(tmp_path, failure).startswith("3:11: unknown field `after_ms`")
    turn = '[[responses]]\npattern = { type = "any" }\nresponse = "a"\n[[responses.turns]]\nexpect = { type = "any" }\n'
    assert error(tmp_path, turn).startswith("4:1: missing field `response` in a turn")


def test_toml_syntax_errors_have_positions(tmp_path: Path) -> None:
    assert error(tmp_path, 'name = "x"\nresponses = [\n').startswith("3:1: Failed to parse TOML")
    assert error(tmp_path, 'name = "x"\nname = "y"\n').startswith("2:")


def test_timeouts_scenario_then_environment_then_default(tmp_path: Path) -> None:
    text = "[timeouts]\nexit_hint_ms = 111\n"
    env = {"CLAUDELESS_EXIT_HINT_MS": "999", "CLAUDELESS_MCP_TIMEOUT_MS": "777"}
    timeouts = load(tmp_path, text, env=env).rules.timeouts  # type: ignore[union-attr]
    assert timeouts.exit_hint_ms == 111  # the scenario wins
    assert timeouts.mcp_timeout_ms == 777  # then the environment
    assert timeouts.compact_delay_ms == 20  # then the default
    assert "CLAUDELESS_HOOK_TIMEOUT_MS='soon'" in error(
        tmp_path, 'name = "x"\n', env={"CLAUDELESS_HOOK_TIMEOUT_MS": "soon"}
    )


def test_file_references_are_read_and_confined(tmp_path: Path) -> None:
    write(tmp_path, "data/input.json", '{"a": [1, 2]}')
    write(tmp_path, "data/body.txt", "text body\n")
    text = (
        '[[responses]]\npattern = {{ type = "any" }}\n[responses.response]\ntext = "x"\n'
        '[[responses.response.tool_calls]]\ntool = "Write"\n'
        'input = {{ content = {{ "$file" = "{}" }}, meta = {{ "$file" = "data/input.json" }} }}\n'
    )
    scenario = load(tmp_path, text.format("data/body.txt"))
    call = scenario.rules.rules[0].reply.tool_calls[0]  # type: ignore[union-attr]
    assert call.input == {"content": "text body\n", "meta": {"a": [1, 2]}}
    assert "Failed to resolve file reference '../outside.txt'" in error(
        tmp_path, text.format("../outside.txt")
    )
    assert "Failed to resolve file reference 'data/missing.txt'" in error(
        tmp_path, text.format("data/missing.txt")
    )
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("secret")
    os.symlink(outside, tmp_path / "data" / "link.txt")
    assert "outside the scenario folder" in error(tmp_path, text.format("data/link.txt"))


def test_v2_dialect(tmp_path: Path) -> None:
    text = """\
[claude]
version = "2.1.29"
session_id = "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b"

[[responses]]
on = { contains = "deploy" }
say = "Deploying."
max = 2
[[responses.tools]]
call = "Bash"
input = { command = "make deploy" }

[[responses]]
on = "*"
say = "Anything else."

[default]
say = "Nothing."

[tools]
mode = "mock"
[tools.Bash]
approve = false
"""
    rules = load(tmp_path, text).rules
    assert rules is not None and rules.format_version == 2
    assert rules.identity["claude_version"] == "2.1.29"
    first, second = rules.rules
    assert (first.pattern.type, first.pattern.text, first.max_matches) == ("contains", "deploy", 2)
    assert first.reply is not None and first.reply.tool_calls[0].tool == "Bash"
    assert first.pos is not None and first.pos.line == 5
    assert second.pattern.type == "any"
    assert rules.tool_mode == "mock" and rules.tools["Bash"].auto_approve is False
    assert rules.default_reply is not None and rules.default_reply.text == "Nothing."
    assert error(tmp_path, "[claude]\nversoin = '1'\n").startswith(
        "2:1: unknown field `versoin` (did you mean `version`?)"
    )


def test_json_scenarios_and_our_command_extension(tmp_path: Path) -> None:
    text = '{"responses": [{"pattern": {"type": "exact", "text": "hi"}, "response": "hello"}],\n "command": ["claudeless"]}'
    scenario = load(tmp_path, text, "s.json")
    assert scenario.format == "claudeless" and scenario.command == ("claudeless",)
    bad = '{"responses": [],\n "defualt_response": "x"}'
    assert error(tmp_path, bad, "s.json").startswith("2:2: unknown field `defualt_response`")


def test_examples_cover_every_feature() -> None:
    rules = [load_scenario(p, env={}).rules for p in sorted((SCENARIOS / "claudeless").glob("*.*"))]
    assert all(r is not None for r in rules)
    every = [rule for r in rules if r for rule in r.rules]
    assert {rule.pattern.type for rule in every} == {"exact", "regex", "glob", "contains", "any"}
    failures = {rule.reply.failure.type for rule in every if rule.reply and rule.reply.failure}
    assert len(failures) == 7
    assert any(rule.turns for rule in every) and any(rule.max_matches for rule in every)
    assert {r.format_version for r in rules if r} == {1, 2}
