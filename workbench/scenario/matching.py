"""Claudeless rule matching: which reply a prompt gets, shared by the mock LLM server and the mock agent.

Claudeless v1 semantics: rules in order, first match wins; `exact` is full
equality, `regex` an unanchored search, `glob` must match the whole text,
`contains` a case-sensitive substring, `any` always. A rule whose
`max_matches` is used up is skipped. A rule with `turns` starts a sequence: the
next prompts are matched only against the current turn's `expect`; a miss ends
the sequence and normal matching runs on the same text. No rule: the
`default_response`, or nothing.
"""

from __future__ import annotations

import fnmatch
import re

from . import model as m


def matches(pattern: m.Pattern, text: str) -> bool:
    if pattern.type == "any":
        return True
    if pattern.type == "exact":
        return text == pattern.text
    if pattern.type == "contains":
        return pattern.text in text
    if pattern.type == "glob":
        return fnmatch.fnmatchcase(text, pattern.text)
    if pattern.type == "regex":
        try:
            return re.search(pattern.text, text) is not None
        except re.error:
            return False
    return False


class RuleMatcher:
    """The state of one conversation: match counts and the active turn sequence."""

    def __init__(self, rules: m.RuleSet) -> None:
        self.rules = rules
        self.counts: dict[int, int] = {}
        self.active: tuple[int, int] | None = None  # (rule index, next turn index)

    def choose(self, text: str) -> tuple[m.Reply | None, m.Failure | None]:
        """The reply (or injected failure) for ``text``; (None, None) when nothing matches and there is no default."""
        if self.active is not None:
            rule_index, turn_index = self.active
            turns = self.rules.rules[rule_index].turns
            turn = turns[turn_index]
            if matches(turn.expect, text):
                self.active = (rule_index, turn_index + 1) if turn_index + 1 < len(turns) else None
                return turn.reply, turn.reply.failure
            self.active = None
        for index, rule in enumerate(self.rules.rules):
            used = self.counts.get(index, 0)
            if rule.max_matches is not None and used >= rule.max_matches:
                continue
            if not matches(rule.pattern, text):
                continue
            self.counts[index] = used + 1
            if rule.turns:
                self.active = (index, 0)
            return rule.reply, rule.reply.failure if rule.reply else None
        default = self.rules.default_reply
        return default, default.failure if default else None
