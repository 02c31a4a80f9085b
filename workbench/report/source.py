"""The scenario's source as highlighted HTML lines, so a step's line can be shown in place.

Scenarios are YAML, JSON or TOML: a few token kinds are enough to read them
(keys, strings, numbers, literals, comments, TOML tables), and a regular
expression per line finds them in a fraction of the time a full lexer takes
(Pygments' YAML lexer cost half of writing a report). Each line is complete HTML
on its own, so the page highlights line N by its index. A string that spans
lines (a YAML block scalar) is shown as plain text, which it is.
"""

from __future__ import annotations

import os
import re
import stat
from html import escape
from pathlib import Path

MAX_BYTES = 1024 * 1024  # a larger file is not shown

_TOKENS = re.compile(
    r"""(?P<c>(?:^|(?<=\s))\#.*$)"""  # a comment: `#` at the start or after a blank
    r"""|(?P<k>(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[A-Za-z_$][\w.$-]*)(?=\s*[:=](?:\s|$)))"""  # a key
    r"""|(?P<t>^\s*\[\[?[^\]]*\]\]?\s*$)"""  # a TOML table
    r"""|(?P<s>(?<![\w'"])(?:"(?:[^"\\]|\\.)*"?|'(?:[^']|'')*'?))"""  # a string, not an apostrophe in a word
    r"""|(?P<n>(?<![\w.-])-?\d+(?:\.\d+)?(?![\w.-]))"""  # a number
    r"""|(?P<l>(?<![\w-])(?:true|false|null|yes|no|on|off|~)(?![\w-]))"""  # a literal
)


def highlight(line: str) -> str:
    """One line as HTML with the token kinds as classes: ``k s n l c t``."""
    out: list[str] = []
    last = 0
    for match in _TOKENS.finditer(line):
        kind = match.lastgroup
        out.append(escape(line[last : match.start()], quote=False))
        out.append(f'<span class="{kind}">{escape(match.group(), quote=False)}</span>')
        last = match.end()
    out.append(escape(line[last:], quote=False))
    return "".join(out)


SOURCE_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".py")


def read_named(path: Path, suffixes: tuple[str, ...], limit: int = MAX_BYTES) -> str | None:
    """The text of a file a report or a trace names, if it is what it should be, else None.

    What a run folder or a JSON report names is data: only a regular file with one of
    ``suffixes`` (a scenario, a golden) is read, never more than ``limit`` bytes, and a
    FIFO or a device never blocks the report. So a hand-made report cannot copy any
    other file of the machine into the HTML it writes.
    """
    if not path.name.endswith(suffixes):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    with os.fdopen(fd, "rb") as f:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = f.read(limit + 1)
        except OSError:
            return None
    if len(data) > limit:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def highlighted_lines(path: Path) -> list[str]:
    """The scenario file's lines as HTML (empty when it cannot be read, or is not a scenario file)."""
    text = read_named(path, SOURCE_SUFFIXES)
    return [highlight(line) for line in text.splitlines()] if text is not None else []
