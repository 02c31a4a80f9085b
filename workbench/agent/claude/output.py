"""The three output formats of Claude Code's print mode.

* ``text``: the result text and a newline (an API error's text too: Claude Code
  prints it on stdout and exits 1).
* ``json``: the result message alone; with ``--verbose``, a JSON array of every
  message (``init`` through ``result``), as Claude Code does.
* ``stream-json`` (``--verbose`` required): one message per line as it happens.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO


def dump(msg: dict[str, Any]) -> str:
    return json.dumps(msg, ensure_ascii=False, separators=(",", ":"))


def write(
    out: TextIO, fmt: str, verbose: bool, msgs: Iterable[dict[str, Any]], result: dict[str, Any]
) -> None:
    if fmt == "stream-json":
        for msg in msgs:
            out.write(dump(msg) + "\n")
            out.flush()
        out.write(dump(result) + "\n")
    elif fmt == "json":
        if verbose:
            out.write("[" + ",".join(dump(m) for m in [*msgs, result]) + "]\n")
        else:
            for _ in msgs:
                pass
            out.write(dump(result) + "\n")
    else:
        for _ in msgs:
            pass
        if "result" in result:
            out.write(str(result["result"]) + "\n")
        else:  # error_max_turns has no result text
            out.write(f"Error: Reached max turns ({result['num_turns']})\n")
    out.flush()
