"""An SCP-style scenario folder: ``mock_agent.py`` + ``mock_user.py`` (+ optional ``scenario.json``).

Symposium's SCP test runner called a folder a scenario: a scripted ACP agent and
a scripted user that talks to it. Such a folder is a scenario here too; its
"timeline" is Python, so the canonical model only carries its identity and
settings (``extra["scp"]``) and the ACP runner plays it.

``scenario.json`` (all optional): ``name`` (default: the folder's name),
``description``, ``tags`` (strings), ``runners`` (``["direct"]`` by default;
``"in-process"`` too), ``timeout`` (seconds, default 60). Other keys are
refused with the list of allowed ones, since a misspelt setting must not pass
silently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.names import SCP_AGENT_FILE, SCP_USER_FILE

from .diagnostics import Pos, ScenarioError
from .model import Scenario, frozen_map

AGENT_FILE, USER_FILE, META_FILE = SCP_AGENT_FILE, SCP_USER_FILE, "scenario.json"
RUNNERS = ("direct", "in-process")
KEYS = ("name", "description", "tags", "runners", "timeout")


def is_scp_folder(path: Path) -> bool:
    return path.is_dir() and (path / USER_FILE).is_file() and (path / AGENT_FILE).is_file()


def load_scp_folder(path: Path, name: str) -> Scenario:
    """The folder's identity and settings; ScenarioError (with the file and line) for a bad scenario.json."""
    meta: dict[str, Any] = {}
    meta_path = path / META_FILE
    where = f"{name.rstrip('/')}/{META_FILE}"
    if meta_path.is_file():
        text = meta_path.read_text(encoding="utf-8")
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScenarioError.at(Pos(where, exc.lineno, exc.colno), f"not valid JSON: {exc.msg}") from None
        if not isinstance(loaded, dict):
            raise ScenarioError.at(Pos(where, 1, 1), "scenario.json must be an object")
        meta = loaded
    for key in meta:
        if key not in KEYS:
            raise ScenarioError.at(
                _pos(where, meta_path, key), f"unknown key `{key}`; allowed: {', '.join(KEYS)}"
            )
    tags = meta.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ScenarioError.at(_pos(where, meta_path, "tags"), "`tags` must be a list of strings")
    runners = meta.get("runners", ["direct"])
    if not isinstance(runners, list) or not runners or any(r not in RUNNERS for r in runners):
        raise ScenarioError.at(
            _pos(where, meta_path, "runners"), f"`runners` must be a list of {', '.join(RUNNERS)}"
        )
    _check_scripts(path, name)
    timeout = meta.get("timeout", 60)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ScenarioError.at(
            _pos(where, meta_path, "timeout"), "`timeout` must be a positive number of seconds"
        )
    return Scenario(
        name=str(meta.get("name") or path.name),
        file=name,
        format="agent-harbor",
        tags=tuple(tags),
        description=meta.get("description"),
        extra=frozen_map({"scp": {"runners": list(runners), "timeout": float(timeout)}}),
    )


def _check_scripts(path: Path, name: str) -> None:
    """Both scripts parse, and ``mock_user.py`` defines ``mock_user``: found when the folder is read (and by
    `validate`), at the script's line, not as a failed run naming an internal module."""
    import ast

    trees = {}
    for script in (AGENT_FILE, USER_FILE):
        where = f"{name.rstrip('/')}/{script}"
        try:
            trees[script] = ast.parse((path / script).read_bytes(), filename=where)
        except SyntaxError as exc:
            line, col = exc.lineno or 1, exc.offset or 1
            raise ScenarioError.at(Pos(where, line, col), f"invalid Python: {exc.msg}") from None
        except (OSError, ValueError) as exc:  # unreadable, or a NUL byte
            raise ScenarioError.at(Pos(where, 1, 1), f"cannot read the script: {exc}") from None
    bound = set()
    for node in trees[USER_FILE].body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    if "mock_user" not in bound and "*" not in bound:
        raise ScenarioError.at(
            Pos(f"{name.rstrip('/')}/{USER_FILE}", 1, 1),
            "the script defines no `mock_user`: an SCP user script is `async def mock_user(ctx: TestContext) -> "
            "None` (`from workbench.acp.scp import TestContext`)",
        )


def _pos(where: str, path: Path, key: str) -> Pos:
    """The line of ``"key"`` in the file (JSON keeps no positions; the first occurrence is good enough)."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        col = line.find(f'"{key}"')
        if col >= 0:
            return Pos(where, number, col + 1)
    return Pos(where, 1, 1)
