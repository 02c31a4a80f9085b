"""Mock LLM API server: wire styles, responders (timeline, rules), tool profiles.

Real coding agents (Claude Code, Codex, pi, or any other) talk to
:class:`LlmServer` as they would to the model; the scenario plays the model.
``workbench serve llm`` runs it standalone (:func:`serve_llm_main`).
"""

from .checks import LlmFailure
from .serve import serve_llm_main
from .server import LlmServer

__all__ = ["LlmFailure", "LlmServer", "serve_llm_main"]
