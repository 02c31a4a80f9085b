"""The modes a scenario can be played in, by name: the one registry `run --mode`, the pytest plugin and the app read.

Adding a mode is one module and one line here:

1. write a module (``workbench/engine/drivers/<mode>.py``, or any importable
   module) with a class that implements :class:`~workbench.engine.drivers.base.Driver`
   (``start``, ``play``, ``settle``, ``finish``, ``stop``; see that module for
   when each runs);
2. add ``"<mode>": Mode("<module>:<Class>", "<one-line summary>", options=..., ...)``
   to :data:`DRIVERS` below: the options it takes (:class:`Option`) and what it
   can do (the capability fields of :class:`Mode`).

Everything else is derived from those declarations: `workbench run --mode` and
its help, one flag per option (`run --help`, the pytest plugin, checked against
the chosen mode: a flag the mode does not take is a usage error), the app's mode
picker, and what the runner and the app ask of a mode (:func:`mode_of`). No code
outside this package compares a mode's name. The registry names classes instead
of holding them so that listing the modes (every ``--help``, the app's start)
imports none of them: the ACP driver alone brings the ACP SDK. A driver sees the
run only through :class:`~workbench.engine.drivers.base.RunContext`, and its own
options through ``ctx.options.option(name)``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from workbench.scenario.diagnostics import Diagnostic
    from workbench.scenario.model import Scenario

    from .base import Driver


class Option(NamedTuple):
    """One option a mode takes: ``--<name>`` on `workbench run` and in the pytest plugin, a choice in the app.

    ``choices`` is called only when the choices are needed (a help text, a check), so that
    declaring an option imports nothing."""

    name: str
    help: str
    choices: Callable[[], Sequence[str]] | None = None
    default: str | None = None
    metavar: str = "NAME"

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def dest(self) -> str:
        return self.name.replace("-", "_")


class Mode(NamedTuple):
    """A mode: where its driver class is (``module:Class``), one line for help texts, its options, and what it
    can do."""

    path: str
    summary: str
    options: tuple[Option, ...] = ()
    runs_tools: bool = True
    """The program under test runs the agent's tools for real (simulation only describes them to its client)."""
    accepts_rules: bool = False
    """Claudeless response rules can be played (they answer a real agent's requests)."""
    logs_model_requests: bool = False
    """The run writes the agent's requests to the mock LLM server (the app records them as steps)."""

    @property
    def takes_agent(self) -> bool:
        """The mode plays a named agent (``--agent``)."""
        return any(option.name == "agent" for option in self.options)

    def option(self, name: str) -> Option | None:
        return next((option for option in self.options if option.name == name), None)


def _agent_presets() -> Sequence[str]:
    from workbench.llm.agents import AGENTS

    return list(AGENTS)


def _acp_adapters() -> Sequence[str]:
    from workbench.llm.agents import acp_adapters

    return list(acp_adapters())


DRIVERS: dict[str, Mode] = {
    "acp": Mode("workbench.engine.drivers.acp:AcpDriver",
                "a real ACP agent (`command`) on stdio; the engine is its ACP client, the mock LLM behind it",
                options=(Option("agent", "a known ACP adapter", _acp_adapters),)),
    "mock-agent": Mode("workbench.engine.drivers.mock_agent:MockAgentDriver",
                       "the built-in mock agent plays the timeline (the default)",
                       options=(Option("checkpoint-cmd", "a shell command the mock agent runs after each tool",
                                       metavar="CMD"),)),
    "program": Mode("workbench.engine.drivers.program:ProgramDriver",
                    "any terminal program (the scenario's `command`), no agent side"),
    "real-agent": Mode("workbench.engine.drivers.real_agent:RealAgentDriver",
                       "a real coding agent (--agent preset or `command`) against the mock LLM server",
                       options=(Option("agent", "the agent preset, else the scenario's `command` with {base_url} "
                                       "placeholders; an agent of your own is a module in the entry point group "
                                       "workbench.agents", _agent_presets),
                                Option("agent-ui", "the agent's TUI (default) or its print mode",
                                       lambda: ("tui", "print"), default="tui", metavar="UI"),
                                Option("drift", "compare the agent's requests with those recorded beside the "
                                       "scenario (`workbench record` writes them) and warn, or fail, when they "
                                       "changed", lambda: ("warn", "fail"), metavar="HOW")),
                       accepts_rules=True, logs_model_requests=True),
    "simulation": Mode("workbench.engine.drivers.simulation:SimulationDriver",
                       "the program is a client of a mock REST/SSE agent service that plays the timeline",
                       runs_tools=False),
}  # fmt: skip

DEFAULT_MODE = "mock-agent"
AGENT_MODE = "real-agent"
"""The mode an ``--agent`` without ``--mode`` means (a playbook's agent plays in it too)."""


class ModeError(ValueError):
    """A mode name or a mode's option that does not exist; the message names what does."""


def driver_names() -> list[str]:
    """Every mode name, the default first."""
    return [DEFAULT_MODE, *sorted(name for name in DRIVERS if name != DEFAULT_MODE)]


def driver_summaries() -> dict[str, str]:
    """Mode name -> its one-line summary, in :func:`driver_names` order (for help texts and the app)."""
    return {name: DRIVERS[name].summary for name in driver_names()}


def unknown_mode(name: str) -> str:
    """What is wrong with mode ``name``, which is not one: the nearest mode when one is close, and every mode."""
    from workbench.scenario.diagnostics import nearest

    close = nearest(name, DRIVERS)
    hint = f"did you mean `{close}`? " if close else ""
    return f"unknown mode {name!r}; {hint}modes: {', '.join(driver_names())}"


def mode_diagnostic(scenario: Scenario) -> Diagnostic | None:
    """An error at a scenario's ``mode:`` that names no mode (the scenario layer does not know the modes)."""
    from workbench.scenario.diagnostics import Diagnostic, Pos

    if scenario.mode is None or scenario.mode in DRIVERS:
        return None
    return Diagnostic(scenario.mode_pos or scenario.pos or Pos(""), unknown_mode(scenario.mode))


def mode_of(name: str) -> Mode:
    """The declaration of mode ``name``; ModeError names the modes there are."""
    try:
        return DRIVERS[name]
    except KeyError:
        raise ModeError(unknown_mode(name)) from None


def driver_class(name: str) -> type[Driver]:
    """The driver of mode ``name``, imported now; KeyError names the modes there are."""
    try:
        module, _, attribute = DRIVERS[name].path.partition(":")
    except KeyError:
        raise KeyError(unknown_mode(name)) from None
    cls: type[Driver] = getattr(importlib.import_module(module), attribute)
    return cls


def mode_flags() -> dict[str, list[tuple[str, Option]]]:
    """Every option's flag name -> the modes that take it (with their declaration), in mode order."""
    flags: dict[str, list[tuple[str, Option]]] = {}
    for name in driver_names():
        for option in DRIVERS[name].options:
            flags.setdefault(option.name, []).append((name, option))
    return flags


def flag_help(takers: list[tuple[str, Option]]) -> str:
    """The help of a flag several modes may take: what it means in each."""
    parts = []
    for mode, option in takers:
        choices = f" ({', '.join(option.choices())})" if option.choices is not None else ""
        default = f"; default {option.default}" if option.default is not None else ""
        parts.append(f"{mode} mode: {option.help}{choices}{default}")
    return "; ".join(parts)


def mode_options(mode: str, given: Mapping[str, str | None]) -> dict[str, str]:
    """The options of a run in ``mode``: ``given`` (flag name -> value or None) checked against what the mode
    declares, with its defaults filled in. ModeError says which flag the mode does not take, or which values
    an option allows."""
    declared = mode_of(mode)
    out: dict[str, str] = {}
    for name, value in given.items():
        if value is None:
            continue
        option = declared.option(name)
        if option is None:
            takers = [m for m, _ in mode_flags().get(name, [])]
            needs = " or ".join(f"--mode {m}" for m in takers)
            raise ModeError(f"--{name} needs {needs}" if takers else f"--{name}: no mode takes it")
        if option.choices is not None and value not in option.choices():
            from workbench.scenario.diagnostics import nearest

            known = ", ".join(option.choices())
            close = nearest(value, option.choices()) if value else None
            hint = f"did you mean `{close}`? " if close else ""
            shown = f"`{value}`" if value else "`` (empty)"
            raise ModeError(f"unknown {option.name} {shown} for mode {mode}; {hint}known: {known} (--{option.name}: "
                            f"{option.help})")  # fmt: skip
        out[name] = value
    for option in declared.options:
        if option.name not in out and option.default is not None:
            out[option.name] = option.default
    return out


def implied_mode(
    given: Mapping[str, str | None], agents: Sequence[str | None], declared: Collection[str]
) -> str:
    """The mode of a run without ``--mode``. With no mode option given, :data:`DEFAULT_MODE`, which defers
    to each file's own ``mode:``. With options (``--drift``, ``--agent codex-acp``...), the one mode the files
    declare that takes them all, values included, so a flag the files' mode takes needs no ``--mode``; else
    the agent mode for ``--agent`` (what the pytest plugin does too), else the default, which names the
    modes a flag needs."""
    if not any(value is not None for value in given.values()):
        return DEFAULT_MODE
    fitting = []
    for mode in sorted(set(declared) & set(DRIVERS)):
        try:
            for agent in agents or [None]:
                mode_options(mode, {**given, "agent": agent})
        except ModeError:
            continue
        fitting.append(mode)
    if len(fitting) == 1:
        return fitting[0]
    return AGENT_MODE if agents else DEFAULT_MODE


__all__ = ["AGENT_MODE", "DEFAULT_MODE", "DRIVERS", "Mode", "ModeError", "Option", "driver_class", "driver_names",
           "driver_summaries", "flag_help", "implied_mode", "mode_flags", "mode_of", "mode_options"]  # fmt: skip
