"""The known agents, one module each; :data:`AGENTS` is the registry that
``--agent`` choices, help texts, docs and tests are derived from (an extension
point: one module, one line here).

Any other agent runs from the scenario's ``command`` with the placeholders
``{base_url}``, ``{openai_base_url}``, ``{api_key}``, ``{workspace}``,
``{prompt}`` (see :func:`expand_command`), and gets the usual SDK variables
(:func:`endpoint_env`).
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.names import Env

from . import claude_code, codex, continue_cli, gemini_cli, kilo, pi
from .base import MODEL, UIS, AcpAdapter, Agent, Endpoint, Launch, PresetError, find_program

AGENTS: dict[str, Agent] = {
    a.name: a
    for a in (claude_code.AGENT, codex.AGENT, pi.AGENT, gemini_cli.AGENT, continue_cli.AGENT, kilo.AGENT)
}
ACP_ADAPTERS: dict[str, Agent] = {a.acp.name: a for a in AGENTS.values() if a.acp is not None}
"""The agents with an ACP adapter, by the adapter's name (what ``--mode acp --agent`` takes)."""


def register(agent: Agent) -> Agent:
    """Add an agent (and its ACP adapter, if it has one) to the registry: what an agent module outside this
    package calls, so that the agent is one module."""
    AGENTS[agent.name] = agent
    if agent.acp is not None:
        ACP_ADAPTERS[agent.acp.name] = agent
    return agent


def agent_named(name: str) -> Agent:
    try:
        return AGENTS[name]
    except KeyError:
        raise PresetError(f"unknown agent preset `{name}`; known: {', '.join(AGENTS)}") from None


def agents_help() -> str:
    """One line per agent, for `--agent`'s help."""
    return "; ".join(f"{a.name} ({a.package}@{a.version})" for a in AGENTS.values())


PLACEHOLDERS = ("base_url", "openai_base_url", "api_key", "workspace", "prompt")


def expand_command(argv: Sequence[str], endpoint: Endpoint) -> tuple[str, ...]:
    """A scenario ``command`` for any other agent, its ``{placeholder}`` words filled in.

    Only the names in :data:`PLACEHOLDERS` are replaced, so other braces (JSON,
    shell) pass through unchanged."""
    values = {
        "base_url": endpoint.base_url,
        "openai_base_url": endpoint.openai_base_url,
        "api_key": endpoint.api_key,
        "workspace": str(endpoint.workspace),
        "prompt": endpoint.prompt,
    }
    out = []
    for word in argv:
        for name, value in values.items():
            word = word.replace("{" + name + "}", value)
        out.append(word)
    return tuple(out)


def endpoint_env(endpoint: Endpoint) -> dict[str, str]:
    """What a plain ``command`` also gets: the usual SDK variables, pointing at the server."""
    return {
        Env.LLM_BASE_URL: endpoint.base_url,
        Env.LLM_API_KEY: endpoint.api_key,
        "ANTHROPIC_BASE_URL": endpoint.base_url,
        "ANTHROPIC_API_KEY": endpoint.api_key,
        "OPENAI_BASE_URL": endpoint.openai_base_url,
        "OPENAI_API_KEY": endpoint.api_key,
        "GOOGLE_GEMINI_BASE_URL": endpoint.base_url,
        "GEMINI_API_KEY": endpoint.api_key,
    }


__all__ = [
    "ACP_ADAPTERS",
    "AGENTS",
    "MODEL",
    "PLACEHOLDERS",
    "UIS",
    "AcpAdapter",
    "Agent",
    "Endpoint",
    "Launch",
    "PresetError",
    "agent_named",
    "agents_help",
    "endpoint_env",
    "expand_command",
    "find_program",
    "register",
]  # fmt: skip
