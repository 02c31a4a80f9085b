"""RFC 6901 JSON pointers, for `assert.json.file`.

A pointer is ``""`` (the whole document) or a sequence of ``/token``; in a
token ``~1`` stands for `/` and ``~0`` for `~` (decoded in that order). A list
index is a decimal without leading zeros; ``-`` (one past the end) never names
a value. Every failure says which token failed and why, so an assertion's
message can show it.
"""

from __future__ import annotations

import json
from typing import Any

from workbench.digits import is_digits


def json_pointer(document: Any, pointer: str) -> Any:
    """The value ``pointer`` names in ``document``; LookupError when there is none."""
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        raise LookupError(f"the pointer {pointer!r} must be empty or start with `/`")
    value = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list):
            if not is_digits(token) or (len(token) > 1 and token[0] == "0"):
                raise LookupError(f"{token!r} is not an index into a list of {len(value)}")
            if int(token) >= len(value):
                raise LookupError(f"no item {token} in a list of {len(value)}")
            value = value[int(token)]
        elif isinstance(value, dict):
            if token not in value:
                raise LookupError(f"no key {token!r} (keys: {', '.join(map(repr, value)) or 'none'})")
            value = value[token]
        else:
            raise LookupError(f"cannot look up {token!r} in {json.dumps(value)}")
    return value
