"""Mock LLM API server: wire styles, responders (timeline, rules), tool profiles.

Real coding agents (Claude Code, Codex, pi, Gemini CLI, or any other) talk to
:class:`LlmServer` as they would to the model; the scenario plays the model.
``workbench serve llm`` runs it standalone (:func:`serve_llm_main`).

The names below load on first use, so that reading the agent registry
(:mod:`.agents`, for `--agent` choices and help) does not load the server.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .checks import LlmFailure
    from .serve import serve_llm_main
    from .server import LlmServer

_LAZY = {"LlmFailure": ".checks", "LlmServer": ".server", "serve_llm_main": ".serve"}

__all__ = ["LlmFailure", "LlmServer", "serve_llm_main"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
