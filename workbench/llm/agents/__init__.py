"""The known agents, one module each; :data:`AGENTS` is the registry that
``--agent`` choices, help texts, docs and tests are derived from (an extension
point: one module, one line here). An agent's module holds all of it: its
launch and install line, the API style it speaks, its tool profile and its ACP
adapter; the ACP adapters (:func:`acp_adapters`) and the mock LLM server's tool
profiles (:func:`tool_profiles`) are read from here.

An agent module outside this package calls :func:`register`; its distribution names it in the entry
point group ``workbench.agents`` (``[project.entry-points."workbench.agents"]`` ``NAME = "MODULE"``), and
each such module is imported with this registry, so ``--agent NAME`` of the command line and the pytest
plugin find it. One that fails to import is a warning on stderr naming it.

Any other agent runs from the scenario's ``command`` with the placeholders
``{base_url}``, ``{openai_base_url}``, ``{api_key}``, ``{workspace}``,
``{prompt}`` (see :func:`expand_command`), and gets the usual SDK variables
(:func:`endpoint_env`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from workbench.llm import profiles
from workbench.llm.conversation import ToolDef
from workbench.llm.profiles import GENERIC, ToolProfile
from workbench.names import Env

from . import claude_code, codex, continue_cli, gemini_cli, kilo, pi
from .base import MODEL, UIS, AcpAdapter, Agent, Endpoint, Launch, PresetError, find_program

AGENTS: dict[str, Agent] = {
    a.name: a
    for a in (claude_code.AGENT, codex.AGENT, pi.AGENT, gemini_cli.AGENT, continue_cli.AGENT, kilo.AGENT)
}


ENTRY_POINTS = "workbench.agents"
"""The entry point group of agent modules installed elsewhere (each calls :func:`register`)."""


def register(agent: Agent) -> Agent:
    """Add an agent to the registry: what an agent module outside this package calls, so that the agent
    (its ACP adapter and tool profile with it) is one module."""
    AGENTS[agent.name] = agent
    return agent


def _load_installed() -> None:
    """Import the agent modules installed distributions name in :data:`ENTRY_POINTS`."""
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINTS):
        try:
            point.load()
        except Exception as exc:  # their code, not ours: one broken module leaves the others usable
            print(f"workbench: warning: the agent module `{point.name} = {point.value}` (entry point group "
                  f"{ENTRY_POINTS}) failed to load: {type(exc).__name__}: {exc}", file=sys.stderr)  # fmt: skip


def acp_adapters() -> dict[str, Agent]:
    """The agents with an ACP adapter, by the adapter's name (what ``--mode acp --agent`` takes)."""
    return {a.acp.name: a for a in AGENTS.values() if a.acp is not None}


def tool_profiles() -> dict[str, ToolProfile]:
    """The agents' tool profiles by name (their ACP adapters' too), the generic one last."""
    found: dict[str, ToolProfile] = {}
    for agent in AGENTS.values():
        for profile in (agent.profile, agent.acp.profile if agent.acp else None):
            if profile is not None and profile is not GENERIC:
                found.setdefault(profile.name, profile)
    return {**found, GENERIC.name: GENERIC}


def profile_named(name: str) -> ToolProfile:
    """A tool profile by name; raises KeyError listing the known ones."""
    known = tool_profiles()
    try:
        return known[name]
    except KeyError:
        raise KeyError(f"unknown tool profile `{name}`; known: {', '.join(known)}") from None


def profile_by_names(tool_names: Iterable[str]) -> ToolProfile:
    """Which known agent's tool set a request offers, by the tools' names alone."""
    return profiles.profile_by_names(tool_profiles().values(), tool_names)


def detect_profile(tools: Iterable[ToolDef | str]) -> ToolProfile:
    """The profile to speak a request's tools with: a known agent's when the names and
    the schemas match its snapshot, else the generic one."""
    return profiles.detect_profile(tool_profiles().values(), tools)


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


_load_installed()  # last: a module it imports finds this package whole

__all__ = [
    "AGENTS",
    "ENTRY_POINTS",
    "MODEL",
    "PLACEHOLDERS",
    "UIS",
    "AcpAdapter",
    "Agent",
    "Endpoint",
    "Launch",
    "PresetError",
    "ToolProfile",
    "acp_adapters",
    "agent_named",
    "agents_help",
    "detect_profile",
    "endpoint_env",
    "expand_command",
    "find_program",
    "profile_by_names",
    "profile_named",
    "register",
    "tool_profiles",
]  # fmt: skip
