"""Playbooks: the model scripted turn by turn in Python, for any agent, under pytest.

    from workbench.playbook import Playbook, call, say, think, when

See :mod:`workbench.playbook.dsl` for the language, :mod:`.responder` for how a
playbook is served and checked, :mod:`.events` for what a test can assert on,
and :mod:`.pytest_plugin` for the fixtures.
"""

from workbench.playbook.dsl import (
    Call,
    Playbook,
    Say,
    Think,
    ToolResultRecord,
    Turn,
    UiRule,
    call,
    say,
    think,
    when,
)
from workbench.playbook.events import Events, MessageRecord, ToolCallRecord, UiRecord

__all__ = ["Call", "Events", "MessageRecord", "Playbook", "Say", "Think", "ToolCallRecord", "ToolResultRecord",
           "Turn", "UiRecord", "UiRule", "call", "say", "think", "when"]  # fmt: skip
