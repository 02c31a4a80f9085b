"""The cross-agent matrix: every scenario under every agent (`run --agent a,b,c`).

One scenario written once drives any agent through the mock LLM server; the
matrix makes that visible. ``--agent`` takes a comma-separated list; each
(scenario, agent) pair is one run with that agent (:func:`expand`), spread over
``-j`` processes like any run and over CI machines by ``--shard`` (the shard
takes scenarios, each with all its agents; `report merge` joins them). An agent
that is not installed (not in ``$WORKBENCH_AGENTS``, not on ``PATH``) is a
skipped pair whose reason is its install line.

Each result carries its agent (``agent`` in the JSON entry, the JUnit test
case's name ``<scenario> [<agent>]``), and the report has the matrix itself:
scenario x agent, passed / failed with the first failure (:func:`matrix_json`,
and :func:`matrix_table` for the console).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from workbench.engine.report import ScenarioResult


def agent_list(value: str | None) -> list[str]:
    """The agents of ``--agent a,b,c`` in order, each once (empty: none given)."""
    if not value:
        return []
    return list(dict.fromkeys(a.strip() for a in value.split(",") if a.strip()))


def with_agent(options: Any, agent: str) -> Any:
    """Run options that play ``agent`` (the mode's ``agent`` option), with goldens of its own
    (``<goldens>/<agent>/``: each agent draws its own screen)."""
    return replace(options, mode_options={**options.mode_options, "agent": agent},
                   goldens_dir=options.goldens_dir / agent)  # fmt: skip


def missing(agent: str) -> str | None:
    """Why ``agent`` cannot run here (not installed: its install line), or None."""
    from workbench.llm.agents import AGENTS, find_program

    preset = AGENTS.get(agent)
    if preset is None or find_program(preset.program) is not None:
        return None
    return f"{agent} is not installed: `{preset.install_hint()}` (or list npm prefixes in WORKBENCH_AGENTS)"


def skipped(name: str, file: str, mode: str, agent: str, reason: str) -> ScenarioResult:
    return ScenarioResult(name=name, file=file, mode=mode, status="skipped", skip_reason=reason, agent=agent)


def first_failure(result: ScenarioResult) -> str:
    if not result.failures:
        return ""
    f = result.failures[0]
    return f"{f.file or result.file}:{f.line}: {f.kind}: {f.message}"


def _cells(
    results: Iterable[ScenarioResult],
) -> tuple[list[str], dict[tuple[str, str], dict[str, ScenarioResult]]]:
    agents: list[str] = []
    rows: dict[tuple[str, str], dict[str, ScenarioResult]] = {}
    for r in results:
        if not r.agent:
            continue
        if r.agent not in agents:
            agents.append(r.agent)
        rows.setdefault((r.file, r.name), {})[r.agent] = r
    return agents, rows


def matrix_json(results: Sequence[ScenarioResult]) -> dict[str, Any] | None:
    """``{"agents": [...], "rows": [{"file", "name", "cells": {agent: {"status", "first_failure"?, "reason"?}}}]}``,
    or None when no result was played by a named agent of a matrix."""
    agents, rows = _cells(results)
    if not agents:
        return None
    out = []
    for (file, name), by_agent in rows.items():
        cells: dict[str, Any] = {}
        for agent, r in by_agent.items():
            cell: dict[str, Any] = {"status": r.status}
            if r.status in ("failed", "error") and r.failures:
                cell["first_failure"] = first_failure(r)
            if r.status == "skipped" and r.skip_reason:
                cell["reason"] = r.skip_reason
            cells[agent] = cell
        out.append({"file": file, "name": name, "cells": cells})
    return {"agents": agents, "rows": out}


def matrix_table(results: Sequence[ScenarioResult]) -> str:
    """The matrix for the console: one row per scenario, one column per agent, then each cell's first failure."""
    agents, rows = _cells(results)
    if not agents:
        return ""
    names = [name for _, name in rows]
    width = max(len("scenario"), *(len(n) for n in names))
    cols = [max(len(a), 7) for a in agents]
    lines = ["== matrix (scenario x agent) ==",
             "  ".join(["scenario".ljust(width), *(a.ljust(c) for a, c in zip(agents, cols, strict=True))]).rstrip()]  # fmt: skip
    notes: list[str] = []
    for (_, name), by_agent in rows.items():
        cells = []
        for agent, col in zip(agents, cols, strict=True):
            r = by_agent.get(agent)
            status = r.status if r is not None else "-"
            cells.append(status.ljust(col))
            if r is not None and r.status in ("failed", "error"):
                notes.append(f"  {name} [{agent}]: {first_failure(r)}")
            elif r is not None and r.status == "skipped" and r.skip_reason:
                notes.append(f"  {name} [{agent}]: skipped: {r.skip_reason}")
        lines.append("  ".join([name.ljust(width), *cells]).rstrip())
    return "\n".join(lines + list(dict.fromkeys(notes))) + "\n"
