"""`workbench report merge --html DIR`: one HTML report from the HTML reports of sharded runs.

Each shard's report is read back (:func:`read_report_dir`), its screens are
stored again in one shared store (a screen two shards share is stored once),
and the scenarios are ordered as one run would order them: failures first,
then by file and name. Scenarios that came from a JSON report get the run
folder found beside their screenshots, as `report html` finds it, or a page with
their entry alone. That two shards ran the same scenario is
found by `report merge` before anything is written (see
:mod:`workbench.engine.merge`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.report.collect import ScenarioInput, scenario_page, summary_row
from workbench.report.screens import ScreenStore
from workbench.report.write import Built, status_rank, summary_of

SHOT_SIDES = ("golden", "actual", "golden_marked", "actual_marked")


def _moved(page: dict[str, Any], move: Any) -> dict[str, Any]:
    """``page`` with every screen id passed through ``move`` (old id -> new id)."""
    page = dict(page)
    page["steps"] = [
        {**s, "screen": move(s["screen"]), "changes": move(s.get("changes"))} for s in page.get("steps", [])
    ]
    page["shots"] = [{**s, **{k: move(s.get(k)) for k in SHOT_SIDES}} for s in page.get("shots", [])]
    if page.get("cast"):
        page["cast"] = {**page["cast"], "frames": [[t, move(i)] for t, i in page["cast"]["frames"]]}
    return page


def merge_built(
    reports: Sequence[Built], items: Sequence[ScenarioInput] = (), *, duration_ms: int = 0
) -> Built:
    """One report of every scenario of ``reports`` plus ``items`` (from JSON reports, see :func:`gather`)."""
    store = ScreenStore()
    parts: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for built in reports:
        old = built.screens

        def move(screen: Any, old: dict[str, Any] = old) -> Any:
            if screen is None:
                return None
            return store.add_rows([old["rows"][r] for r in old["screens"][screen]])

        for row, page in zip(built.summary["scenarios"], built.pages, strict=True):
            parts.append((row, _moved(page, move)))
    for item in items:
        parts.append((summary_row(0, item), scenario_page(item, store)))
    parts.sort(
        key=lambda p: (
            status_rank(str(p[0]["status"])),
            str(p[0]["file"]),
            str(p[0]["name"]),
            str(p[0]["agent"]),
        )
    )
    rows = [{**row, "id": n} for n, (row, _) in enumerate(parts)]
    title = reports[0].summary.get("title", "Scenario Workbench") if reports else "Scenario Workbench"
    return Built(summary_of(rows, duration_ms, title), [page for _, page in parts], store.to_json())


def is_html_report(path: Path) -> bool:
    from workbench.report.write import is_report_dir

    return path.is_dir() and is_report_dir(path)
