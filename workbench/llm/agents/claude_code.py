"""Claude Code (``@anthropic-ai/claude-code``, verified with 2.1.197).

``ANTHROPIC_BASE_URL`` + ``ANTHROPIC_API_KEY``; ``~/.claude.json`` with
``hasCompletedOnboarding``, the key approved and the workspace trusted; file
edits accepted and ``Bash`` allowed, so no permission dialog.
"""

from __future__ import annotations

import json

from .base import MODEL, AcpAdapter, Agent, Endpoint, Launch

WORKSPACE = r"/\S*/wb-ws-[\w-]+"  # a run's workspace (an absolute path ending in wb-ws-<owner>-XXXXXXXX)


def build(exe: str, e: Endpoint, ui: str) -> Launch:
    config = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        # Claude Code remembers the key's last 20 characters; our keys are shorter.
        "customApiKeyResponses": {"approved": [e.api_key[-20:]], "rejected": []},
        "projects": {str(e.workspace): {"hasTrustDialogAccepted": True}},
    }
    (e.home / ".claude.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    env = {"ANTHROPIC_BASE_URL": e.base_url, "ANTHROPIC_API_KEY": e.api_key, "ANTHROPIC_MODEL": MODEL,
           "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}  # fmt: skip
    allow = ("--permission-mode", "acceptEdits", "--allowedTools", "Bash,Read,Write,Edit")
    if ui == "print":
        return Launch((exe, "-p", e.prompt, *allow), env)
    return Launch((exe, *allow), env, ready="❯")


AGENT = Agent(
    name="claude-code",
    program="claude",
    package="@anthropic-ai/claude-code",
    version="2.1.197",
    profile="claude-code",
    build=build,
    summary="Claude Code: Anthropic Messages, ANTHROPIC_BASE_URL, ~/.claude.json seeded",
    cwd_patterns=(r"Primary working directory: *(\S[^\n]*)",),
    side_markers={
        # the "command prefix" policy check before running shell commands
        "bash-prefix": ("policy spec defines how to determine the prefix of a Bash command", "<policy_spec>"),
        "title": (
            "Generate a concise, sentence-case title",
            "write a 5-10 word title",
            "Summarize this coding conversation",
        ),
        "new-topic": ("Analyze if this message indicates a new conversation topic",),
    },
    masks=(
        r"(?<=Claude Code )v\d+\.\d+\.\d+ ─*",  # the version in the banner's top border, and the fill after it
        WORKSPACE,  # the banner's working directory
        r"(?<=Thought for )\d+s",  # how long the model "thought" (wall time)
        r"(?<=✻ )\S+ for \d+s",  # the idle line: a random verb (Cooked, Baked...) and the turn's duration
    ),
    acp=AcpAdapter("claude-code-acp", "claude-code-acp", "@zed-industries/claude-code-acp", "0.16.2", None),
)
