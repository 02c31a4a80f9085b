"""Agent presets for `workbench run --mode real-agent`, under the names the
engine, the CLI and the app use; the agents themselves live in
:mod:`workbench.llm.agents`, one module each."""

from __future__ import annotations

from .agents import (
    AGENTS,
    MODEL,
    PLACEHOLDERS,
    UIS,
    Agent,
    Endpoint,
    Launch,
    PresetError,
    endpoint_env,
    expand_command,
    find_program,
)
from .agents import agent_named as preset_named

Preset = Agent
PRESETS = AGENTS

__all__ = ["MODEL", "PLACEHOLDERS", "PRESETS", "UIS", "Endpoint", "Launch", "Preset", "PresetError",
           "endpoint_env", "expand_command", "find_program", "preset_named"]  # fmt: skip
