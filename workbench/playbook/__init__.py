"""Playbooks: the model scripted turn by turn in Python, for any agent, under pytest.

    from workbench.playbook import Playbook, call, say, think, when

See :mod:`workbench.playbook.dsl` for the language, :mod:`.responder` for how a
playbook is served and checked, :mod:`.events` for what a test can assert on,
and :mod:`.pytest_plugin` for the fixtures.

The names are loaded on first use: pytest imports this package (for its plugin)
in every test run of an environment where the workbench is installed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.playbook.dsl import (
        Call,
        MockUi,
        Playbook,
        Say,
        Think,
        ToolResultRecord,
        Turn,
        UiRule,
        call,
        calls,
        say,
        says,
        think,
        when,
    )
    from workbench.playbook.events import Events, MessageRecord, ToolCallRecord, UiRecord

_WHERE = {
    **dict.fromkeys(["Call", "MockUi", "Playbook", "Say", "Think", "ToolResultRecord", "Turn", "UiRule", "call", "calls", "say", "says",
                     "think", "when"], "workbench.playbook.dsl"),
    **dict.fromkeys(["Events", "MessageRecord", "ToolCallRecord", "UiRecord"], "workbench.playbook.events"),
}  # fmt: skip

__all__ = ["Call", "Events", "MessageRecord", "MockUi", "Playbook", "Say", "Think", "ToolCallRecord", "ToolResultRecord",
           "Turn", "UiRecord", "UiRule", "call", "calls", "say", "says", "think", "when"]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
