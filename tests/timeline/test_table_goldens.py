"""Golden tests of `workbench timeline` for the example scenarios.

Run with WORKBENCH_UPDATE_GOLDENS=1 to rewrite the goldens after an intended change,
then review the diff.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SCENARIOS

GOLDENS = Path(__file__).parent / "goldens"
EXAMPLES = sorted(p for p in SCENARIOS.glob("*") if p.suffix in (".yaml", ".json", ".toml"))
EXAMPLES += sorted(p for p in (SCENARIOS / "claudeless").glob("*") if p.suffix in (".yaml", ".json", ".toml"))


@pytest.mark.parametrize("scenario", EXAMPLES, ids=lambda p: p.relative_to(SCENARIOS).as_posix())
def test_timeline_table_matches_its_golden(scenario: Path) -> None:
    rel = scenario.relative_to(REPO)
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "timeline", str(rel)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    golden = GOLDENS / (scenario.relative_to(SCENARIOS).as_posix().replace("/", "__") + ".txt")
    if os.environ.get("WORKBENCH_UPDATE_GOLDENS") == "1":
        golden.write_text(done.stdout, encoding="utf-8")
    assert golden.exists(), f"no golden {golden.name}; run with WORKBENCH_UPDATE_GOLDENS=1 and review it"
    assert done.stdout == golden.read_text(encoding="utf-8")
