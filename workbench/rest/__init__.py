"""Simulation mode: a mock of the agent service's REST API that streams a scenario's events over SSE.

The program under test is a *client* of an agent service (a TUI or a web UI);
each scenario is a session whose timeline is played on a virtual clock, and the
client's screen is captured. :class:`~workbench.rest.server.RestServer` serves
the API; :mod:`workbench.rest.events` turns steps into the API's event shapes;
``workbench serve rest`` runs it standalone and ``workbench run --mode
simulation`` plays it against the scenario's client. Importing this package is
cheap: aiohttp is loaded by the server module only.
"""
