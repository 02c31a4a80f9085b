"""Every Claudeless scenario file of the corpus gets its verdict: the 75 current files load
(v1 schema), the two `_history` files with the removed `[capture]` section are rejected as
Claudeless rejects them (``unknown field `capture` ``), at the header's line.

The corpus's JSON files are fixtures (capture manifests, session indexes, settings), not
scenarios; Claudeless only reads JSON scenarios passed inline in its tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS, require_corpus
from workbench.scenario import model as m
from workbench.scenario.loader import try_load

REJECTED = {
    "_history/7cb4909/scenarios/capture-basic.toml": (6, 1, "unknown field `capture`"),
    "_history/7cb4909/scenarios/capture-full.toml": (7, 1, "unknown field `capture`"),
}


def _root() -> Path:
    return require_corpus() / "claudeless"


def _files() -> list[str]:
    root = CORPUS / "claudeless"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.toml")) if root.is_dir() else []


def test_the_corpus_has_the_files_the_manifest_lists() -> None:
    files = [p for p in _root().rglob("*.toml")]
    assert len(files) == 77


@pytest.mark.corpus
@pytest.mark.parametrize("rel", _files() or ["(corpus absent)"])
def test_corpus_verdict(rel: str) -> None:
    result = try_load(_root() / rel, env={})
    if rel in REJECTED:
        line, col, text = REJECTED[rel]
        assert result.scenario is None
        (diagnostic,) = result.diagnostics
        assert (diagnostic.pos.line, diagnostic.pos.col) == (line, col)
        assert text in diagnostic.message
        return
    assert result.scenario is not None, [str(d) for d in result.diagnostics]
    assert result.scenario.format == "claudeless" and result.scenario.rules is not None


def test_corpus_features_reach_the_model() -> None:
    root = _root()
    failures = try_load(root / "scenarios/failures.toml", env={}).scenario
    assert failures is not None and failures.rules is not None
    kinds = {r.reply.failure.type for r in failures.rules.rules if r.reply and r.reply.failure}
    assert kinds == {"auth_error", "connection_timeout", "malformed_json", "network_unreachable", "out_of_credits",
                     "partial_response", "rate_limit"}  # fmt: skip
    full = try_load(root / "scenarios/full-featured.toml", env={}).scenario
    assert full is not None and full.rules is not None
    rules: m.RuleSet = full.rules
    assert rules.identity["session_id"] == "550e8400-e29b-41d4-a716-446655440000"
    assert rules.identity["permission_mode"] == "default"
    assert [r.pattern.type for r in rules.rules] == ["contains", "regex"]
    assert rules.rules[1].reply is not None and rules.rules[1].reply.tool_calls[0].tool == "Read"
    assert rules.tools["Write"].auto_approve is False and rules.tool_mode == "live"
    assert rules.default_reply is not None and rules.default_reply.delay_ms == 100
    turns = try_load(root / "scenarios/multi_turn.toml", env={}).scenario
    assert turns is not None and turns.rules is not None
    assert sum(len(r.turns) for r in turns.rules.rules) == 4
    plan = try_load(
        root / "crates/cli/tests/fixtures/dotclaude/v2.1.12/plan-mode/scenario.toml", env={}
    ).scenario
    assert plan is not None and plan.rules is not None
    # the TOML scoping trap: `permission_mode` after a tool-input header is a tool input key
    assert "permission_mode" not in plan.rules.identity
