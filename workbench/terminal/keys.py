"""Key notation: how scenarios and tests write keys that are not plain text.

Text is typed as it is; a name in angle brackets is one key::

    <Enter> <Tab> <S-Tab> <Esc> <Space> <BS> (also <Backspace>) <Delete> <Insert>
    <Up> <Down> <Left> <Right> <Home> <End> <PageUp> <PageDown>
    <F1> ... <F12>
    <C-a> ... <C-z>   Ctrl with a letter (also <C-@> <C-[> <C-\\> <C-]> <C-^> <C-_> <C-Space>)
    <M-x> or <A-x>    Alt (Meta) with a key: ESC, then the key; <M-Enter> works too
    <lt>              a literal "<"

Names are case-insensitive (``<enter>``, ``<c-C>``). Anything in angle brackets
that is not a key name is typed literally, so ``if a <b> c`` stays text. Keys are
sent as xterm sends them in normal cursor mode (``ESC [ A`` for Up).
"""

from __future__ import annotations

import re

KEYS: dict[str, str] = {
    "enter": "\r", "return": "\r", "cr": "\r", "tab": "\t", "s-tab": "\x1b[Z", "esc": "\x1b", "escape": "\x1b",
    "space": " ", "bs": "\x7f", "backspace": "\x7f", "delete": "\x1b[3~", "del": "\x1b[3~",
    "insert": "\x1b[2~", "up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
    "home": "\x1b[H", "end": "\x1b[F", "pageup": "\x1b[5~", "pagedown": "\x1b[6~", "lt": "<", "nl": "\n",
    "f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS", "f5": "\x1b[15~", "f6": "\x1b[17~",
    "f7": "\x1b[18~", "f8": "\x1b[19~", "f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~",
    "f12": "\x1b[24~",
}  # fmt: skip
_CTRL_PUNCTUATION = {"@": "\x00", "[": "\x1b", "\\": "\x1c", "]": "\x1d", "^": "\x1e", "_": "\x1f",
                     "space": "\x00", "?": "\x7f"}  # fmt: skip
KEY_NAMES = tuple(sorted(KEYS)) + tuple(f"C-{c}" for c in "abcdefghijklmnopqrstuvwxyz")

_TOKEN = re.compile(r"<([^<>\s]+)>")


def key_sequence(name: str) -> str | None:
    """The characters one key name sends, or None if it is not a key name."""
    lowered = name.lower()
    if lowered in KEYS:
        return KEYS[lowered]
    if lowered[:2] in ("c-", "^-") and len(name) > 2:
        rest = lowered[2:]
        if len(rest) == 1 and "a" <= rest <= "z":
            return chr(ord(rest) - ord("a") + 1)
        return _CTRL_PUNCTUATION.get(rest)
    if lowered[:2] in ("m-", "a-") and len(name) > 2:
        rest = name[2:]
        inner = key_sequence(rest) if len(rest) > 1 else rest
        return None if inner is None else "\x1b" + inner
    return None


def expand_keys(text: str) -> str:
    """Text with key names replaced by what the keys send."""

    def replace(match: re.Match[str]) -> str:
        sequence = key_sequence(match.group(1))
        return match.group(0) if sequence is None else sequence

    return _TOKEN.sub(replace, text)


def encode_keys(text: str) -> bytes:
    """The bytes to write to the pty for ``text`` in key notation."""
    return expand_keys(text).encode("utf-8")
