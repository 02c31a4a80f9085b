"""The names and defaults a user, a script or another process relies on, defined once.

Folders the commands default to, the suffixes a scenario file may have, the
exit codes (`docs/design.md` §5) and every ``WORKBENCH_*`` environment
variable: who sets it and who reads it. Everything else imports them from here,
so a default is changed in one place and a reader finds all of them at once.
It imports nothing, so every layer (even a forked child) may use it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

# Folders, relative to the current directory.
DEFAULT_OUT_DIR: Final = Path("target/tmp/workbench")
"""Run folders and actual screenshots (`run --out`, the app's runs)."""
DEFAULT_GOLDENS_DIR: Final = Path("screenshots")
"""Committed goldens (`--goldens`)."""
DEFAULT_SCENARIOS_DIR: Final = Path("scenarios")
"""What `workbench run` and the app open without a path."""

LLM_REQUESTS_FILE: Final = "llm-requests.jsonl"
"""In a run folder: every request a real agent made to the mock model, one JSON line each (llm/recorder.py)."""
ACP_MESSAGES_FILE: Final = "acp.jsonl"
"""In a run folder: every ACP message between the engine and the agent, one JSON line each (acp/wire.py)."""

SCENARIO_SUFFIXES: Final = (".yaml", ".yml", ".json", ".toml")
"""The suffixes of a scenario file (a folder with ``mock_agent.py`` is a scenario too)."""
SCP_AGENT_FILE: Final = "mock_agent.py"
SCP_USER_FILE: Final = "mock_user.py"
"""An SCP folder's agent and user scripts (workbench/scenario/scp_folder.py): both make a folder a scenario."""
YAML_SUFFIXES: Final = (".yaml", ".yml")

# Exit codes, for every command.
EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
"""A scenario failed."""
EXIT_INVALID: Final = 2
"""Invalid input (a scenario, a config, a flag), with diagnostics on stderr."""
EXIT_INTERNAL: Final = 3
"""A bug: the traceback goes to a crash file whose path is printed."""
EXIT_INTERRUPTED: Final = 130
"""128 + SIGINT."""
EXIT_TERMINATED: Final = 143
"""128 + SIGTERM, as shells report a terminated command."""


class Env:
    """The ``WORKBENCH_*`` environment variables: the engine sets some for the program under test, users set
    the others."""

    # Set by the engine for the program it starts.
    CONTROL: Final = "WORKBENCH_CONTROL"
    """The mock agent's control socket."""
    SESSION: Final = "WORKBENCH_SESSION"
    """A token in every process of a run, so that what a run leaves behind is found and ended."""
    WRITABLE: Final = "WORKBENCH_WRITABLE"
    """Folders (``:``-separated) a confined program may write besides its workspace."""
    REST_URL: Final = "WORKBENCH_REST_URL"
    """Simulation mode: the mock agent service's base URL."""
    SESSION_ID: Final = "WORKBENCH_SESSION_ID"
    """Simulation mode: the run's session on that service."""
    LLM_BASE_URL: Final = "WORKBENCH_LLM_BASE_URL"
    """Real-agent and ACP modes: the mock LLM server's base URL."""
    LLM_API_KEY: Final = "WORKBENCH_LLM_API_KEY"
    """Real-agent and ACP modes: the key the mock LLM server accepts."""
    AGENT_LOG: Final = "WORKBENCH_AGENT_LOG"
    """Where a real agent's stderr goes."""
    CRASH_DIR: Final = "WORKBENCH_CRASH_DIR"
    """Where our own programs in a run (the mock agent, its tools) write crash reports: a folder of the run's,
    since the confined program's ``TMPDIR`` is removed when the run ends."""
    MOCK_TOOLS: Final = "WORKBENCH_MOCK_TOOLS"
    """Playbook runs: where the LLM-client mock agent asks for a tool's canned result."""
    UI_EDITOR: Final = "WORKBENCH_UI_EDITOR"
    """Playbook runs: where the stand-in ``$EDITOR`` asks for the text it leaves (``mock_ui.editor``)."""
    # Set by users.
    AH: Final = "WORKBENCH_AH"
    """The `ah` program for scenarios with an ``ah:`` section (default ``ah``)."""
    AGENTS: Final = "WORKBENCH_AGENTS"
    """npm prefixes (``:``-separated) where real agents are installed, searched before ``PATH``."""
    NO_FORK: Final = "WORKBENCH_NO_FORK"
    """``1``: start the mock agent as a new Python instead of forking the engine."""
    SCENARIO_FD: Final = "WORKBENCH_SCENARIO_FD"
    """An inherited descriptor the mock agent reads its scenario's text from (an unsaved scenario)."""
    CLAUDE_RULES: Final = "WORKBENCH_CLAUDE_RULES"
    """The claude shim's scenario (as ``CLAUDELESS_SCENARIO``)."""
    THEMES: Final = "WORKBENCH_THEMES"
    """A folder of extra app themes (TOML)."""
    KEYMAP: Final = "WORKBENCH_KEYMAP"
    """The app's key map file."""
