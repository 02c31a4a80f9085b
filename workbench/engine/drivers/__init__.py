"""The modes a scenario can be played in, by name: the one registry `run --mode` and the app read.

Adding a mode is one module and one line here:

1. write ``workbench/engine/drivers/<mode>.py`` with a class that implements
   :class:`~workbench.engine.drivers.base.Driver` (``start``, ``play``,
   ``settle``, ``finish``, ``stop``; see that module for when each runs) and
   has a one-line ``summary``;
2. add ``"<mode>": <Class>`` to :data:`DRIVERS` below.

`workbench run --mode`, its ``--help`` and the app's mode picker list
:func:`driver_names`; the runner looks the class up with :func:`driver_class`.
A driver sees the run only through :class:`~workbench.engine.drivers.base.RunContext`.
"""

from __future__ import annotations

from .acp import AcpDriver
from .base import AGENT_ACTIONS, Checks, Driver, DriverError, RunContext, Skip
from .mock_agent import MockAgentDriver
from .program import ProgramDriver
from .real_agent import RealAgentDriver
from .simulation import SimulationDriver

DRIVERS: dict[str, type[Driver]] = {
    "acp": AcpDriver,
    "mock-agent": MockAgentDriver,
    "program": ProgramDriver,
    "real-agent": RealAgentDriver,
    "simulation": SimulationDriver,
}

DEFAULT_MODE = "mock-agent"


def driver_names() -> list[str]:
    """Every mode name, the default first."""
    return [DEFAULT_MODE, *sorted(name for name in DRIVERS if name != DEFAULT_MODE)]


def driver_summaries() -> dict[str, str]:
    """Mode name -> its one-line summary, in :func:`driver_names` order (for help texts and the app)."""
    return {name: DRIVERS[name].summary for name in driver_names()}


def driver_class(name: str) -> type[Driver]:
    """The driver of mode ``name``; KeyError names the modes there are."""
    try:
        return DRIVERS[name]
    except KeyError:
        raise KeyError(f"unknown mode {name!r}; modes: {', '.join(driver_names())}") from None


__all__ = ["AGENT_ACTIONS", "DEFAULT_MODE", "DRIVERS", "Checks", "Driver", "DriverError", "RunContext", "Skip", "driver_class", "driver_names", "driver_summaries"]  # fmt: skip
