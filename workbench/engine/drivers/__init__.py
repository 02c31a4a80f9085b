"""The modes a scenario can be played in, by name: the one registry `run --mode` and the app read.

Adding a mode is one module and one line here:

1. write a module (``workbench/engine/drivers/<mode>.py``, or any importable
   module) with a class that implements :class:`~workbench.engine.drivers.base.Driver`
   (``start``, ``play``, ``settle``, ``finish``, ``stop``; see that module for
   when each runs);
2. add ``"<mode>": Mode("<module>:<Class>", "<one-line summary>")`` to
   :data:`DRIVERS` below.

`workbench run --mode`, its ``--help`` and the app's mode picker list
:func:`driver_names` and :func:`driver_summaries`; the runner imports the class
with :func:`driver_class`. The registry names classes instead of holding them
so that listing the modes (every ``--help``, the app's start) imports none of
them: the ACP driver alone brings the ACP SDK. A driver sees the run only
through :class:`~workbench.engine.drivers.base.RunContext`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .base import Driver


class Mode(NamedTuple):
    """Where a mode's driver class is (``module:Class``) and one line for help texts."""

    path: str
    summary: str


DRIVERS: dict[str, Mode] = {
    "acp": Mode("workbench.engine.drivers.acp:AcpDriver",
                "a real ACP agent (`command`) on stdio; the engine is its ACP client, the mock LLM behind it"),
    "mock-agent": Mode("workbench.engine.drivers.mock_agent:MockAgentDriver",
                       "the built-in mock agent plays the timeline (the default)"),
    "program": Mode("workbench.engine.drivers.program:ProgramDriver",
                    "any terminal program (the scenario's `command`), no agent side"),
    "real-agent": Mode("workbench.engine.drivers.real_agent:RealAgentDriver",
                       "a real coding agent (--agent preset or `command`) against the mock LLM server"),
    "simulation": Mode("workbench.engine.drivers.simulation:SimulationDriver",
                       "the program is a client of a mock REST/SSE agent service that plays the timeline"),
}  # fmt: skip

DEFAULT_MODE = "mock-agent"


def driver_names() -> list[str]:
    """Every mode name, the default first."""
    return [DEFAULT_MODE, *sorted(name for name in DRIVERS if name != DEFAULT_MODE)]


def driver_summaries() -> dict[str, str]:
    """Mode name -> its one-line summary, in :func:`driver_names` order (for help texts and the app)."""
    return {name: DRIVERS[name].summary for name in driver_names()}


def driver_class(name: str) -> type[Driver]:
    """The driver of mode ``name``, imported now; KeyError names the modes there are."""
    try:
        module, _, attribute = DRIVERS[name].path.partition(":")
    except KeyError:
        raise KeyError(f"unknown mode {name!r}; modes: {', '.join(driver_names())}") from None
    cls: type[Driver] = getattr(importlib.import_module(module), attribute)
    return cls


__all__ = ["DEFAULT_MODE", "DRIVERS", "Mode", "driver_class", "driver_names", "driver_summaries"]
