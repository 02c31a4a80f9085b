"""The tokenizer of terminal output: one compiled regular expression.

pyte's parser is a generator that takes one character at a time, which caps it
at well under 1 MB/s. Here :data:`TOKEN` splits the text into runs of printable
characters and whole control sequences in C, and the screen's loop dispatches
on which group matched (``match.lastindex``). The most frequent shapes get
their own groups so they cost one iteration: a run of text, SGR sequences
together with the text after them, CR LF, a cursor position.

A sequence cut by the end of a read is not lost: when nothing but a lone ESC
matches, :data:`INCOMPLETE` tells whether the rest of the input could still
become a sequence; the screen then keeps that tail and parses it with the next
read, so any split of a stream gives the same screen as the whole stream (a
property test checks it).
"""

from __future__ import annotations

import re

from workbench.digits import is_digits

PRINTABLE = r"[ -~\xa0-\U0010ffff]"  # not C0, DEL or C1; positive ranges match faster than a negated class

TOKEN = re.compile(
    rf"({PRINTABLE}+)"  # 1: text
    rf"|((?:\x1b\[[0-9;:]*m)+)({PRINTABLE}*)"  # 2, 3: SGR sequences and the text after them
    r"|(\r\n|[\x00-\x1a\x1c-\x1f\x7f-\x9f])"  # 4: one control character (or CR LF)
    r"|\x1b\[([0-9]*);?([0-9]*)H"  # 5, 6: cursor position
    r"|\x1b\[([0-?]*)([ -/]*)([@-~])"  # 7, 8, 9: any other CSI: parameters, intermediates, final
    r"|\x1b\]([^\x07\x1b]*)(\x07|\x1b\\)"  # 10, 11: OSC, ended by BEL or ST
    r"|\x1b([PX^_])[^\x1b]*\x1b\\"  # 12: DCS, SOS, PM, APC (ignored)
    r"|\x1b([ -/]*)([0-OQ-WYZ\\`-~])"  # 13, 14: other escape sequences: intermediates, final
    r"|(\x1b)"  # 15: an ESC that starts nothing we know (yet)
)

TEXT, SGR, SGR_TEXT, CONTROL, CUP_ROW, CUP_COL = 1, 2, 3, 4, 5, 6
CSI_PARAMS, CSI_INTER, CSI_FINAL, OSC, OSC_END, STRING, ESC_INTER, ESC_FINAL, LONE_ESC = range(7, 16)

INCOMPLETE = re.compile(
    r"\x1b(?:"
    r"\[[0-?]*[ -/]*"  # CSI without its final byte
    r"|\][^\x07\x1b]*\x1b?"  # OSC without its terminator
    r"|[PX^_][^\x1b]*\x1b?"  # DCS and friends without ST
    r"|[ -/]*"  # ESC and intermediates
    r")\Z"
)
"""An input tail that is the beginning of a sequence: keep it for the next read."""

FAST = re.compile(
    rf"((?:\x1b\[[0-9;:]*+m)++|(?={PRINTABLE}))({PRINTABLE}*+)(\r\n)?"  # 0, 1, 2: SGR sequences, text, CR LF
    r"|(\r\n|[\x00-\x1a\x1c-\x1f\x7f-\x9f]"  # 3: one control character (or CR LF), or any other sequence:
    r"|\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-OQ-WYZ\\`-~])"  # CSI, OSC, ESC
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b\][^\x1b]*|\x1b"  # ignored: DCS, SOS, PM, APC, broken strings, lone ESC
)
"""The tokenizer of :func:`~.fastpath.feed_tokens`, for ``findall``: four groups per token.

Its shapes are those of :data:`TOKEN` with the frequent one merged (SGR
sequences, then text, then CR LF is one token, in which the SGR sequences or
the text may be missing but not both; possessive, as nothing after them could
match what they gave back) and all others in one group (3), a control
character or a whole sequence, which the loop tells apart by its first
character and :data:`TOKEN` parses again. Few groups make ``findall`` cheap:
it builds a tuple of every group for every token. Unmatched groups are ``""``.
Only whole sequences are tokens: :func:`incomplete_tail` cuts an unfinished one
off the input first. What is ignored matches no group: a string (DCS, SOS, PM,
APC), a string broken by an ESC that is not its terminator (dropped up to that
ESC), an ESC that starts nothing known.
"""

CUP = re.compile(r"\x1b\[([0-9]*);?([0-9]*)H")
"""A cursor position (CUP), as :data:`TOKEN`'s groups 5 and 6 take it: the fast path's most frequent sequence."""


def incomplete_tail(data: str) -> int:
    """Where ``data`` ends in the beginning of a sequence (to keep for the next read), or -1.

    Such a tail starts at the last ESC, or at the one before when ``data``
    ends in an ESC that may begin a string's terminator: :data:`INCOMPLETE`
    has no other ESC in it.
    """
    last = data.rfind("\x1b")
    if last < 0:
        return -1
    if last == len(data) - 1:
        before = data.rfind("\x1b", 0, last)
        if before >= 0 and INCOMPLETE.match(data, before):
            return before
    return last if INCOMPLETE.match(data, last) else -1


MAX_PENDING = 65536
"""A sequence still unfinished after this many characters is dropped, never buffered without bound."""


def numbers(params: str, limit: int = 9999) -> list[int]:
    """CSI parameters as pyte passes them: missing ones are 0, sub-parameters dropped, capped at ``limit``."""
    out = []
    for part in params.split(";"):
        head = part.split(":", 1)[0]
        out.append(min(int(head), limit) if is_digits(head) else 0)
    return out
