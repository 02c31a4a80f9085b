"""Recording a real agent session into a scenario that replays it (`workbench record`).

* :mod:`.proxy` — the recording proxy on 127.0.0.1 in front of the real API;
* :mod:`.session` — the agent in a pty, the user's terminal relayed to it, turns marked;
* :mod:`.replies` — what the model said in each exchange, per API style, with its timing;
* :mod:`.writer` — the scenario, its goldens and the request sidecar (:mod:`workbench.llm.drift`);
* :mod:`.redact` — no secret ever reaches disk.

Headless: never imports Textual.
"""
