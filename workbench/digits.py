"""Decimal numbers as files, protocols and environment variables write them: ASCII digits only.

``str.isdigit`` is also true of ``²`` and ``٣``, which ``int`` refuses (``²``) or reads as a number
(``٣`` is 3): a check with it let a superscript in a URL, a header, a JSON pointer or an environment
variable through to ``int``, and a 500 or a crash (exit 3) came back where a clear refusal belonged.
It imports nothing, so every layer may use it.
"""

from __future__ import annotations


def is_digits(text: str) -> bool:
    """Whether ``text`` is one or more of 0-9 (``int(text)`` then reads it, as a decimal number)."""
    return text.isascii() and text.isdigit()
