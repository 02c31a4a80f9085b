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


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(_translate(pattern, 0, stop="")[0], re.DOTALL)


def _translate(pattern: str, i: int, stop: str) -> tuple[str, int]:
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
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            chars = "".join(ch if ch == "-" else re.escape(ch) for ch in body[negate:])
            out.append("[" + ("^" if negate else "") + chars + "]")
            i = end + 1
        elif c == "{":
            alternatives, j = _braces(pattern, i + 1)
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


def _braces(pattern: str, i: int) -> tuple[list[str] | None, int]:
    """The alternatives of a `{...}` group starting after its `{`, and the index after its `}`."""
    alternatives: list[str] = []
    while True:
        regex, i = _translate(pattern, i, stop=",}")
        alternatives.append(regex)
        if i >= len(pattern):
            return None, i  # no closing brace: a literal `{`
        if pattern[i] == "}":
            return alternatives, i + 1
        i += 1  # a comma
