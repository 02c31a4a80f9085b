"""Scenario Workbench: deterministic, replayable end-to-end tests for coding agents."""

__version__ = "0.1.0"
