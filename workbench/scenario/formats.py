"""Which dialect a scenario document is written in, from its top-level keys alone.

The loader decides this for every file before it reads one in either dialect,
so the decision lives apart from both loaders: a run of Agent Harbor files
never imports the Claudeless loader (its regexes and its matching rules),
and the reverse.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CLAUDELESS_KEYS = frozenset({"responses", "default_response", "tool_execution", "claude_version", "default_model",
                             "claude", "default", "session_id", "launch_timestamp", "user_name"})  # fmt: skip
AGENT_HARBOR_KEYS = frozenset({"timeline", "steps", "turns", "agentActions", "userActions"})


def looks_like_claudeless(doc: Any) -> bool:
    """A JSON/YAML document with Claudeless top-level keys and no Agent Harbor timeline.

    TOML files are always Claudeless; for JSON and YAML the keys decide, and
    `timeline` (or `steps`/`turns`) wins, so an Agent Harbor file that happens
    to carry a `responses` key is still read as Agent Harbor.
    """
    if not isinstance(doc, Mapping):
        return False
    keys = set(doc)
    return not (keys & AGENT_HARBOR_KEYS) and bool(keys & CLAUDELESS_KEYS)
