"""Screen responders (`onScreen:`): the rules on plain screens, the loader's diagnostics, and runs of
a real bash in a real pty that asks questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import write
from tests.engine.test_run_e2e import workbench
from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import load_scenario
from workbench.scenario.on_screen import OnScreen, ScreenRule
from workbench.terminal.responders import Responders, question_kind, questions


def answers(rules: list[ScreenRule], screens: list[str]) -> list[str | None]:
    responders = Responders(OnScreen(tuple(rules)))
    out = []
    for screen in screens:
        answer = responders.answer(screen)
        out.append(answer.keys if answer else None)
    return out


def test_once_every_and_at_most_n() -> None:
    q1, q2, q3 = (
        "Allow? (y/n)",
        "Allow? (y/n) y\nAllow? (y/n)",
        "Allow? (y/n) y\nAllow? (y/n) y\nAllow? (y/n)",
    )
    assert answers([ScreenRule("y<Enter>", match="Allow?")], [q1, q1, q2]) == ["y<Enter>", None, None]
    assert answers([ScreenRule("y<Enter>", match="Allow?", times=None)], [q1, q1, q2, q2, q3]) == [
        "y<Enter>", None, "y<Enter>", None, "y<Enter>"]  # fmt: skip
    assert answers([ScreenRule("y", match="Allow?", times=2)], [q1, q2, q3]) == ["y", "y", None]


def test_a_question_redrawn_in_place_is_answered_again_only_after_it_went_away() -> None:
    dialog, gone = "┌ Trust this folder? ┐\n❯ 1. Yes\n  2. No", "working…"
    rule = ScreenRule("<Enter>", regex=r"Trust this folder\?", times=None)
    assert answers([rule], [dialog, dialog, gone, dialog]) == ["<Enter>", None, None, "<Enter>"]


def test_defaults_answer_known_kinds_that_no_text_rule_answers() -> None:
    rules = [ScreenRule("n<Enter>", kind="confirm"), ScreenRule("y<Enter>", match="Delete a?")]
    screens = ["Delete a? [y/N]", "Delete a? [y/N] y\nDelete b? [y/N]"]
    assert answers(rules, screens) == ["y<Enter>", "n<Enter>"], "text rules first, whatever the file order"
    menu = "Pick one:\n❯ 1. Fast\n  2. Careful\n  3. Stop"
    assert answers([ScreenRule("<Enter>", kind="select")], [menu]) == ["<Enter>"]


@pytest.mark.parametrize(
    ("screen", "kind"),
    [
        ("Overwrite? (y/n)", "confirm"),
        ("Continue [Y/n] ", "confirm"),
        ("Proceed (yes/no)?", "confirm"),
        ("> 1. Yes\n  2. No", "select"),
        ("  1) one\n› 2) two", "select"),
        ("Steps:\n1. read\n2. write", None),  # numbered, but no cursor: a list, not a menu
        ("❯ 1. Yes\n  3. No", None),  # not consecutive
        ("y/n is a ratio", None),
        ("", None),
    ],
)
def test_questions_are_recognised_by_shape(screen: str, kind: str | None) -> None:
    found = question_kind(screen)
    assert (found[0] if found else None) == kind


def test_an_unanswered_question_is_reported_once_after_its_time() -> None:
    responders = Responders(OnScreen((ScreenRule("y", match="Other"),), unanswered_ms=500))
    screen = "Delete everything? [y/N]"
    assert responders.answer(screen) is None
    assert responders.unanswered(screen, 1000) is None
    assert responders.unanswered(screen, 1499) is None
    assert responders.unanswered(screen, 1500) == ("confirm", "Delete everything? [y/N]")
    assert responders.unanswered(screen, 9000) is None, "reported once"
    answered = Responders(OnScreen((ScreenRule("y", kind="confirm"),), unanswered_ms=500))
    assert answered.answer(screen) is not None
    assert answered.unanswered(screen, 0) is None and answered.unanswered(screen, 10_000) is None
    assert questions("a (y/n)\nb (y/n)") == [("confirm", "a (y/n)"), ("confirm", "b (y/n)")]


def load(tmp_path: Path, on_screen: str) -> object:
    text = f"name: t\ncommand: [bash]\n{on_screen}\ntimeline:\n  - userInputs: [[0, x]]\n"
    return load_scenario(tmp_path / "t.yaml", text=text)


@pytest.mark.parametrize(
    ("on_screen", "message"),
    [
        (
            "onScreen: 3",
            "t.yaml:3:11: error: `onScreen` must be a list of rules or a mapping with `rules`, got",
        ),
        (
            "onScreen:\n  - keys: y",
            "t.yaml:4:5: error: an `onScreen` rule needs exactly one of `match` (text), `regex` or "
            "`default` (a kind of question: confirm, select); it has none",
        ),
        ("onScreen:\n  - {match: a, regex: b, keys: y}", "it has match, regex"),
        ("onScreen:\n  - {match: a}", "t.yaml:4:5: error: an `onScreen` rule needs `keys`"),
        (
            "onScreen:\n  - {match: a, keys: y, time: 2}",
            "t.yaml:4:25: error: an `onScreen` rule has no key `time`; "
            "allowed: match, regex, default, keys, times",
        ),
        (
            "onScreen:\n  - {regex: '(', keys: y}",
            "t.yaml:4:13: error: `regex` '(' is not a valid regular expression",
        ),
        (
            "onScreen:\n  - {default: confrim, keys: y}",
            "`default` `confrim` is not allowed; did you mean `confirm`",
        ),
        ("onScreen:\n  - {match: a, keys: y, times: 0}", "t.yaml:4:32: error: `times` must be >= 1, got 0"),
        (
            "onScreen:\n  - {match: a, keys: y, times: often}",
            "`times` must be `once`, `every` or a number >= 1, got 'often'",
        ),
        ("onScreen:\n  - {match: '  ', keys: y}", "`match` must not be empty: it would match every screen"),
        (
            "onScreen: {rule: []}",
            "t.yaml:3:12: error: `onScreen` has no key `rule`; allowed: rules, unansweredMs",
        ),
        ("onScreen: {unansweredMs: 0, rules: []}", "`onScreen.unansweredMs` must be >= 1, got 0"),
    ],
)
def test_bad_rules_are_diagnostics_at_their_place(tmp_path: Path, on_screen: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        load(tmp_path, on_screen)
    assert message in str(caught.value), str(caught.value)


def test_good_rules_load(tmp_path: Path) -> None:
    scenario = load(tmp_path, "onScreen:\n  unansweredMs: 250\n  rules:\n    - {match: a, keys: y, times: every}\n"
                              "    - {default: select, keys: '<Enter>', times: 3}")  # fmt: skip
    config = scenario.on_screen  # type: ignore[attr-defined]
    assert config.unanswered_ms == 250
    assert [(r.match, r.kind, r.times, r.line) for r in config.rules] == [
        ("a", None, None, 6),
        (None, "select", 3, 7),
    ]
    # `default` names a kind here: these are not Agent Harbor `rules` (`default: true` + `config`)
    only_defaults = load(tmp_path, "onScreen: {rules: [{default: confirm, keys: n}]}")
    assert [r.kind for r in only_defaults.on_screen.rules] == ["confirm"]  # type: ignore[attr-defined]


QUESTIONS = """\
name: questions
command: [bash, --norc, --noprofile]
onScreen:
  - regex: 'Delete (\\w+)\\? \\[y/N\\]'
    keys: "y<Enter>"
    times: 2
  - default: confirm
    keys: "n<Enter>"
timeline:
  - userInputs: [[0, "for f in a b c; do read -p \\"Delete $f? [y/N] \\" x; echo \\"$f=$x\\"; done; echo done-$((1+1))<Enter>"]]
  - waitFor: done-2
  - assert: {text: {contains: ["a=y", "b=y", "c=n"]}}
"""


def test_a_run_answers_each_question_and_records_every_answer(tmp_path: Path) -> None:
    write(tmp_path, "questions.yaml", QUESTIONS)
    done = workbench("run", "questions.yaml", "--out", "runs", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (trace,) = (tmp_path / "runs").rglob("trace.jsonl")
    ui = [c["ui"] for line in trace.read_text().splitlines() if (r := json.loads(line))["type"] == "step"
          for c in r["checks"] if "ui" in c]  # fmt: skip
    assert [(u["rule"], u["matched"], u["keys"], u["line"]) for u in ui] == [
        ("regex 'Delete (\\\\w+)\\\\? \\\\[y/N\\\\]'", "Delete a? [y/N]", "y<Enter>", 4),
        ("regex 'Delete (\\\\w+)\\\\? \\\\[y/N\\\\]'", "Delete b? [y/N]", "y<Enter>", 4),
        ("default confirm", "Delete c? [y/N]", "n<Enter>", 7),
    ]  # fmt: skip


def test_an_unexpected_question_fails_with_the_screen_not_a_silent_hang(tmp_path: Path) -> None:
    write(tmp_path, "stuck.yaml", """\
name: stuck
command: [bash, --norc, --noprofile]
onScreen: {unansweredMs: 300, rules: [{match: "Other question", keys: "y<Enter>"}]}
timeline:
  - userInputs: [[0, "read -p 'Wipe the disk? [y/N] ' a; echo done-$((1+1))<Enter>"]]
  - waitFor: done-2
""")  # fmt: skip
    done = workbench("run", "stuck.yaml", "--out", "runs", "--timeout", "5", cwd=tmp_path)
    assert done.returncode == 1
    assert ("stuck.yaml:3: timing: an unexpected confirm question waits for an answer that no `onScreen` rule "
            "gives: 'Wipe the disk? [y/N]'; add a rule (match/regex/default: confirm) with the keys to type. "
            "The screen was:\n$ read -p") in done.stdout  # fmt: skip


def test_a_question_nothing_answers_ends_the_run_at_once_not_at_its_timeout(tmp_path: Path) -> None:
    """The only rule is a default for menus, so nothing answers the yes/no question; the `waitFor` would
    hold for 100 s and the run's timeout is 120 s, yet the run ends, failed by the responder alone."""
    write(tmp_path, "asks.yaml", """\
name: asks
command: [bash, --norc, --noprofile]
onScreen: {unansweredMs: 300, rules: [{default: select, keys: "<Enter>"}]}
timeline:
  - userInputs: [[0, "read -p 'Delete the branch? (y/n) ' a; echo done-$((1+1))<Enter>"]]
  - waitFor: {text: done-2, timeoutMs: 100000}
  - userInputs: [[0, "echo never typed<Enter>"]]
""")  # fmt: skip
    done = workbench("run", "asks.yaml", "--out", "runs", "--timeout", "120", "--report", "report.json",
                     cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    (scenario,) = json.loads((tmp_path / "report.json").read_text())["scenarios"]
    assert scenario["status"] == "failed"
    assert [(f["line"], f["kind"]) for f in scenario["failures"]] == [(3, "timing")], scenario["failures"]
    message = scenario["failures"][0]["message"]
    assert message.startswith("an unexpected confirm question waits for an answer that no `onScreen` rule "
                              "gives: 'Delete the branch? (y/n)'"), message  # fmt: skip
    assert "The screen was:\n$ read -p" in message and message.endswith("\nDelete the branch? (y/n)"), message
    assert scenario["duration_ms"] < 60_000, "ended by the responder, far before the run's 120 s timeout"
    (trace,) = (tmp_path / "runs").rglob("trace.jsonl")
    steps = [r for line in trace.read_text().splitlines() if (r := json.loads(line))["type"] == "step"]
    assert [s["action"] for s in steps] == ["input"], "the waitFor and the steps after it were never played"


def test_the_json_schema_knows_on_screen() -> None:
    import jsonschema
    import yaml

    from workbench.scenario.schema import scenario_schema

    validator = jsonschema.Draft7Validator(scenario_schema())
    doc = yaml.safe_load(QUESTIONS)
    assert not list(validator.iter_errors(doc))
    for bad in ([{"match": "a"}], [{"match": "a", "regex": "b", "keys": "y"}], [{"default": "menu", "keys": "y"}],
                {"rules": [], "unansweredMs": 0}, [{"match": "a", "keys": "y", "times": "often"}]):  # fmt: skip
        assert list(validator.iter_errors({**doc, "onScreen": bad})), bad
