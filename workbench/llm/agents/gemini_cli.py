"""Gemini CLI (``@google/gemini-cli``, verified with 0.61.0).

``GEMINI_API_KEY`` + ``GOOGLE_GEMINI_BASE_URL`` (plain HTTP is accepted for
127.0.0.1); ``~/.gemini/settings.json`` selects API-key authentication (without
it the CLI stops at "Invalid auth method selected"), turns folder trust,
telemetry, usage statistics and update checks off. Tool calls are approved with
``--approval-mode yolo`` and run without a sandbox (``GEMINI_SANDBOX=false``).

Before each turn the CLI asks a router model (a `responseJsonSchema` request,
answered as a side request) which model to use; its requests go to
``/v1beta/models/{model}:streamGenerateContent?alt=sse``.
"""

from __future__ import annotations

import json

from .base import AcpAdapter, Agent, Endpoint, Launch, stderr_to_log
from .claude_code import WORKSPACE

SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    "telemetry": {"enabled": False},
}


def build(exe: str, e: Endpoint, ui: str) -> Launch:
    settings = e.home / ".gemini"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "settings.json").write_text(json.dumps(SETTINGS, indent=2), encoding="utf-8")
    env = {"GEMINI_API_KEY": e.api_key, "GOOGLE_GEMINI_BASE_URL": e.base_url, "GEMINI_SANDBOX": "false",
           "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_BROWSER": "true"}  # fmt: skip
    approve = ("--approval-mode", "yolo")
    if ui == "print":
        # stderr says "YOLO mode is enabled", whether ripgrep and true colour were found: not for goldens
        return Launch(stderr_to_log((exe, *approve, "-p", e.prompt), env, e), env)
    # the input box shows before initialisation ends (a prompt typed then is "queued" with a notice);
    # the banner's tips are drawn once it has
    return Launch((exe, *approve), env, ready="Tips for getting started")


AGENT = Agent(
    name="gemini-cli",
    program="gemini",
    package="@google/gemini-cli",
    version="0.61.0",
    profile="gemini-cli",
    build=build,
    summary="Gemini CLI: Google Gemini API, GOOGLE_GEMINI_BASE_URL, ~/.gemini/settings.json",
    cwd_patterns=(r"Workspace Directories:\*\*\s*\n\s*- (\S[^\n]*)",),
    masks=(WORKSPACE,),
    # Gemini CLI speaks ACP itself with --acp; its tool calls are approved through ACP permission requests
    acp=AcpAdapter("gemini-acp", "gemini", "@google/gemini-cli", "0.61.0", "gemini-cli", args=("--acp",)),
)
