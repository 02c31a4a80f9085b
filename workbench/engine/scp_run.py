"""`workbench run` on an SCP-style scenario folder: its Python user script against its ACP agent.

Such a folder has no timeline to walk, no terminal and no goldens: the script is
the test. The run gets a run folder (``acp-<runner>.jsonl`` per runner) and a
fresh workspace (the agent's cwd; kept when the run fails), and each failure of
the script becomes a report failure at its line in ``mock_user.py``.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from workbench.acp.folder import run_folder
from workbench.engine.options import RunOptions
from workbench.engine.report import Failure, ScenarioResult
from workbench.scenario import model as m
from workbench.workspace import Workspace


async def run_scp_scenario(
    path: Path, scenario: m.Scenario, options: RunOptions, result: ScenarioResult
) -> None:
    result.mode = "acp"
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    run_dir = options.out_dir / scenario.name / "acp" / f"{stamp}-{os.getpid()}"
    run_dir.mkdir(parents=True, exist_ok=True)
    result.run_dir = str(run_dir)
    workspace = Workspace.create(path, None, keep=options.keep)
    try:
        settings = dict(scenario.extra.get("scp") or {})
        settings["timeout"] = min(float(settings.get("timeout", 60)), options.timeout_s)
        for f in await run_folder(path, run_dir, workspace.path, settings):
            where = f"[{f.runner}] " if f.runner != "-" else ""
            result.fail(Failure(0, f.line, f.kind, where + f.message, f.file))  # type: ignore[arg-type]
    finally:
        if result.status != "passed":
            workspace.keep_for_failure()
        kept = workspace.close()
        result.kept_workspace = str(kept) if kept else None
