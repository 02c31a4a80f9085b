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
import functools
import re
from typing import TYPE_CHECKING

from .user_regex import UserRegex

if (
    TYPE_CHECKING
):  # at run time any objects with these attributes do: the `claude` shim matches without the model
    from . import model as m

# Rust's POSIX classes are ASCII-only, so these ranges are exact.
_POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7F", "blank": "\\t ", "cntrl": "\\x00-\\x1F\\x7F",
    "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
}  # fmt: skip
# Unicode classes Python's `re` can spell outside a character class: (\p{..}, \P{..}).
_UNICODE = {
    "L": ("[^\\W\\d_]", "[\\W\\d_]"), "Letter": ("[^\\W\\d_]", "[\\W\\d_]"),
    "Nd": ("\\d", "\\D"), "Decimal_Number": ("\\d", "\\D"),
}  # fmt: skip
_FLAGS = re.compile(r"\(\?([A-Za-z-]*)([):])")
_UNICODE_CLASS = re.compile(r"\{([^}]*)\}|([A-Za-z])")
_POSIX_CLASS = re.compile(r"\[:(\^?)([a-z]+):\]")


class Untranslatable(ValueError):
    """A Claudeless (Rust ``regex``) pattern Python's :mod:`re` cannot match the same way."""


def python_regex(pattern: str) -> str:
    """The Python spelling of a Claudeless regex, or :class:`Untranslatable`.

    The loader accepts what Rust's ``regex`` crate accepts (Claudeless's rule); matching runs on
    Python's ``re``, so Rust-only spellings are rewritten to what means the same there:
    ``(?<name>`` as ``(?P<name>``, ``\\z`` as ``\\Z``, POSIX classes as ASCII ranges,
    ``\\p{L}``/``\\p{Nd}`` (outside a class) as ``[^\\W\\d_]``/``\\d``, a flag group in mid-pattern
    as a scoped group up to the end of its group, and ``u``/``R`` flags dropped. What has no
    equivalent (other ``\\p`` classes, a class inside a class, the set operations ``&&``, ``--``
    and ``~~`` in a class, the ``U`` flag) is refused.
    """
    out: list[str] = []
    owed = [0]  # per open group: scoped flag groups to close with it
    in_class = False
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            kind = pattern[i + 1]
            if kind in "pP":
                found = _UNICODE_CLASS.match(pattern, i + 2)
                name = (found.group(1) or found.group(2)) if found else ""
                if found is None or name not in _UNICODE or in_class:
                    where = "inside a character class" if in_class else "here"
                    raise Untranslatable(
                        f"`{pattern[i : found.end() if found else i + 2]}` has no Python equivalent {where}"
                    )
                out.append(_UNICODE[name][kind == "P"])
                i = found.end()
                continue
            out.append("\\Z" if kind == "z" and not in_class else pattern[i : i + 2])
            i += 2
        elif in_class:
            posix = _POSIX_CLASS.match(pattern, i) if c == "[" else None
            if posix is not None and posix.group(2) in _POSIX and not posix.group(1):
                out.append(_POSIX[posix.group(2)])
                i = posix.end()
                continue
            if c == "[":
                raise Untranslatable("a character class inside a character class has no Python equivalent")
            if c in "&-~" and pattern.startswith(c, i + 1):
                raise Untranslatable(
                    f"`{c}{c}` in a character class (a set operation) has no Python equivalent"
                )
            in_class = c != "]"
            out.append("\\|" if c == "|" else c)  # `||` is literal in both; unescaped, Python warns
            i += 1
        elif c == "[":
            start = i + 1 + (pattern.startswith("^", i + 1))
            start += pattern.startswith("]", start)  # a leading `]` is a literal
            out.append(pattern[i:start])
            in_class = True
            i = start
        elif c == "(":
            flags = _FLAGS.match(pattern, i)
            if flags is None:
                named = pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i)
                out.append("(?P<" if named else "(")
                owed.append(0)
                i += 3 if named else 1
                continue
            letters, end = flags.group(1), flags.group(2)
            if not letters and end == ")":  # `(?)`: not a pattern in either; kept, so that it is refused
                out.append("(?)")
                i = flags.end()
                continue
            if "U" in letters:
                raise Untranslatable("the `U` flag (lazy by default) has no Python equivalent")
            on, _, off = (("".join(ch for ch in part if ch in "imsx")) for part in letters.partition("-"))
            spelled = f"{on}-{off}" if off else on
            if end == ":":
                out.append(f"(?{spelled}:")
                owed.append(0)
            elif i == 0 and not off:
                out.append(f"(?{on})" if on else "")
            elif spelled:
                out.append(f"(?{spelled}:")  # to the end of the enclosing group, as in Rust
                owed[-1] += 1
            i = flags.end()
        elif c == ")":
            out.append(")" * owed.pop() + ")" if len(owed) > 1 else ")")
            i += 1
        else:
            out.append(c)
            i += 1
    out.append(")" * owed[0])
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def translated(pattern: str) -> str | None:
    """The Python form of a Claudeless regex; None when it cannot be matched faithfully."""
    try:
        python = python_regex(pattern)
        re.compile(python)
    except (Untranslatable, re.error):
        return None
    return python


def matches(pattern: m.Pattern, text: str) -> bool:
    if pattern.type == "any":
        return True
    if pattern.type == "exact":
        return text == pattern.text
    if pattern.type == "contains":
        return pattern.text in text
    if pattern.type == "glob":
        return fnmatch.fnmatchcase(text, pattern.text)
    if (
        pattern.type == "regex"
    ):  # a prompt is the agent's text: a pattern too slow for it raises PatternTooSlow
        python = translated(pattern.text)
        return (
            python is not None
            and UserRegex(python, "the rule's `regex`", pattern.pos).search(text) is not None
        )
    return False


class RuleMatcher:
    """The state of one conversation: match counts and the active turn sequence."""

    def __init__(self, rules: m.RuleSet) -> None:
        self.rules = rules
        self.counts: dict[int, int] = {}
        self.active: tuple[int, int] | None = None  # (rule index, next turn index)

    def choose(self, text: str) -> tuple[m.Reply | None, m.Fault | None]:
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
