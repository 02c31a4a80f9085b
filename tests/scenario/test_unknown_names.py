"""Typos are caught: one suggestion for a near name, errors in strict mode, every error reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from workbench.scenario.agent_harbor import ALL_EVENTS, TOP_LEVEL_KEYS
from workbench.scenario.diagnostics import count, did_you_mean, nearest
from workbench.scenario.loader import LoadResult, try_load


def load(tmp_path: Path, text: str, *, strict: bool = False) -> LoadResult:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return try_load(path, strict=strict)


def lines(result: LoadResult, severity: str) -> list[str]:
    return [
        f"{d.pos.line}:{d.pos.col}: {d.message}" for d in result.diagnostics if d.severity.value == severity
    ]


NESTED_TYPOS = [
    # (scenario text, line:col of the typo, the typo, the suggestion)
    ("timeline:\n  - assert:\n      fs:\n        exist: [nope.txt]\n", "4:9", "exist", "exists"),
    ("timeline:\n  - assert:\n      txt:\n        contains: [x]\n", "3:7", "txt", "text"),
    ("timeline:\n  - screenshot: a\n    _meat: {}\n", "3:5", "_meat", "_meta"),
    ("timeline:\n  - runCmd:\n      cmnd: ls\n", "3:7", "cmnd", "cmd"),
    ("timeline:\n  - agentToolUse:\n      toolName: runCmd\n      arg: {cmd: ls}\n", "4:7", "arg", "args"),
    ("timeline: []\nexpect:\n  exitcode: 0\n", "3:3", "exitcode", "exitCode"),
    ("repo:\n  intit: true\ntimeline:\n  - screenshot: a\n", "2:3", "intit", "init"),
]


@pytest.mark.parametrize(("text", "where", "typo", "suggestion"), NESTED_TYPOS)
def test_a_nested_typo_is_a_warning_with_one_suggestion(
    tmp_path: Path, text: str, where: str, typo: str, suggestion: str
) -> None:
    result = load(tmp_path, text)
    assert result.ok
    warnings = lines(result, "warning")
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"{where}: unknown") and f"`{typo}`" in warnings[0]
    assert warnings[0].endswith(f"did you mean `{suggestion}`?")


@pytest.mark.parametrize(("text", "where", "typo", "suggestion"), NESTED_TYPOS)
def test_a_nested_typo_is_an_error_when_strict(
    tmp_path: Path, text: str, where: str, typo: str, suggestion: str
) -> None:
    result = load(tmp_path, text, strict=True)
    assert not result.ok
    errors = lines(result, "error")
    assert len(errors) == 1 and errors[0].startswith(f"{where}: unknown"), errors
    assert f"did you mean `{suggestion}`?" in errors[0] and "ignored" not in errors[0]


def test_exist_for_exists_does_not_pass_quietly(tmp_path: Path) -> None:
    """The issue's case: `exist:` dropped the assertion and a missing file passed."""
    text = "timeline:\n  - assert:\n      fs:\n        exist: [missing.txt]\n"
    assert any("did you mean `exists`?" in w for w in lines(load(tmp_path, text), "warning"))
    assert not load(tmp_path, text, strict=True).ok


def test_an_empty_timeline_with_nothing_expected_is_warned_of_as_checking_nothing(tmp_path: Path) -> None:
    """`timeline: []` passed whatever the program did, without a word."""
    for key in ("timeline", "steps"):
        assert lines(load(tmp_path, f"command: [sh, -c, 'exit 3']\n{key}: []\n"), "warning") == [
            f"2:{len(key) + 3}: `{key}` is empty and there is no `expect`: the scenario checks nothing and passes "
            "whatever the program does; add steps (an `assert`, a `screenshot`) or `expect: {exitCode: 0}`"
        ]
    for checked in ("timeline: []\nexpect: {exitCode: 0}\n", "timeline:\n  - screenshot: a\n"):
        assert lines(load(tmp_path, checked), "warning") == []


def test_a_top_level_typo_stays_a_warning_when_strict(tmp_path: Path) -> None:
    """`comand:` is unknown at the top level: a warning naming `command`, also in --ci."""
    text = "comand: [python3, -q]\ntimeline:\n  - screenshot: a\n"
    for strict in (False, True):
        result = load(tmp_path, text, strict=strict)
        assert result.ok and result.scenario is not None and result.scenario.command is None
        assert lines(result, "warning") == [
            "1:1: unknown key `comand` in the scenario ignored; did you mean `command`?"
        ]


def test_an_unknown_event_gets_one_suggestion_not_the_list(tmp_path: Path) -> None:
    errors = lines(load(tmp_path, "timeline:\n  - screnshot: a\n"), "error")
    assert errors == ["2:5: unknown event `screnshot`; did you mean `screenshot`?"]


def test_with_nothing_near_a_long_list_is_cut_to_its_nearest_few_and_says_how_many_more(
    tmp_path: Path,
) -> None:
    """All 48 events in one line were a wall nobody reads: the six nearest, and where the rest are."""
    errors = lines(load(tmp_path, "timeline:\n  - bogusEvent: a\n"), "error")
    assert errors == [
        "2:5: unknown event `bogusEvent`; allowed events: `userEdits`, `userInputs`, `screenshot`, `agentPlan`, "
        "`agentEdits`, `userCommand` and 41 more (`workbench schema` lists them)"
    ]
    (warning,) = lines(load(tmp_path, "timeline:\n  - assert:\n      zzzzqqq: 1\n"), "warning")
    assert warning.endswith("known keys: `fs`, `text`, `json`, `git`, `acp`")  # a short list stays whole


def test_the_list_is_given_only_when_nothing_is_near(tmp_path: Path) -> None:
    (error,) = lines(load(tmp_path, "timeline:\n  - zzzzqqq: a\n"), "error")
    assert "did you mean" not in error and "allowed events: `" in error
    (warning,) = lines(load(tmp_path, "timeline:\n  - assert:\n      zzzzqqq: 1\n"), "warning")
    assert "did you mean" not in warning and "known keys: `" in warning


def test_an_unknown_tool_argument_is_an_error_when_strict(tmp_path: Path) -> None:
    text = "timeline:\n  - writeFile:\n      path: a.txt\n      contnet: x\n"
    (warning,) = lines(load(tmp_path, text), "warning")
    assert (
        warning.startswith("4:7: unknown `writeFile` argument `contnet`")
        and "did you mean `content`?" in warning
    )
    assert lines(load(tmp_path, text, strict=True), "error")[0].startswith("4:7:")


@given(st.sampled_from([*ALL_EVENTS, *TOP_LEVEL_KEYS]), st.data())
@example("screenshot", None)
def test_one_dropped_or_doubled_letter_suggests_the_name(name: str, data: st.DataObject | None) -> None:
    if len(name) < 5:
        return
    at = data.draw(st.integers(1, len(name) - 1)) if data is not None else 3
    for typo in (name[:at] + name[at + 1 :], name[:at] + name[at] + name[at:]):
        assert nearest(typo, [*ALL_EVENTS, *TOP_LEVEL_KEYS]) == name or typo in (*ALL_EVENTS, *TOP_LEVEL_KEYS)


def test_did_you_mean_is_case_insensitive() -> None:
    assert did_you_mean("ExitCode", ("exitCode", "artifacts")) == "did you mean `exitCode`?"


def test_every_bad_timeline_item_is_reported(tmp_path: Path) -> None:
    """`advanceMs: -5` is flagged even when an earlier item is wrong too."""
    text = "timeline:\n  - screnshot: a\n  - advanceMs: 10\n  - advanceMs: -5\n  - fly: away\n"
    errors = lines(load(tmp_path, text), "error")
    assert [e.split(":")[0] for e in errors] == ["2", "4", "5"], errors
    assert errors[1].startswith("4:16:") and "-5" in errors[1]


def test_counts_agree_with_their_number() -> None:
    assert [count(n, "error") for n in (0, 1, 2)] == ["0 errors", "1 error", "2 errors"]


def test_a_bad_name_does_not_hide_the_timeline_errors(tmp_path: Path) -> None:
    errors = lines(load(tmp_path, "name: ../..\ntimeline:\n  - advanceMs: -5\n"), "error")
    assert [e.split(":")[0] for e in errors] == ["1", "3"], errors


def test_an_unknown_step_type_gets_a_suggestion(tmp_path: Path) -> None:
    (error,) = lines(load(tmp_path, "steps:\n  - type: screnshot\n    name: a\n"), "error")
    assert error == "2:11: unknown step type `screnshot`; did you mean `screenshot`?"
