"""The app starts fast: opening it loads no server (aiohttp, the ACP SDK) and no engine until a run needs one."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

LATER = {
    "aiohttp", "acp", "httpx", "selenium", "watchfiles",  # servers, the browser test, the file watcher
    "workbench.engine.runner", "workbench.engine.drivers",  # the engine: loaded by the first run
}  # fmt: skip


def test_the_app_loads_no_server_library_and_no_engine_at_start() -> None:
    code = (
        "import sys\nfrom workbench.app.app import WorkbenchApp\n"
        f"print(sorted(m for m in sys.modules if m in {sorted(LATER)!r} or m.split('.')[0] in {sorted(LATER)!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
