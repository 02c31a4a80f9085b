"""Globs over workspace-relative paths: `*`, `?`, `[...]`, `{a,b}` and `**`.

One translator serves `expect.artifacts`, the `grep` tool's ``glob`` and the
``find``/``Glob`` tools, so a pattern means the same thing everywhere. `*` and
`?` never cross a `/`; `**/` is zero or more folders, a trailing `/**`
everything below, and `{a,b}` either alternative (as ripgrep and Claude Code's
Glob understand them; :mod:`fnmatch` knows neither).
"""

from __future__ import annotations

import re
from functools import lru_cache


def glob_match(path: str, pattern: str) -> bool:
    """Whether the relative ``path`` (with `/`) matches ``pattern`` as a whole."""
    return glob_regex(pattern).fullmatch(path) is not None


def name_match(name: str, pattern: str) -> bool:
    """A pattern without `/` matched against one file name (`find -name`, `grep --glob '*.py'`)."""
    return glob_regex(pattern).fullmatch(name) is not None


MAX_BRACE_DEPTH = 32
"""`{a,{b,{c,...}}}` deeper than this is refused: each level is a group the regex compiler recurses into."""


class GlobError(ValueError):
    """A pattern that cannot be used (braces nested too deep); the message says why."""


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """The compiled pattern; every pattern either compiles or raises :class:`GlobError`."""
    try:
        return re.compile(_translate(pattern, 0, stop="", depth=0)[0], re.DOTALL)
    except (re.error, RecursionError, OverflowError) as exc:  # not expected: the translator escapes
        raise GlobError(f"glob `{pattern}` cannot be used: {exc}") from None


def _translate(pattern: str, i: int, stop: str, depth: int) -> tuple[str, int]:
    """Translate from ``i`` until an unnested character of ``stop``; return the regex and the end index."""
    out: list[str] = []
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c in stop:
            break
        if pattern.startswith("**", i):
            at_start = i == 0 or pattern[i - 1] == "/"
            if at_start and pattern.startswith("**/", i):
                out.append("(?:.*/)?")
                i += 3
                continue
            out.append(".*")  # `dir/**`: everything below; elsewhere `**` is any text
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            regex, i = _bracket(pattern, i)
            out.append(regex)
        elif c == "{":
            if depth >= MAX_BRACE_DEPTH:
                raise GlobError(f"glob `{pattern}`: braces nested more than {MAX_BRACE_DEPTH} deep")
            alternatives, j = _braces(pattern, i + 1, depth + 1)
            if alternatives is None:
                out.append(re.escape(c))
                i += 1
            else:
                out.append("(?:" + "|".join(alternatives) + ")")
                i = j
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out), i


def _braces(pattern: str, i: int, depth: int) -> tuple[list[str] | None, int]:
    """The alternatives of a `{...}` group starting after its `{`, and the index after its `}`."""
    alternatives: list[str] = []
    while True:
        regex, i = _translate(pattern, i, stop=",}", depth=depth)
        alternatives.append(regex)
        if i >= len(pattern):
            return None, i  # no closing brace: a literal `{`
        if pattern[i] == "}":
            return alternatives, i + 1
        i += 1  # a comma


def _bracket(pattern: str, i: int) -> tuple[str, int]:
    """The class `[...]` starting at ``i``: its regex and the index after it.

    As in fnmatch and POSIX: `!` or `^` first negates, a `]` first (after the
    negation) is a member, `a-z` is a range (a reversed one matches nothing), and
    a `[` with no closing `]` is a literal `[`. Members are escaped one by one, so
    the class compiles whatever it holds. A class never matches `/`.
    """
    j = i + 1
    negate = pattern[j : j + 1] in ("!", "^")
    j += negate
    if pattern[j : j + 1] == "]":
        j += 1  # `[]a]`, `[!]a]`: the first `]` is a member
    end = pattern.find("]", j)
    if end < 0:
        return re.escape("["), i + 1
    body = pattern[i + 1 + negate : end]
    parts: list[str] = []
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            lo, hi = body[k], body[k + 2]
            if lo <= hi:
                parts.append(re.escape(lo) + "-" + re.escape(hi))
            k += 3
        else:
            parts.append(re.escape(body[k]))
            k += 1
    if not parts:  # only reversed ranges: nothing matches (a negated one: any one character but `/`)
        return ("[^/]" if negate else "(?!)"), end + 1
    members = "".join(parts)
    return ("[^/" + members + "]" if negate else "(?!/)[" + members + "]"), end + 1
