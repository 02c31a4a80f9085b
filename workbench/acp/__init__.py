"""The Agent Client Protocol: scenarios as ACP agents, the workbench as an ACP client, SCP-style test scripts.

* :mod:`.agent` / :mod:`.serve` — `workbench acp-agent SCENARIO` (test an ACP client);
* :mod:`.client` — the scripted ACP client that records turns and serves fs/terminal;
* :mod:`.scp` — ``TestContext`` / ``TestSession`` with a direct and an in-process runner;
* :mod:`.wire` — every JSON-RPC message of a run in ``acp.jsonl``.

The protocol itself is the official SDK's (`agent-client-protocol`, ``import acp``).
"""
