"""An ACP client's edits follow the mock agent's editFile rules (one pure function decides both)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from acp import RequestError

from workbench.acp.client_tools import run_via_client
from workbench.agent.tools import ShellRegistry, ToolOutcome, execute_tool
from workbench.workspace import Workspace


class Files:
    """The ``fs/*`` half of a client: text files in memory, a missing one is ``resource_not_found``."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    async def read_text_file(self, session_id: str, path: str, **_: Any) -> Any:
        if path not in self.files:
            raise RequestError.resource_not_found(path)
        return SimpleNamespace(content=self.files[path])

    async def write_text_file(self, session_id: str, path: str, content: str) -> None:
        self.files[path] = content


async def _no_terminal(_: str) -> None:
    raise AssertionError("no terminal expected")


def via_client(files: dict[str, str], args: dict[str, Any]) -> ToolOutcome:
    client = Files({f"/ws/{k}": v for k, v in files.items()})
    outcome = asyncio.run(run_via_client(client, "s", "/ws", "Edit", args, _no_terminal))
    files.clear()
    files.update({k.removeprefix("/ws/"): v for k, v in client.files.items()})
    return outcome


def in_workspace(tmp_path: Path, files: dict[str, str], args: dict[str, Any]) -> ToolOutcome:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    shells = ShellRegistry()
    try:
        outcome = execute_tool("Edit", args, Workspace.attach(tmp_path), shells=shells)
    finally:
        shells.close()
    files.clear()
    files.update({p.name: p.read_text() for p in tmp_path.iterdir() if p.is_file()})
    return outcome


CASES: list[tuple[dict[str, str], dict[str, Any]]] = [
    ({"a.txt": "one two"}, {"path": "a.txt", "old_string": "two", "new_string": "three"}),
    ({"a.txt": "x x"}, {"path": "a.txt", "old_string": "x", "new_string": "y"}),
    ({"a.txt": "x x"}, {"path": "a.txt", "old_string": "x", "new_string": "y", "replace_all": True}),
    ({"a.txt": "same"}, {"path": "a.txt", "old_string": "same", "new_string": "same"}),
    ({}, {"path": "new.txt", "old_string": "", "new_string": "made\n"}),
    ({"a.txt": "full"}, {"path": "a.txt", "old_string": "", "new_string": "other"}),
    ({"a.txt": "abc"}, {"file_path": "a.txt", "old_str": "b", "new_str": "B"}),
    ({"a.txt": "abc"}, {"path": "a.txt", "old": "zzz", "new": "y"}),
    ({"a.txt": "abc"}, {"path": "a.txt", "text": "+tail"}),
]


def test_client_edits_match_the_mock_agents(tmp_path: Path) -> None:
    for i, (files, args) in enumerate(CASES):
        folder = tmp_path / str(i)
        folder.mkdir()
        local, remote = dict(files), dict(files)
        mine, theirs = in_workspace(folder, local, args), via_client(remote, args)
        assert (theirs.status, theirs.result, theirs.details.get("replacements")) == (
            mine.status,
            mine.result,
            mine.details.get("replacements"),
        ), args
        assert remote == local, args


def test_closing_the_client_kills_and_reaps_its_terminals(tmp_path: Path) -> None:
    """A terminal still running when the run ends (the agent never released it), and one released while
    running, are killed with their process group and waited for, so that nothing outlives the run's event
    loop (a process left to the garbage collector closes its pipes on a closed loop)."""
    from workbench.acp.client import WorkbenchClient

    async def body() -> list[int | None]:
        client = WorkbenchClient(tmp_path)
        kept = await client.create_terminal("s", "sleep 30 & sleep 30")
        released = await client.create_terminal("s", "sleep", args=["30"])
        processes = [client._terminals[t.terminal_id].process for t in (kept, released)]
        await client.release_terminal(session_id="s", terminal_id=released.terminal_id)
        assert processes[1].returncode is not None
        await client.close()
        return [p.returncode for p in processes]

    assert asyncio.run(body()) == [-9, -9]
