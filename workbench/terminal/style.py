"""Cell styles (colours and attributes) and the SGR sequences that change them.

A :class:`Style` is immutable and interned: equal styles are usually the same
object, so a row keeps one reference per cell and drawing a run of text costs
one list operation however many attributes are set. Each style also remembers
where each SGR string it has seen leads (:meth:`Style.after`), so the hot path
of a colourful stream is one comparison (a style's first transition) or one
dictionary lookup per SGR sequence.

Colours use pyte's names, so our cells compare equal to stock pyte's wherever
pyte is right: ``default``, the eight names ``black red green brown blue
magenta cyan white`` (``brown`` is yellow), their ``bright`` forms, and six hex
digits for 256-colour and truecolor values (``ff8700``).

SGR parsing fixes what pyte gets wrong: colon sub-parameters (``38:2::r:g:b``,
``38:2:r:g:b``, ``38:5:n``, ``4:3``), the dim attribute (2, cleared by 22),
underline styles (``4:1``..``4:5`` underline, ``4:0`` and 24 do not), double
underline (21), and parameters pyte does not know are skipped without
disturbing the ones after them.
"""

from __future__ import annotations

import re
from typing import Any

from pyte import graphics

from workbench.digits import is_digits

FIELDS = ("fg", "bg", "bold", "dim", "italics", "underscore", "strikethrough", "reverse", "blink")
_INTERN_LIMIT = 32768
_TRANSITIONS_LIMIT = 256
_NO_TRANSITIONS: dict[str, Style] = {}  # shared and never written: styles start without transitions


class Style:
    """Colours and attributes of a cell (its character lives apart)."""

    __slots__ = (
        "_hash",
        "_next",
        "_sgr",
        "_to",
        "bg",
        "blink",
        "bold",
        "dim",
        "fg",
        "flags",
        "italics",
        "key",
        "reverse",
        "strikethrough",
        "underscore",
    )

    fg: str
    bg: str
    bold: bool
    dim: bool
    italics: bool
    underscore: bool
    strikethrough: bool
    reverse: bool
    blink: bool
    key: tuple[Any, ...]
    """The field values in :data:`FIELDS` order (an attribute: readers of whole screens compare them)."""
    flags: tuple[str, ...]
    """The names of the attributes that are on, in :data:`FIELDS` order (every snapshot's style runs list them)."""

    _sgr: str
    """The SGR string of this style's first transition, and ``_to`` where it leads: in the style itself.

    A redraw with many colours (a full-screen TUI's, 17,671 distinct SGR strings in the benchmark) goes
    through thousands of styles, each mostly followed by the same SGR string; comparing it here costs
    two memory loads where the :attr:`_next` dictionary costs five (the dict, its table, its entry, the
    key, the value), which on a cold cache is 12 % of such a stream.
    """
    _to: Style

    def __init__(self, key: tuple[Any, ...]) -> None:
        (self.fg, self.bg, self.bold, self.dim, self.italics, self.underscore, self.strikethrough,
         self.reverse, self.blink) = key  # fmt: skip
        self.key = key
        self.flags = tuple(name for name, value in zip(FIELDS, key, strict=True) if value is True)
        self._hash = hash(key)
        self._next: dict[str, Style] = _NO_TRANSITIONS  # a dict of its own once it has one
        self._sgr, self._to = "", self  # no transition yet ("" is never an SGR string)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Style) and self.key == other.key)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.as_dict().items())
        return f"Style({shown})"

    def as_dict(self) -> dict[str, Any]:
        """The fields that differ from the default style."""
        return {name: value for name, value, base in zip(FIELDS, self.key, _DEFAULT_KEY, strict=True)
                if value != base}  # fmt: skip

    def replace(self, **changes: Any) -> Style:
        """This style with some fields changed (interned)."""
        values = dict(zip(FIELDS, self.key, strict=True))
        values.update(changes)
        return make_style(tuple(values[name] for name in FIELDS))

    def after(self, sgr: str) -> Style:
        """The style after one or more SGR sequences (``"\\x1b[1;31m\\x1b[4m"``); cached per style."""
        nxt = self._next.get(sgr)
        if nxt is None:
            if self._next is _NO_TRANSITIONS or len(self._next) >= _TRANSITIONS_LIMIT:
                self._next = {}
            nxt = self._next[sgr] = _apply(self, sgr)
            if not self._sgr:
                self._sgr, self._to = sgr, nxt
        return nxt


_DEFAULT_KEY: tuple[Any, ...] = ("default", "default", False, False, False, False, False, False, False)
_INTERNED: dict[tuple[Any, ...], Style] = {}


def make_style(key: tuple[Any, ...]) -> Style:
    """The interned style with these field values (the table is bounded; equality never depends on it)."""
    style = _INTERNED.get(key)
    if style is None:
        if len(_INTERNED) >= _INTERN_LIMIT:
            # Forget the styles and the transitions between them (which would otherwise keep every style
            # ever seen alive, each leading to the next); styles still on the screen live on as values.
            for known in _INTERNED.values():
                known._next = _NO_TRANSITIONS
                known._sgr, known._to = "", known
            _INTERNED.clear()
            _INTERNED[_DEFAULT_KEY] = DEFAULT
        style = _INTERNED[key] = Style(key)
    return style


DEFAULT = make_style(_DEFAULT_KEY)
"""Default colours, no attributes."""

_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
_FG, _BG = 0, 1
_FLAG = {name: i for i, name in enumerate(FIELDS)}
_SIMPLE: dict[int, tuple[tuple[int, bool], ...]] = {
    1: ((_FLAG["bold"], True),),
    2: ((_FLAG["dim"], True),),
    3: ((_FLAG["italics"], True),),
    4: ((_FLAG["underscore"], True),),
    5: ((_FLAG["blink"], True),),
    6: ((_FLAG["blink"], True),),
    7: ((_FLAG["reverse"], True),),
    9: ((_FLAG["strikethrough"], True),),
    21: ((_FLAG["underscore"], True),),
    22: ((_FLAG["bold"], False), (_FLAG["dim"], False)),
    23: ((_FLAG["italics"], False),),
    24: ((_FLAG["underscore"], False),),
    25: ((_FLAG["blink"], False),),
    27: ((_FLAG["reverse"], False),),
    29: ((_FLAG["strikethrough"], False),),
}


_UNSET = object()
_DELTAS: dict[str, tuple[tuple[Any, ...] | None, tuple[tuple[int, Any], ...]]] = {}


def _delta(sgr: str) -> tuple[tuple[Any, ...] | None, tuple[tuple[int, Any], ...]]:
    """What an SGR string does whatever the style before it: (the whole new key if it resets, else None; changes)."""
    values: list[Any] = [_UNSET] * len(FIELDS)
    for params in _SGR.findall(sgr):
        apply_params(values, params)
    if _UNSET not in values:
        return tuple(values), ()
    return None, tuple((i, v) for i, v in enumerate(values) if v is not _UNSET)


def _apply(style: Style, sgr: str) -> Style:
    """The style after ``sgr``; its parse is cached apart from the style, so a new style costs no parsing."""
    delta = _DELTAS.get(sgr)
    if delta is None:
        if len(_DELTAS) >= 4096:
            _DELTAS.clear()
        delta = _DELTAS[sgr] = _delta(sgr)
    whole, changes = delta
    if whole is not None:
        return make_style(whole)
    values = list(style.key)
    for index, value in changes:
        values[index] = value
    return make_style(tuple(values))


def apply_params(values: list[Any], params: str) -> None:
    """Apply one SGR parameter string (``"1;38;5;208"``) to a list of field values, in place."""
    tokens = params.split(";")
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        i += 1
        if ":" in token:
            _apply_colon(values, token)
            continue
        code = int(token) if token else 0
        if code == 0:
            values[:] = _DEFAULT_KEY
        elif code in _SIMPLE:
            for index, flag in _SIMPLE[code]:
                values[index] = flag
        elif 30 <= code <= 37 or code == 39:
            values[_FG] = graphics.FG_ANSI[code]
        elif 40 <= code <= 47 or code == 49:
            values[_BG] = graphics.BG_ANSI[code]
        elif 90 <= code <= 97:
            values[_FG] = graphics.FG_AIXTERM[code]
        elif 100 <= code <= 107:
            values[_BG] = graphics.BG_AIXTERM[code]
        elif code in (38, 48, 58):
            colour, used = _extended(tokens, i)
            i += used
            if colour is not None and code != 58:  # 58: underline colour, not kept
                values[_FG if code == 38 else _BG] = colour


def _extended(tokens: list[str], i: int) -> tuple[str | None, int]:
    """``5;n`` or ``2;r;g;b`` after a 38/48/58: (the colour, how many parameters it used)."""
    if i >= len(tokens):
        return None, 0
    kind = tokens[i]
    if kind == "5" and i + 1 < len(tokens):
        return _colour_256(tokens[i + 1]), 2
    if kind == "2" and i + 3 < len(tokens):
        return _rgb(tokens[i + 1 : i + 4]), 4
    return None, len(tokens) - i  # malformed: xterm drops the rest of the sequence


def _apply_colon(values: list[Any], token: str) -> None:
    subs = token.split(":")
    head = subs[0]
    if head in ("38", "48", "58"):
        colour = None
        if len(subs) >= 3 and subs[1] == "5":
            colour = _colour_256(subs[2])
        elif len(subs) >= 5 and subs[1] == "2":
            colour = _rgb(subs[-3:])  # 38:2:r:g:b and 38:2:<colourspace>:r:g:b
        if colour is not None and head != "58":
            values[_FG if head == "38" else _BG] = colour
    elif head == "4":
        values[_FLAG["underscore"]] = subs[1] not in ("", "0") if len(subs) > 1 else True


def _colour_256(token: str) -> str | None:
    if not is_digits(token):
        return None
    n = int(token)
    return str(graphics.FG_BG_256[n]) if n < 256 else None


def _rgb(parts: list[str]) -> str | None:
    if not all(is_digits(p) or p == "" for p in parts):
        return None
    return "".join(f"{min(int(p or 0), 255):02x}" for p in parts)
