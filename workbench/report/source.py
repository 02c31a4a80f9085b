"""The scenario's source as highlighted HTML lines, so a step's line can be shown in place.

Scenarios are YAML, JSON or TOML: a few token kinds are enough to read them
(keys, strings, numbers, literals, comments, TOML tables), and a regular
expression per line finds them in a fraction of the time a full lexer takes
(Pygments' YAML lexer cost half of writing a report). Each line is complete HTML
on its own, so the page highlights line N by its index. A string that spans
lines (a YAML block scalar) is shown as plain text, which it is.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

MAX_BYTES = 512 * 1024  # a larger source is shown as plain lines

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


def highlighted_lines(path: Path) -> list[str]:
    """The file's lines as HTML (empty when it cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    if len(text) > MAX_BYTES:
        return [escape(line, quote=False) for line in text.splitlines()]
    return [highlight(line) for line in text.splitlines()]
