"""Fixtures shared by the workspace tests."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.agent.tools import ShellRegistry
from workbench.workspace import Workspace


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Workspaces are created here (not in the shared /tmp), so a test can see what is left behind."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    """An attached folder ``ws`` (a module may define its own ``ws``)."""
    (tmp_path / "ws").mkdir()
    return Workspace.attach(tmp_path / "ws")


@pytest.fixture
def shells() -> Iterator[ShellRegistry]:
    """The shell commands' registry (its background shells and scratch folder end with the test)."""
    registry = ShellRegistry()
    yield registry
    registry.close()
