"""Timeline compiler: canonical events -> one schedule of steps in virtual time."""

from workbench.scenario.events import AGENT_KINDS, StepKind, summarize

from .compiler import Item, Schedule, Step, compile_schedule

__all__ = ["AGENT_KINDS", "Item", "Schedule", "Step", "StepKind", "compile_schedule", "summarize"]
