"""Ids in the shapes the real APIs use, from a seeded generator.

Agents and SDKs rarely parse ids, but some check prefixes (`toolu_` for
Anthropic tool uses, `call_` for OpenAI calls, `fc_` / `rs_` / `msg_` items in
the Responses API) and log them. Ids come from a per-session seeded generator,
so a replayed run produces the same ids and request logs can be diffed.
"""

from __future__ import annotations

import random
import zlib

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_HEX = "0123456789abcdef"


class IdMaker:
    """Makes ids for one session; ``seed`` is usually the session key."""

    def __init__(self, seed: str = "") -> None:
        self._rng = random.Random(zlib.crc32(seed.encode("utf-8", "surrogatepass")))

    def _chars(self, alphabet: str, n: int) -> str:
        return "".join(self._rng.choice(alphabet) for _ in range(n))

    # Anthropic: msg_01 + 22 base62 characters, toolu_01 + 22, req_011C + 20.
    def anthropic_message(self) -> str:
        return "msg_01" + self._chars(_BASE62, 22)

    def tool_use(self) -> str:
        return "toolu_01" + self._chars(_BASE62, 22)

    # OpenAI: chatcmpl- + 29 base62, call_ + 24 base62, resp_/msg_/fc_/rs_ + 48 hex.
    def chat_completion(self) -> str:
        return "chatcmpl-" + self._chars(_BASE62, 29)

    def call(self) -> str:
        return "call_" + self._chars(_BASE62, 24)

    def item(self, prefix: str) -> str:
        return f"{prefix}_" + self._chars(_HEX, 48)

    def opaque(self, n: int = 64) -> str:
        """A base64-looking blob, for thinking signatures and encrypted reasoning."""
        return self._chars(_BASE62 + "+/", n)
