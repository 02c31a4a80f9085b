"""What a check found and how a failure is classified: one shape for every layer.

A :class:`CheckOutcome` is what any check says: an assert in the workspace, a
screenshot, a tool result, a check the runner cannot make (``ok`` None:
skipped, never a pass). Its JSON (:meth:`CheckOutcome.to_json`) is a step's
``checks`` entry in traces. A :data:`FailureKind` is how a failure is classified
in the report (`docs/design.md` §6), the same for the engine, the mock LLM
server and the report merge.
"""

from __future__ import annotations

from typing import Any, Literal

from workbench.records import frozen

FailureKind = Literal["assert", "screenshot", "expect", "tool", "timing", "process", "validation"]


@frozen
class CheckOutcome:
    """The outcome of one check: whether it holds (None: not checked, never a pass) and a sentence that says
    what was seen."""

    ok: bool | None
    message: str

    @property
    def skipped(self) -> bool:
        return self.ok is None

    @property
    def failed(self) -> bool:
        return self.ok is False

    def to_json(self) -> dict[str, Any]:
        """The trace's shape: ``{"ok", "message"}``, with ``"skipped": true`` when it was not checked."""
        if self.ok is None:
            return {"ok": None, "skipped": True, "message": self.message}
        return {"ok": self.ok, "message": self.message}


def skipped(message: str) -> CheckOutcome:
    return CheckOutcome(None, message)


__all__ = ["CheckOutcome", "FailureKind", "skipped"]
