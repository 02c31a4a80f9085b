"""The stand-in ``$VISUAL``/``$EDITOR`` of a playbook run: pi's ``editor`` question on a terminal.

A program that wants multi-line text from its user (``git commit``, an agent's
"edit the plan" action) writes a file, starts the editor the environment names
with the file's path, and reads the file back once the editor exits. That call
is programmatic, so nothing is guessed from the screen: the playbook run names
this program as the agent's editor; it sends the file's path and text to the
playbook server (``$WORKBENCH_UI_EDITOR``), writes back the text
``mock_ui.editor`` gives (default empty, as pi's), and exits 0. The server
records the call as a ``ui`` event of kind ``editor``.

    python3 -m workbench.playbook.editor FILE
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from workbench.names import Env

TIMEOUT_S = 60.0


def script(python: str) -> str:
    """An executable file's text that runs this program (for programs that exec ``$EDITOR`` without a shell)."""
    return f"#!{python}\nfrom workbench.playbook.editor import main\nraise SystemExit(main())\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    files = [a for a in args if not a.startswith(("-", "+"))]  # `+LINE` and options as vi takes them
    url = os.environ.get(Env.UI_EDITOR)
    if not files or not url:
        print(
            "workbench editor: usage: EDITOR FILE (in a playbook run, with $WORKBENCH_UI_EDITOR)",
            file=sys.stderr,
        )
        return 2
    path = Path(files[-1])
    text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    body = json.dumps({"path": str(path), "text": text}).encode()
    request = urllib.request.Request(url, body, {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            answer = str(json.loads(response.read())["text"])
    except (urllib.error.URLError, OSError, ValueError, KeyError) as exc:
        print(f"workbench editor: cannot ask the playbook for {path}'s text: {exc}", file=sys.stderr)
        return 1
    path.write_text(answer, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
