"""The app starts fast: it loads no server (aiohttp, the ACP SDK) and no engine until a run needs one,
and the garbage collector does not scan start-up's objects."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
from pathlib import Path

import pytest

from tests.app.conftest import SIZE, settle
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


def test_the_collector_is_off_while_the_app_starts_and_on_after_its_first_frame(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import workbench.app
    from workbench.app.app import WorkbenchApp

    seen: dict[str, bool] = {}

    def run(app: WorkbenchApp, **kwargs: object) -> None:
        seen["while starting"] = gc.isenabled()

        async def body() -> None:
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                seen["after the first frame"] = gc.isenabled()

        asyncio.run(body())

    monkeypatch.setattr(WorkbenchApp, "run", run)
    try:
        assert workbench.app.main(work / "scenarios" / "hello-agent.yaml", goldens_dir=work / "goldens") == 0
    finally:
        gc.enable()
    assert seen == {"while starting": False, "after the first frame": True}
