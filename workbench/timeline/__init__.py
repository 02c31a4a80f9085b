"""Timeline compiler: canonical events -> one schedule of steps in virtual time."""

from .compiler import Schedule, Step, compile_schedule, summarize

__all__ = ["Schedule", "Step", "compile_schedule", "summarize"]
