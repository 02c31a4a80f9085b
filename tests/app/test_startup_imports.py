"""The app starts fast: opening it loads no server (aiohttp, the ACP SDK) until a run needs one."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_the_app_loads_no_server_library_at_start() -> None:
    code = (
        "import sys\nfrom workbench.app.app import WorkbenchApp\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'aiohttp', 'acp', 'httpx', 'selenium'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
