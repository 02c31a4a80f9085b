"""Every file of ``../shared/corpus/claudeless/`` gets the verdict written here.

Which files are scenarios. The corpus MANIFEST lists 77 scenario files, all TOML:
7 examples (``scenarios/``), 58 scenarios paired with golden captures
(``tests/specs/scenarios/``), 6 MCP fixtures (``tests/fixtures/mcp-test-*.toml``),
4 CLI/state fixtures (``crates/cli/tests/fixtures/**/scenario.toml``) and 2
historical files (``_history/7cb4909/scenarios/``). Each has a row in ``VERDICTS``:
accepted, with what the model must hold (rules, turns, tool calls, a default
reply), or rejected at an exact line:col with a message. The 75 current files are
v1 and load; the 2 historical ones use the ``[capture]`` section removed before
v0.2.0 and are rejected as Claudeless v0.2.2 rejects them (``unknown field
`capture` ``, at its header).

Claudeless also reads JSON scenarios, but none of the corpus's 97 ``*.json``
files is one: they are capture manifests, Claude's ``sessions-index.json`` files,
``settings.json`` hook files, the todo list a ``$file`` reads, and a real-Claude
output golden. ``workbench validate`` on the folder would still try them, so
each must be rejected with a diagnostic (``NOT_SCENARIOS`` says which), never
accepted and never crash. The other files (``.txt`` screens, ``.jsonl``
transcripts, ``MANIFEST.md``, ``LICENSE``) have no scenario suffix and are never
read as scenarios.

The MANIFEST's per-file feature columns (pattern types, turns, failures, tools,
tool execution mode, default response) are an independent record of what each
file contains; the last test checks the loaded model against them.
"""

from __future__ import annotations

import fnmatch
import re
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.conftest import CORPUS, require_corpus
from workbench.scenario import model as m
from workbench.scenario.loader import try_load


class Accepted(NamedTuple):
    """An accepted file: how many rules, turns and tool calls it has, and whether it has a default reply."""

    rules: int
    turns: int
    tool_calls: int
    default_reply: bool


# path -> Accepted(...) or (line, col, message substring) of the rejection
VERDICTS: dict[str, Accepted | tuple[int, int, str]] = {
    "_history/7cb4909/scenarios/capture-basic.toml": (6, 1, "unknown field `capture`"),
    "_history/7cb4909/scenarios/capture-full.toml": (7, 1, "unknown field `capture`"),
    "crates/cli/tests/fixtures/cli/v2.1.12/json-output/scenario.toml": Accepted(1, 0, 0, False),
    "crates/cli/tests/fixtures/cli/v2.1.12/stream-json/scenario.toml": Accepted(1, 0, 0, False),
    "crates/cli/tests/fixtures/dotclaude/v2.1.12/plan-mode/scenario.toml": Accepted(0, 0, 1, True),
    "crates/cli/tests/fixtures/dotclaude/v2.1.12/todo-write/scenario.toml": Accepted(0, 0, 1, True),
    "scenarios/ask-user-question-single.toml": Accepted(2, 0, 1, False),
    "scenarios/ask-user-question.toml": Accepted(2, 0, 1, False),
    "scenarios/deterministic.toml": Accepted(0, 0, 0, True),
    "scenarios/failures.toml": Accepted(8, 0, 0, False),
    "scenarios/full-featured.toml": Accepted(2, 0, 1, True),
    "scenarios/multi_turn.toml": Accepted(3, 4, 0, False),
    "scenarios/simple.toml": Accepted(3, 0, 0, True),
    "tests/fixtures/mcp-test-init.toml": Accepted(2, 0, 0, False),
    "tests/fixtures/mcp-test-list.toml": Accepted(1, 0, 1, False),
    "tests/fixtures/mcp-test-read-live.toml": Accepted(1, 0, 1, False),
    "tests/fixtures/mcp-test-read-raw.toml": Accepted(1, 0, 1, False),
    "tests/fixtures/mcp-test-read.toml": Accepted(1, 0, 1, False),
    "tests/fixtures/mcp-test-write.toml": Accepted(1, 0, 1, False),
    "tests/specs/scenarios/after-response.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/bash-permission-dialog.toml": Accepted(1, 0, 1, True),
    "tests/specs/scenarios/clear-command.toml": Accepted(2, 0, 0, True),
    "tests/specs/scenarios/compact-command.toml": Accepted(2, 0, 0, True),
    "tests/specs/scenarios/context-autocomplete.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/context-usage.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/ctrl-c-exit-hint.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/ctrl-d-exit-hint.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/ctrl-s-stash-active.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/ctrl-z-suspend.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/edit-permission-dialog.toml": Accepted(2, 1, 3, True),
    "tests/specs/scenarios/escape-clear-hint.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/exit-autocomplete.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/export-autocomplete.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/export-filename-dialog.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/export-method-dialog.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/fork-no-conversation.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/help-autocomplete.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/help-commands-tab.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/help-dialog.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/hook-session-start.toml": Accepted(1, 0, 1, True),
    "tests/specs/scenarios/hook-settings-merge.toml": Accepted(1, 0, 1, True),
    "tests/specs/scenarios/hook-stop.toml": Accepted(2, 0, 1, True),
    "tests/specs/scenarios/hooks-autocomplete.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/hooks-dialog.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/hooks-matcher-dialog.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/initial-state.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/model-haiku.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/model-opus.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/model-picker.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/model-sonnet.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/permission-accept-edits.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/permission-bypass-mode.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/permission-default.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/permission-plan.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/plan-autocomplete.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/plan-command-already-active.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/plan-command-enable.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/setup-01-select-theme-dark.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/setup-01-select-theme-light.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/setup-01a-syntax-highlighting-disabled.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/setup-02-login-method.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/shell-mode.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/shortcuts-display.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/slash-menu.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/slash-search-tab-complete.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/status-bar-extended.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/tasks-empty-dialog.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/thinking-dialog-mid-conversation.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/thinking-dialog-selected.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/thinking-dialog.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/thinking-off-status.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/todos-empty.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/trust-folder-dialog.toml": Accepted(1, 0, 2, True),
    "tests/specs/scenarios/trust-prompt.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/welcome-back.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/with-input.toml": Accepted(0, 0, 0, True),
    "tests/specs/scenarios/write-permission-dialog.toml": Accepted(1, 0, 1, True),
}

# glob over the path -> (line, col, message substring); every JSON file of the corpus matches one
NOT_SCENARIOS: dict[str, tuple[int, int, str]] = {
    "tests/fixtures/v2.1.29/*.manifest.json": (1, 1, "a scenario needs `timeline`"),
    "tests/fixtures/v2.1.29/*/sessions-index.json": (1, 1, "a scenario needs `timeline`"),
    "crates/cli/tests/fixtures/dotclaude/v2.1.12/sessions-index.json": (1, 1, "a scenario needs `timeline`"),
    "tests/capture/capsh/*.settings*.json": (1, 1, "a scenario needs `timeline`"),
    "crates/cli/tests/fixtures/dotclaude/v2.1.12/todo-write/todo.json": (1, 1, "got a list"),
    # a real `claude -p --output-format json` result: it has `session_id`, so it is read as Claudeless
    "crates/cli/tests/fixtures/cli/v2.1.12/json-output/output.json": (
        2,
        3,
        "unknown field `duration_api_ms`",
    ),
}


def _root() -> Path:
    return require_corpus() / "claudeless"


def _present(pattern: str) -> list[str]:
    root = CORPUS / "claudeless"
    return sorted(str(p.relative_to(root)) for p in root.rglob(pattern)) if root.is_dir() else []


def _replies(rules: m.RuleSet) -> list[m.Reply]:
    replies = [r.reply for r in rules.rules if r.reply] + [t.reply for r in rules.rules for t in r.turns]
    return replies + ([rules.default_reply] if rules.default_reply else [])


@pytest.mark.corpus
def test_the_table_has_a_row_for_every_toml_file_of_the_corpus() -> None:
    _root()
    assert set(_present("*.toml")) == set(VERDICTS)
    assert len(VERDICTS) == 77


@pytest.mark.corpus
@pytest.mark.parametrize("rel", sorted(VERDICTS))
def test_corpus_verdict(rel: str) -> None:
    result = try_load(_root() / rel, env={})
    verdict = VERDICTS[rel]
    if isinstance(verdict, Accepted):
        assert result.scenario is not None, [str(d) for d in result.diagnostics]
        assert result.diagnostics == []  # not even a warning: the corpus is clean
        rules = result.scenario.rules
        assert result.scenario.format == "claudeless" and rules is not None and rules.format_version == 1
        got = Accepted(
            len(rules.rules),
            sum(len(r.turns) for r in rules.rules),
            sum(len(reply.tool_calls) for reply in _replies(rules)),
            rules.default_reply is not None,
        )
        assert got == verdict
        return
    line, col, text = verdict
    assert result.scenario is None
    (diagnostic,) = result.diagnostics
    assert (diagnostic.pos.line, diagnostic.pos.col) == (line, col)
    assert text in diagnostic.message


@pytest.mark.corpus
@pytest.mark.parametrize("rel", _present("*.json") or ["(corpus absent)"])
def test_corpus_json_files_are_not_scenarios_and_are_rejected(rel: str) -> None:
    root = _root()
    groups = [pattern for pattern in NOT_SCENARIOS if fnmatch.fnmatch(rel, pattern)]
    assert len(groups) == 1, f"{rel} belongs to no group (or to several) of NOT_SCENARIOS"
    line, col, text = NOT_SCENARIOS[groups[0]]
    result = try_load(root / rel, env={})
    assert result.scenario is None
    diagnostic = result.diagnostics[0]
    assert (diagnostic.pos.line, diagnostic.pos.col) == (line, col) and text in diagnostic.message


@pytest.mark.corpus
def test_the_whole_claudeless_corpus_validates_quickly() -> None:
    root = _root()
    files = [root / rel for rel in [*_present("*.toml"), *_present("*.json")]]
    start = time.perf_counter()
    for path in files:
        try_load(path, env={})
    assert time.perf_counter() - start < 2.0


@pytest.mark.corpus
def test_corpus_features_reach_the_model() -> None:
    root = _root()
    failures = try_load(root / "scenarios/failures.toml", env={}).scenario
    assert failures is not None and failures.rules is not None
    kinds = {
        r.reply.failure.type: dict(r.reply.failure.params)
        for r in failures.rules.rules
        if r.reply and r.reply.failure
    }
    assert set(kinds) == {"auth_error", "connection_timeout", "malformed_json", "network_unreachable",
                          "out_of_credits", "partial_response", "rate_limit"}  # fmt: skip
    full = try_load(root / "scenarios/full-featured.toml", env={}).scenario
    assert full is not None and full.rules is not None
    rules: m.RuleSet = full.rules
    assert rules.identity["session_id"] == "550e8400-e29b-41d4-a716-446655440000"
    assert rules.identity["model"] == "claude-opus-4-5-20251101" and rules.permission_mode == "default"
    assert [r.pattern.type for r in rules.rules] == ["contains", "regex"]
    assert rules.rules[1].reply is not None and rules.rules[1].reply.tool_calls[0].tool == "Read"
    assert rules.tools["Write"].auto_approve is False and rules.tool_mode == "live"
    assert rules.default_reply is not None and rules.default_reply.delay_ms == 100
    turns = try_load(root / "scenarios/multi_turn.toml", env={}).scenario
    assert turns is not None and turns.rules is not None
    assert sum(len(r.turns) for r in turns.rules.rules) == 4
    # the TOML scoping trap: `permission_mode` after a tool-input header is a tool input key
    plan = try_load(
        root / "crates/cli/tests/fixtures/dotclaude/v2.1.12/plan-mode/scenario.toml", env={}
    ).scenario
    assert plan is not None and plan.rules is not None and plan.rules.default_reply is not None
    assert plan.rules.permission_mode is None
    plan_input = plan.rules.default_reply.tool_calls[0].input
    assert plan_input["permission_mode"] == "plan"
    plan_md = (root / "crates/cli/tests/fixtures/dotclaude/v2.1.12/plan-mode/plan.md").read_text()
    assert plan_input["plan_content"] == plan_md  # `$file`, read as text
    todo = try_load(
        root / "crates/cli/tests/fixtures/dotclaude/v2.1.12/todo-write/scenario.toml", env={}
    ).scenario
    assert todo is not None and todo.rules is not None and todo.rules.default_reply is not None
    assert isinstance(todo.rules.default_reply.tool_calls[0].input["todos"], list)  # `$file` .json, parsed
    ask = try_load(root / "scenarios/ask-user-question.toml", env={}).scenario
    assert ask is not None and ask.rules is not None and ask.rules.tools["AskUserQuestion"].answers
    setup = try_load(root / "tests/specs/scenarios/setup-02-login-method.toml", env={}).scenario
    assert setup is not None and setup.rules is not None and setup.rules.logged_in is False


_COUNTED = re.compile(r"(\w+)×(\d+)")


def _manifest_rows() -> dict[str, list[str]]:
    """`repo path` -> the cells of its row in section 1 of the corpus MANIFEST."""
    rows: dict[str, list[str]] = {}
    text = (_root() / "MANIFEST.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith("| `") and ".toml`" in line.split("|")[1]:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0].split("`")[1]] = cells
    return rows


@pytest.mark.corpus
def test_the_model_agrees_with_the_manifest_feature_columns() -> None:
    rows = _manifest_rows()
    assert set(rows) == set(VERDICTS)
    for rel, cells in rows.items():
        result = try_load(_root() / rel, env={})
        if result.scenario is None:
            continue
        rules = result.scenario.rules
        assert rules is not None
        _, _, patterns, turns, failures, tool_calls, tool_execution, default = cells[:8]
        expected = Counter({kind: int(n) for kind, n in _COUNTED.findall(patterns)})
        assert Counter(r.pattern.type for r in rules.rules) == expected, rel
        turn_count = int(turns.split()[0]) if turns[0].isdigit() else 0
        assert sum(len(r.turns) for r in rules.rules) == turn_count, rel
        kinds = {r.failure.type for r in _replies(rules) if r.failure}
        assert kinds == ({f.strip() for f in failures.split(",")} if failures != "—" else set()), rel
        tools = {c.tool for r in _replies(rules) for c in r.tool_calls}
        listed = tool_calls.split(" [")[0]
        assert tools == ({t.strip() for t in listed.split(",")} if listed != "—" else set()), rel
        if tool_execution not in ("-", "—"):
            assert rules.tool_mode == tool_execution.split(";")[0], rel
            for entry in tool_execution.split(";")[1:]:
                name, keys = entry.strip().rstrip("]").split("[")
                setting = rules.tools[name]
                assert ("auto_approve" in keys) == (setting.auto_approve is not None), rel
                assert ("answers" in keys) == bool(setting.answers), rel
        assert (rules.default_reply is not None) == (default == "yes"), rel
