"""`notebookEdit`: edit a real Jupyter notebook (.ipynb, nbformat 4) cell by cell.

``edit_mode`` ``replace`` (default) sets a cell's source (and ``cell_type`` when
given), ``insert`` adds a cell after ``cell_id`` (at the top without one), and
``delete`` removes it. ``cell_id`` is a cell's ``id``, else its 0-based index
(``"3"`` or ``"cell-3"``). As in Claude Code, replacing a code cell's source
clears its outputs and execution count: they belonged to the old source. New
cells get an id only when the notebook's format has ids (4.5 and later).
The notebook is written back with Jupyter's one-space indentation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .base import Json, ToolContext, ToolError, ToolOutcome, arg, path_arg

MODES = ("replace", "insert", "delete")


def _index(cells: list[dict[str, Any]], cell_id: Json) -> int | None:
    if cell_id is None:
        return None
    found = next((i for i, c in enumerate(cells) if c.get("id") == cell_id), None)
    if found is not None:
        return found
    match = re.fullmatch(r"(?:cell-)?(\d+)", str(cell_id))
    return int(match.group(1)) if match else None


def _set_type(cell: dict[str, Any], cell_type: str) -> None:
    cell["cell_type"] = cell_type
    if cell_type == "code":
        cell.setdefault("outputs", [])
        cell.setdefault("execution_count", None)
    else:
        cell.pop("outputs", None)
        cell.pop("execution_count", None)


def _new_id(cells: list[dict[str, Any]]) -> str:
    taken = {c.get("id") for c in cells}
    n = len(cells) + 1
    while f"cell-{n}" in taken:
        n += 1
    return f"cell-{n}"


def notebook_edit(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    rel, path = path_arg(args, ctx, "notebook_path", "path", "file_path")
    mode = str(arg(args, "edit_mode", default="replace"))
    if mode not in MODES:
        raise ToolError(f"edit_mode `{mode}` is not one of {', '.join(MODES)}")
    if not path.is_file():
        raise ToolError(f"notebook not found: {rel}")
    try:
        notebook = json.loads(ctx.workspace.read_text(path))
        cells: list[dict[str, Any]] = notebook["cells"]
        if not isinstance(cells, list):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise ToolError(f"{rel} is not a Jupyter notebook") from None
    cell_id = arg(args, "cell_id")
    index = _index(cells, cell_id)
    source = str(arg(args, "new_source", default=""))
    cell_type = arg(args, "cell_type")
    if cell_type is not None and cell_type not in ("code", "markdown", "raw"):
        raise ToolError(f"cell_type `{cell_type}` is not one of code, markdown, raw")
    if mode == "insert":
        if cell_id is not None and (index is None or not 0 <= index < len(cells)):
            raise ToolError(f"no cell `{cell_id}` in {rel}")
        cell: dict[str, Any] = {"cell_type": "code"}
        if (notebook.get("nbformat", 0), notebook.get("nbformat_minor", 0)) >= (4, 5):
            cell["id"] = _new_id(cells)
        cell.update(metadata={}, source=source)
        _set_type(cell, str(cell_type or "code"))
        cells.insert(0 if index is None else index + 1, cell)
    elif index is None or not 0 <= index < len(cells):
        raise ToolError(f"no cell `{cell_id}` in {rel}")
    elif mode == "delete":
        del cells[index]
    else:
        target = cells[index]
        target["source"] = source
        _set_type(target, str(cell_type or target.get("cell_type", "code")))
        if target["cell_type"] == "code":
            target["outputs"], target["execution_count"] = [], None
    ctx.workspace.write(path, json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    return ToolOutcome(
        "ok", f"Notebook {rel}: {mode} done ({len(cells)} cells)", details={"cells": len(cells)}
    )
