"""`python3 -m workbench.playbook.smoke FILE.py`: run the playbook a file defines, as a smoke test.

The file defines ``playbook`` (a :class:`~workbench.playbook.Playbook`) and may
define ``command`` (the agent's argv, with `{base_url}` placeholders) or
``agent`` (a preset name); without either, the built-in mock agent plays it.
`workbench verify-install --smoke FILE.py` runs it with the installed package's
commands first on PATH, so the playbook's tool calls use what was published.
Exit 0 when it passed, 1 when it failed (every diagnostic printed), 2 when the
file is not a playbook file.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from workbench.playbook.dsl import Playbook


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python3 -m workbench.playbook.smoke FILE.py", file=sys.stderr)
        return 2
    path = Path(args[0])
    spec = importlib.util.spec_from_file_location("_wb_smoke_playbook", path)
    if spec is None or spec.loader is None:
        print(f"{path}: error: not a Python file", file=sys.stderr)
        return 2
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception:
        print(
            f"{path}: error: the file raised while it was loaded:\n{traceback.format_exc()}", file=sys.stderr
        )
        return 2
    playbook = getattr(module, "playbook", None)
    if not isinstance(playbook, Playbook):
        print(f"{path}: error: defines no `playbook = Playbook(...)`", file=sys.stderr)
        return 2
    from workbench.playbook.run import BUILT_IN, run_playbook

    command = getattr(module, "command", None)
    done = asyncio.run(run_playbook(playbook, agent=getattr(module, "agent", BUILT_IN), command=command))
    verdict = "passed" if done.passed else "failed"
    print(
        f"playbook {playbook.name}: {verdict} ({done.consumed} of {done.consumed + done.remaining} actions)"
    )
    if not done.passed:
        print(done.explain())
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
