"""The scenario's source as highlighted HTML lines, so a step's line can be shown in place.

Pygments tokenises the file (the lexer is chosen by its name: YAML, JSON, TOML,
Python); each token is cut at line ends, so every line is complete HTML on its
own and the page can highlight line N by its index. Classes are Pygments' short
token names; :func:`css` gives their colours.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

MAX_BYTES = 512 * 1024  # a larger source is shown as plain lines


def highlighted_lines(path: Path) -> list[str]:
    """The file's lines as HTML (empty when it cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    if len(text) > MAX_BYTES:
        return [escape(line, quote=False) for line in text.splitlines()]
    from pygments.lexers import get_lexer_for_filename
    from pygments.token import STANDARD_TYPES
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_for_filename(path.name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return [escape(line, quote=False) for line in text.splitlines()]
    lines: list[str] = [""]
    for token, value in lexer.get_tokens(text):
        short = ""
        while token is not None and not (short := STANDARD_TYPES.get(token, "")):
            token = token.parent
        for n, piece in enumerate(value.split("\n")):
            if n:
                lines.append("")
            if piece:
                html = escape(piece, quote=False)
                lines[-1] += f'<span class="{short}">{html}</span>' if short else html
    if lines and lines[-1] == "" and text.endswith("\n"):
        lines.pop()
    return lines


def css(scope: str) -> str:
    """The colours of the token classes, for elements inside ``scope``."""
    from pygments.formatters import HtmlFormatter

    return str(HtmlFormatter(style="monokai").get_style_defs(scope))
