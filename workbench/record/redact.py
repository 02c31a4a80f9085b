"""Secrets never reach disk: every file a recording writes goes through a :class:`Redactor`.

What counts as a secret is decided by structure, not by a list of vendors: the
value of every environment variable whose name says it holds a credential (a
word such as ``KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``, ``CREDENTIAL`` or
``AUTH`` in it), and every credential the agent or the proxy put in a request
(the ``Authorization``, ``x-api-key``, ``api-key``, ``x-goog-api-key``,
``Cookie`` and ``Proxy-Authorization`` headers, Google's ``?key=`` query
parameter). Each occurrence of such a value, anywhere in a text, becomes
``<redacted>``. Values shorter than :data:`MIN_SECRET` characters are not
treated as secrets (``TOKEN_LIMIT=8`` is not one): replacing every ``8`` would
wreck the recording and protect nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "<redacted>"
MIN_SECRET = 8
SECRET_NAME = re.compile(
    r"(?i)(?:^|_|-)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)(?:$|_|-)"
)
CREDENTIAL_HEADERS = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "cookie",
)
_SCHEME = re.compile(r"(?i)^(?:bearer|basic|token)\s+")


def secret_names(environ: Mapping[str, str]) -> list[str]:
    """The environment variables whose name says they hold a credential."""
    return sorted(name for name in environ if SECRET_NAME.search(name))


class Redactor:
    """Knows the secrets of one recording and blanks them out of anything written."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        if environ is not None:
            self.add(environ[name] for name in secret_names(environ))

    def add(self, values: Iterable[str]) -> None:
        grew = False
        for value in values:
            value = value.strip()
            if len(value) >= MIN_SECRET and value not in self._secrets:
                self._secrets.add(value)
                grew = True
        if grew:
            ordered = sorted(self._secrets, key=len, reverse=True)  # a key that contains another goes first
            self._pattern = re.compile("|".join(re.escape(s) for s in ordered))

    def add_headers(self, headers: Mapping[str, str]) -> None:
        """Learn the credentials a request carries (the whole value, and the token after its scheme)."""
        for name, value in headers.items():
            if name.lower() in CREDENTIAL_HEADERS:
                self.add((value, _SCHEME.sub("", value)))

    def text(self, text: str) -> str:
        return text if self._pattern is None else self._pattern.sub(REDACTED, text)

    def data(self, value: Any) -> Any:
        """A JSON-like value with every string (keys too) redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(v) for v in value]
        return value

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """Headers as they may be written: credential headers blanked whatever their value."""
        return {
            k: (REDACTED if k.lower() in CREDENTIAL_HEADERS else self.text(v)) for k, v in headers.items()
        }
