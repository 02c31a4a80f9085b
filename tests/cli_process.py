"""The real CLI as a process, for the end-to-end tests, and the JSON report it writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def workbench(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """The real CLI; workspaces (kept when a scenario fails) go to the test's own temp folder."""
    tmp = cwd / ".tmp"
    tmp.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        cwd=cwd, capture_output=True, text=True, check=False, timeout=timeout,
        env={**os.environ, "TMPDIR": str(tmp), **(env or {})},
    )  # fmt: skip


def report_of(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text())
