"""`onScreen:` (our extension): answers to the questions a program's TUI asks.

Real agents ask before they act (trust this folder? allow this command? pick an
option). A scenario lists rules; when the settled screen matches one, its keys
are typed:

    onScreen:
      - match: Do you trust the files in this folder?   # text on the screen
        keys: <Enter>
      - regex: 'Allow (Bash|Write)\\b.*\\?'                # or a regular expression
        keys: "1<Enter>"
        times: every                                    # once (default), every, or a number
      - default: confirm                                # any [y/n] question no rule answers
        keys: "n<Enter>"

or, with a time limit for questions nothing answers (default 5000 ms):

    onScreen: {unansweredMs: 3000, rules: [...]}

`default:` names a *kind* of question, recognised by its shape, not its words:
``confirm`` (a `(y/n)`, `[Y/n]` or `(yes/no)` choice) and ``select`` (a menu of
numbered options with a cursor). A question of a known kind that no rule and no
default answers fails the run after `unansweredMs`, with the screen.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import field
from typing import Any

from workbench.records import frozen

from .diagnostics import Pos, ScenarioError
from .fields import as_int, as_str, choice, expect_list, expect_map, wrong_type
from .source import PList, PMap
from .user_regex import UserRegex

KINDS = ("confirm", "select")
DEFAULT_UNANSWERED_MS = 5000
RULE_KEYS = ("match", "regex", "default", "keys", "times")


@frozen
class ScreenRule:
    keys: str
    match: str | None = None  # a substring of the screen
    regex: str | None = None
    kind: str | None = None  # a default for a kind of question
    times: int | None = 1  # None: every time
    line: int = 0
    # from Python (a playbook's mock_ui): (the question's line, the screen) -> (keys, the value answered)
    answer: Callable[[str, str], tuple[str, Any]] | None = field(default=None, compare=False)
    regex_pos: Pos | None = field(default=None, compare=False)  # where `regex` is written

    def regex_matches(self, screen: str) -> list[re.Match[str]]:
        """Where ``regex`` is on the screen (lines are lines: ``^`` and ``$`` mark them); a pattern that
        backtracks without end raises :class:`~.user_regex.PatternTooSlow`, placed at the rule's `regex`."""
        assert self.regex is not None
        return UserRegex(self.regex, "`onScreen` regex", self.regex_pos, re.MULTILINE).finditer(screen)

    @property
    def label(self) -> str:
        if self.kind is not None:
            return f"default {self.kind}"
        return f"regex {self.regex!r}" if self.regex is not None else f"match {self.match!r}"


@frozen
class OnScreen:
    rules: tuple[ScreenRule, ...] = ()
    unanswered_ms: int = DEFAULT_UNANSWERED_MS
    line: int = 0  # of the `onScreen` key: where a question nothing answered is reported


def parse_on_screen(doc: PMap) -> OnScreen | None:
    """The scenario's `onScreen:`, checked (every error names its position); None without one."""
    if "onScreen" not in doc:
        return None
    value, pos = doc["onScreen"], doc.at_value("onScreen")
    unanswered = DEFAULT_UNANSWERED_MS
    if isinstance(value, PMap):
        for key in value:
            if key not in ("rules", "unansweredMs"):
                raise ScenarioError.at(
                    value.at_key(key), f"`onScreen` has no key `{key}`; allowed: rules, unansweredMs"
                )
        if "unansweredMs" in value:
            unanswered = as_int(
                value["unansweredMs"], value.at_value("unansweredMs"), "`onScreen.unansweredMs`", minimum=1
            )
        if "rules" not in value:
            raise ScenarioError.at(
                pos, "`onScreen` needs `rules`: a list of {match|regex|default, keys, times}"
            )
        value, pos = value["rules"], value.at_value("rules")
    elif not isinstance(value, PList):
        raise wrong_type(pos, "`onScreen`", "a list of rules or a mapping with `rules`", value)
    rules = tuple(
        _rule(item, item_pos) for item, item_pos in expect_list(value, pos, "`onScreen`").items_with_pos()
    )
    return OnScreen(rules, unanswered, doc.at_key("onScreen").line)


def _rule(value: Any, pos: Any) -> ScreenRule:
    rule = expect_map(value, pos, "an `onScreen` rule")
    for key in rule:
        if key not in RULE_KEYS:
            raise ScenarioError.at(
                rule.at_key(key), f"an `onScreen` rule has no key `{key}`; allowed: {', '.join(RULE_KEYS)}"
            )
    given = [k for k in ("match", "regex", "default") if k in rule]
    if len(given) != 1:
        raise ScenarioError.at(pos, "an `onScreen` rule needs exactly one of `match` (text), `regex` or `default` "
                               f"(a kind of question: {', '.join(KINDS)}); it has {', '.join(given) or 'none'}")  # fmt: skip
    if "keys" not in rule:
        raise ScenarioError.at(
            pos, "an `onScreen` rule needs `keys`: what to type (key notation, e.g. `y<Enter>`)"
        )
    keys = as_str(rule["keys"], rule.at_value("keys"), "`keys`", allow_scalars=True)
    match = regex = kind = None
    if "match" in rule:
        match = as_str(rule["match"], rule.at_value("match"), "`match`", allow_scalars=True)
        if not match.strip():
            raise ScenarioError.at(
                rule.at_value("match"), "`match` must not be empty: it would match every screen"
            )
    elif "regex" in rule:
        regex = as_str(rule["regex"], rule.at_value("regex"), "`regex`")
        try:
            re.compile(regex)
        except re.error as exc:
            raise ScenarioError.at(
                rule.at_value("regex"), f"`regex` {regex!r} is not a valid regular expression: {exc}"
            ) from None
    else:
        kind = choice(rule["default"], rule.at_value("default"), "`default`", KINDS)
    times: int | None = 1
    if "times" in rule:
        raw, tpos = rule["times"], rule.at_value("times")
        if raw == "once":
            times = 1
        elif raw == "every":
            times = None
        elif isinstance(raw, int) and not isinstance(raw, bool):
            times = as_int(raw, tpos, "`times`", minimum=1)
        else:
            raise ScenarioError.at(tpos, f"`times` must be `once`, `every` or a number >= 1, got {raw!r}")
    return ScreenRule(
        keys, match, regex, kind, times, pos.line, regex_pos=rule.at_value("regex") if regex else None
    )


def on_screen_schema() -> dict[str, Any]:
    """The JSON Schema of `onScreen:` (for `workbench schema` and editors)."""
    times = {"oneOf": [{"enum": ["once", "every"]}, {"type": "integer", "minimum": 1}],
             "description": "how often the rule answers: once (default), every time, or at most N times"}  # fmt: skip
    rule = {
        "type": "object",
        "properties": {
            "match": {"type": "string", "description": "text on the screen"},
            "regex": {"type": "string", "description": "a regular expression searched in the screen"},
            "default": {
                "enum": list(KINDS),
                "description": "answers any question of this kind no rule answers",
            },
            "keys": {"type": "string", "description": "what to type, in key notation (e.g. `y<Enter>`)"},
            "times": times,
        },
        "required": ["keys"],
        "oneOf": [{"required": ["match"]}, {"required": ["regex"]}, {"required": ["default"]}],
        "additionalProperties": False,
    }
    rules = {"type": "array", "items": rule}
    return {
        "description": "answers to the program's questions: when the settled screen matches, type the keys",
        "oneOf": [
            rules,
            {"type": "object", "properties": {"rules": rules, "unansweredMs": {"type": "integer", "minimum": 1}},
             "required": ["rules"], "additionalProperties": False},
        ],
    }  # fmt: skip
