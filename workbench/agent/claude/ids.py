"""Random ids in Claude Code's shapes, from ``os.urandom`` (the ``uuid`` and ``secrets`` modules cost
the shim more to import than its whole answer takes to compute)."""

from __future__ import annotations

import os

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def uuid4() -> str:
    """A random (version 4) UUID in its canonical text form."""
    b = bytearray(os.urandom(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def token(n: int) -> str:
    """``n`` random letters and digits (the tail of Anthropic's message and tool-use ids)."""
    return "".join(_ALPHABET[b % 62] for b in os.urandom(n))


def message_id() -> str:
    return "msg_01" + token(22)


def tool_use_id() -> str:
    return "toolu_01" + token(22)


def request_id() -> str:
    return "req_01" + token(22)
