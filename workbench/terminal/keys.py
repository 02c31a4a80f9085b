"""Key notation: how scenarios and tests write keys that are not plain text.

Text is typed as it is; a key name in angle brackets is one key. Names are
case-insensitive (``<enter>``, ``<c-C>``)::

    <Enter> (<Return>, <CR>)   carriage return, what the Enter key sends
    <NL>                       line feed
    <Tab>  <S-Tab>             tab, back-tab (ESC [ Z)
    <Esc> (<Escape>)           escape
    <Space>                    a space
    <BS> (<Backspace>)         DEL (0x7f), what the Backspace key sends
    <Delete> (<Del>) <Insert>  ESC [ 3 ~, ESC [ 2 ~
    <Up> <Down> <Right> <Left> ESC [ A/B/C/D (normal cursor-key mode)
    <Home> <End>               ESC [ H, ESC [ F
    <PageUp> <PageDown>        ESC [ 5 ~, ESC [ 6 ~
    <F1> ... <F12>             ESC O P ... ESC [ 24 ~ (xterm)
    <C-a> ... <C-z>            Ctrl with a letter: 0x01 ... 0x1a (<C-c> is 0x03)
    <C-@> <C-[> <C-\\> <C-]> <C-^> <C-_> <C-Space> <C-?>
                               the other control characters
    <M-x> or <A-x>             Alt (Meta) with a key: ESC, then the key
                               (<M-Enter>, <A-Up> work too)
    <lt>                       a literal "<"

Anything in angle brackets that is not a key name is typed literally, so
``if a <b> c`` and ``<Foo>`` stay text; there is no error for an unknown name.
Keys are sent as xterm sends them with the cursor keys in normal mode, which is
what programs expect unless they switch the keypad to application mode.
"""

from __future__ import annotations

import re

_NAMED: dict[str, str] = {
    "Enter": "\r", "Return": "\r", "CR": "\r", "NL": "\n", "Tab": "\t", "S-Tab": "\x1b[Z",
    "Esc": "\x1b", "Escape": "\x1b", "Space": " ", "BS": "\x7f", "Backspace": "\x7f",
    "Delete": "\x1b[3~", "Del": "\x1b[3~", "Insert": "\x1b[2~",
    "Up": "\x1b[A", "Down": "\x1b[B", "Right": "\x1b[C", "Left": "\x1b[D",
    "Home": "\x1b[H", "End": "\x1b[F", "PageUp": "\x1b[5~", "PageDown": "\x1b[6~", "lt": "<",
    "F1": "\x1bOP", "F2": "\x1bOQ", "F3": "\x1bOR", "F4": "\x1bOS", "F5": "\x1b[15~", "F6": "\x1b[17~",
    "F7": "\x1b[18~", "F8": "\x1b[19~", "F9": "\x1b[20~", "F10": "\x1b[21~", "F11": "\x1b[23~",
    "F12": "\x1b[24~",
}  # fmt: skip
_CTRL_OTHER = {"@": "\x00", "[": "\x1b", "\\": "\x1c", "]": "\x1d", "^": "\x1e", "_": "\x1f", "space": "\x00",
               "?": "\x7f"}  # fmt: skip
_KEYS = {name.lower(): seq for name, seq in _NAMED.items()}

KEY_NAMES: tuple[str, ...] = (
    *_NAMED,
    *(f"C-{c}" for c in "abcdefghijklmnopqrstuvwxyz"),
    *(f"C-{c}" for c in ("@", "[", "\\", "]", "^", "_", "Space", "?")),
)
"""Every key name without a modifier prefix (``M-``/``A-`` go in front of any of them, or of one character)."""

_TOKEN = re.compile(r"<([^<>\s]+)>")


def key_sequence(name: str) -> str | None:
    """The characters one key name sends, or None if it is not a key name."""
    lowered = name.lower()
    sequence = _KEYS.get(lowered)
    if sequence is not None:
        return sequence
    if len(name) > 2 and lowered[:2] == "c-":
        rest = lowered[2:]
        if len(rest) == 1 and "a" <= rest <= "z":
            return chr(ord(rest) - ord("a") + 1)
        return _CTRL_OTHER.get(rest)
    if len(name) > 2 and lowered[:2] in ("m-", "a-"):
        rest = name[2:]
        inner = rest if len(rest) == 1 else key_sequence(rest)
        return None if inner is None else "\x1b" + inner
    return None


def expand_keys(text: str) -> str:
    """Text with key names replaced by what the keys send."""

    def replace(match: re.Match[str]) -> str:
        sequence = key_sequence(match.group(1))
        return match.group(0) if sequence is None else sequence

    return _TOKEN.sub(replace, text)


def encode_keys(text: str) -> bytes:
    """The bytes to write to the pty for ``text`` in key notation (UTF-8)."""
    return expand_keys(text).encode("utf-8")


def split_keys(text: str) -> list[bytes]:
    """``text`` in key notation as the keys a person presses, each as the bytes it sends: a character, or
    an escape sequence whole (``<Up>``, ``<M-x>``, ``\x1b[1;5A``: a key that sends several bytes)."""
    chars = expand_keys(text)
    keys: list[bytes] = []
    i = 0
    while i < len(chars):
        size = _escape_size(chars, i) if chars[i] == "\x1b" else 1
        keys.append(chars[i : i + size].encode("utf-8"))
        i += size
    return keys


def _escape_size(chars: str, i: int) -> int:
    """How many characters the key starting with ESC at ``i`` sends: a CSI sequence to its final byte, SS3
    and its character, Alt with a character, or ESC alone."""
    following = chars[i + 1 : i + 2]
    if following == "[":
        end = i + 2
        while end < len(chars) and not "\x40" <= chars[end] <= "\x7e":
            end += 1
        return min(end + 1, len(chars)) - i
    if following == "O" and i + 2 < len(chars):
        return 3
    return 2 if following and following != "\x1b" else 1


# --------------------------------------------------------------------------- back to notation

_BY_SEQUENCE: dict[str, str] = {}
for _name in KEY_NAMES:
    _seq = key_sequence(_name)
    if (
        _seq is not None
        and _seq not in _BY_SEQUENCE
        and _name not in ("Return", "CR", "Escape", "Backspace", "Del")
    ):
        _BY_SEQUENCE[_seq] = _name
_BY_SEQUENCE["\x1b"] = "Esc"
_BY_SEQUENCE["\r"] = "Enter"
_BY_SEQUENCE["\x7f"] = "BS"
_BY_SEQUENCE[" "] = " "  # a space is typed as it is
_BY_SEQUENCE["\x1bOA"], _BY_SEQUENCE["\x1bOB"] = "Up", "Down"  # application cursor keys
_BY_SEQUENCE["\x1bOC"], _BY_SEQUENCE["\x1bOD"] = "Right", "Left"
_LONGEST = max(len(s) for s in _BY_SEQUENCE)
_ALT_NAMES = {"<": "lt", " ": "Space"}


def key_notation(data: str) -> str:
    """Bytes a person typed (decoded) in the scenario's key notation (``<Enter>``, ``<C-c>``, ``<lt>``)."""
    out: list[str] = []
    i = 0
    while i < len(data):
        following = data[i + 1 : i + 2]
        alt = f"<M-{_ALT_NAMES.get(following, following)}>"  # Alt with a key: ESC, then the key
        if (
            data[i] == "\x1b"
            and following.isprintable()
            and following
            and not _starts_sequence(data[i:])
            and encode_keys(alt) == data[i : i + 2].encode()  # keys the notation can name (not `>`)
        ):
            out.append(alt)
            i += 2
            continue
        for size in range(min(_LONGEST, len(data) - i), 0, -1):
            name = _BY_SEQUENCE.get(data[i : i + size])
            if name is not None and (size > 1 or not data[i].isprintable() or name == " "):
                out.append(name if name == " " else f"<{name}>")
                i += size
                break
        else:
            out.append("<lt>" if data[i] == "<" else data[i])
            i += 1
    return "".join(out)


def _starts_sequence(data: str) -> bool:
    """``data`` starts with a named key's escape sequence (longer than ESC alone)."""
    return any(len(seq) > 1 and data.startswith(seq) for seq in _BY_SEQUENCE)
