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

from workbench.llm.profiles import Signature, ToolProfile, generic_call, generic_shell, props

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


# ----- its tools (the mock LLM server's tool profile; snapshot from corpus/agent-wire, 2026-11-22)

GEMINI_CLI_TOOLS: dict[str, frozenset[str] | None] = {  # Gemini CLI 0.61.0 (tests/llm/data)
    "activate_skill": props("name"),
    "enter_plan_mode": props("reason"),
    "glob": props("case_sensitive", "dir_path", "pattern", "respect_gemini_ignore", "respect_git_ignore"),
    "google_web_search": props("query"),
    "grep_search": props(
        "dir_path",
        "exclude_pattern",
        "include_pattern",
        "max_matches_per_file",
        "names_only",
        "pattern",
        "total_max_matches",
    ),
    "invoke_agent": props("agent_name", "prompt", "wait_for_previous"),
    "list_background_processes": props("wait_for_previous"),
    "list_directory": props("dir_path", "file_filtering_options", "ignore"),
    "read_background_output": props("delay_ms", "lines", "pid", "wait_for_previous"),
    "read_file": props("end_line", "file_path", "start_line"),
    "replace": props("allow_multiple", "file_path", "instruction", "new_string", "old_string"),
    "run_shell_command": props("command", "delay_ms", "description", "dir_path", "is_background"),
    "update_topic": props("strategic_intent", "summary", "title", "wait_for_previous"),
    "web_fetch": props("prompt"),
    "write_file": props("content", "file_path"),
    # tools of earlier versions: names only
    **dict.fromkeys(("search_file_content", "read_many_files", "save_memory", "write_todos"), None),
}

# its tools are spoken through the vocabulary alone; the snapshot is for --strict-tools
PROFILE = ToolProfile("gemini-cli", GEMINI_CLI_TOOLS, generic_call, generic_shell,
                      Signature(frozenset({"run_shell_command"}), frozenset({"write_file", "replace", "read_file"})))  # fmt: skip


AGENT = Agent(
    name="gemini-cli",
    program="gemini",
    package="@google/gemini-cli",
    version="0.61.0",
    wires=("gemini",),
    profile=PROFILE,
    build=build,
    summary="Gemini CLI: Google Gemini API, GOOGLE_GEMINI_BASE_URL, ~/.gemini/settings.json",
    cwd_patterns=(r"Workspace Directories:\*\*\s*\n\s*- (\S[^\n]*)",),
    masks=(WORKSPACE,),
    # Gemini CLI speaks ACP itself with --acp; its tool calls are approved through ACP permission requests
    acp=AcpAdapter("gemini-acp", "gemini", "@google/gemini-cli", "0.61.0", PROFILE, args=("--acp",)),
)
