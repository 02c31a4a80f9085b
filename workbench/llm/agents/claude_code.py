"""Claude Code (``@anthropic-ai/claude-code``, verified with 2.1.197).

``ANTHROPIC_BASE_URL`` + ``ANTHROPIC_API_KEY``; ``~/.claude.json`` with
``hasCompletedOnboarding``, the key approved and the workspace trusted; file
edits accepted and ``Bash`` allowed, so no permission dialog.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from workbench.llm.profiles import (
    Call,
    MapContext,
    Signature,
    ToolProfile,
    absolute_path,
    canonical,
    cd_into,
    clean_args,
    props,
    rest_args,
)

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


# ----- its tools (the mock LLM server's tool profile; snapshot from corpus/agent-wire, 2026-11-22)


def _claude(call: Call, ctx: MapContext) -> Call | None:
    a = dict(call.args)
    path = absolute_path(a.pop("path", None), ctx)
    n = call.name
    if n == "runCmd":
        return Call(
            "Bash", {**rest_args(a, "cmd", "cwd"), "command": cd_into(str(a.get("cmd", "")), a.get("cwd"))}
        )
    if n == "readFile":
        return Call("Read", {**rest_args(a, "encoding"), "file_path": path})
    if n == "writeFile":
        return Call("Write", {"file_path": path, "content": a.get("content", "")})
    if n == "editFile":
        edits = a.pop("edits", None)
        if isinstance(edits, list) and edits and isinstance(edits[0], Mapping):
            first = canonical("edit", edits[0])
            a.update(first.args if first else {})
        return Call("Edit", {**clean_args(a), "file_path": path})
    if n == "grep" and ctx.has("Grep"):
        return Call("Grep", clean_args({**a, "path": path}))
    if n == "listDir":
        if ctx.has("LS"):
            return Call("LS", {"path": path or ctx.cwd or "."})
        if a.get("pattern") and ctx.has("Glob"):
            return Call("Glob", clean_args({"pattern": a["pattern"], "path": path}))
    if n == "find" and ctx.has("Glob") and a.get("name"):
        return Call("Glob", clean_args({"pattern": f"**/{a['name']}", "path": path}))
    if n == "task":
        return Call("Agent" if ctx.has("Agent") or not ctx.has("Task") else "Task", a)
    if n == "todoWrite" and not ctx.has("TodoWrite") and ctx.has("TaskCreate"):
        todos = [t for t in a.get("todos") or [] if isinstance(t, Mapping)]
        subject = "; ".join(str(t.get("content", "")) for t in todos) or "Task"
        return Call("TaskCreate", {"subject": subject, "description": subject})
    if n == "bashOutput" and not ctx.has("BashOutput"):
        return Call("TaskOutput", {"task_id": a.get("bash_id", ""), "block": True, "timeout": 30000})
    if n == "killShell" and not ctx.has("KillShell"):
        return Call("TaskStop", {"shell_id": a.get("shell_id", "")})
    if n == "slashCommand" and not ctx.has("SlashCommand"):
        word, _, rest = str(a.get("command", "")).lstrip("/").partition(" ")
        return Call("Skill", clean_args({"skill": word, "args": rest or None}))
    if n == "notebookEdit":
        return Call("NotebookEdit", {**a, "notebook_path": path})
    direct = {"webFetch": "WebFetch", "webSearch": "WebSearch", "todoWrite": "TodoWrite", "exitPlanMode": "ExitPlanMode",
              "bashOutput": "BashOutput", "killShell": "KillShell", "slashCommand": "SlashCommand"}  # fmt: skip
    if n in direct:
        return Call(direct[n], a)
    return None


def _claude_shell(command: str, call: Call, ctx: MapContext) -> Call:
    return Call("Bash", {"command": command})


CLAUDE_CODE_TOOLS: dict[str, frozenset[str] | None] = {
    "Agent": props("description", "isolation", "model", "prompt", "run_in_background", "subagent_type"),
    "AskUserQuestion": props("annotations", "answers", "metadata", "questions"),
    "Bash": props("command", "dangerouslyDisableSandbox", "description", "run_in_background", "timeout"),
    "CronCreate": props("cron", "durable", "prompt", "recurring"),
    "CronDelete": props("id"),
    "CronList": props(),
    "DesignSync": props(
        "assets",
        "counts",
        "deletes",
        "files",
        "localDir",
        "method",
        "name",
        "path",
        "paths",
        "planId",
        "projectId",
        "writes",
    ),
    "Edit": props("file_path", "new_string", "old_string", "replace_all"),
    "EnterPlanMode": props(),
    "EnterWorktree": props("name", "path"),
    "ExitPlanMode": props("allowedPrompts"),
    "ExitWorktree": props("action", "discard_changes"),
    "NotebookEdit": props("cell_id", "cell_type", "edit_mode", "new_source", "notebook_path"),
    "Read": props("file_path", "limit", "offset", "pages"),
    "ReportFindings": props("findings", "level"),
    "ScheduleWakeup": props("delaySeconds", "prompt", "reason"),
    "SendMessage": props("message", "summary", "to"),
    "Skill": props("args", "skill"),
    "TaskCreate": props("activeForm", "description", "metadata", "subject"),
    "TaskGet": props("taskId"),
    "TaskList": props(),
    "TaskOutput": props("block", "task_id", "timeout"),
    "TaskStop": props("shell_id", "task_id"),
    "TaskUpdate": props(
        "activeForm",
        "addBlockedBy",
        "addBlocks",
        "description",
        "metadata",
        "owner",
        "status",
        "subject",
        "taskId",
    ),
    "WebFetch": props("prompt", "url"),
    "WebSearch": props("allowed_domains", "blocked_domains", "query"),
    "Workflow": props("args", "description", "name", "resumeFromRunId", "script", "scriptPath", "title"),
    "Write": props("content", "file_path"),
    # tools of earlier versions (2.0.x): names only
    **dict.fromkeys(
        (
            "Task",
            "Glob",
            "Grep",
            "LS",
            "MultiEdit",
            "NotebookRead",
            "TodoWrite",
            "BashOutput",
            "KillShell",
            "KillBash",
            "SlashCommand",
        ),
        None,
    ),
}

PROFILE = ToolProfile("claude-code", CLAUDE_CODE_TOOLS, _claude, _claude_shell,
                      Signature(frozenset({"Bash"}), frozenset({"Read", "Write", "Edit"})))  # fmt: skip


AGENT = Agent(
    name="claude-code",
    program="claude",
    package="@anthropic-ai/claude-code",
    version="2.1.197",
    wires=("anthropic",),
    profile=PROFILE,
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
