"""Codex CLI (``@openai/codex``, verified with 0.169.0).

``$CODEX_HOME/config.toml`` with a ``mock`` provider on the Responses API and
the workspace trusted; approvals and sandbox bypassed; the TUI runs with
``--no-daemon`` so no background ``codex app-server`` outlives the run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from workbench.llm.profiles import Call, MapContext, Signature, ToolProfile, clean_args, props, rest_args

from .base import MODEL, AcpAdapter, Agent, Endpoint, Launch, stderr_to_log
from .claude_code import WORKSPACE


def _toml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string


def build(exe: str, e: Endpoint, ui: str) -> Launch:
    codex_home = e.home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        f'model = "{MODEL}"\nmodel_provider = "mock"\ncheck_for_update_on_startup = false\n\n'
        f'[model_providers.mock]\nname = "Mock"\nbase_url = {_toml(e.openai_base_url)}\n'
        'env_key = "MOCK_API_KEY"\nwire_api = "responses"\n\n'
        "[analytics]\nenabled = false\n\n"
        "[features]\ndaemon_auto_start = false\n\n"
        f'[projects.{_toml(str(e.workspace))}]\ntrust_level = "trusted"\n',
        encoding="utf-8",
    )
    env = {"CODEX_HOME": str(codex_home), "MOCK_API_KEY": e.api_key}
    bypass = "--dangerously-bypass-approvals-and-sandbox"
    if ui == "print":
        # `codex exec` prints its answer on stdout and a transcript with timings, token counts and the
        # session id on stderr: the transcript goes to a log beside HOME, the screen shows the answer.
        return Launch(stderr_to_log((exe, "exec", "--skip-git-repo-check", bypass, e.prompt), env, e), env)
    return Launch((exe, "--no-daemon", bypass), env, ready="›")


# ----- its tools (the mock LLM server's tool profile; snapshot from corpus/agent-wire, 2026-11-22)


def _codex(call: Call, ctx: MapContext) -> Call | None:
    if call.name == "runCmd":
        a = call.args
        rest = rest_args(a, "cmd", "cwd", "timeout", "description", "run_in_background")
        return _codex_shell(str(a.get("cmd", "")), call, ctx, cwd=a.get("cwd"), extra=rest)
    if call.name == "todoWrite" and ctx.has("update_plan"):
        todos = [t for t in call.args.get("todos") or [] if isinstance(t, Mapping)]
        plan = [{"step": str(t.get("content", "")), "status": str(t.get("status", "pending"))} for t in todos]
        return Call("update_plan", {"plan": plan})
    if call.name == "webSearch" and ctx.has("web_search") and ctx.offered["web_search"].type == "function":
        return Call("web_search", dict(call.args))
    return None


def _codex_shell(
    command: str, call: Call, ctx: MapContext, *, cwd: Any = None, extra: Mapping[str, Any] | None = None
) -> Call:
    if ctx.has("shell") and not ctx.has("exec_command"):
        return Call("shell", clean_args({"command": ["bash", "-lc", command], "workdir": cwd}))
    return Call("exec_command", {**(extra or {}), **clean_args({"cmd": command, "workdir": cwd})})


CODEX_TOOLS: dict[str, frozenset[str] | None] = {
    "create_goal": props("objective", "token_budget"),
    "exec_command": props(
        "cmd",
        "justification",
        "login",
        "max_output_tokens",
        "prefix_rule",
        "sandbox_permissions",
        "shell",
        "tty",
        "workdir",
        "yield_time_ms",
    ),
    "get_goal": props(),
    "list_mcp_resource_templates": props("cursor", "server"),
    "list_mcp_resources": props("cursor", "server"),
    "mcp__codex_tui": None,
    "multi_agent_v1": None,
    "read_mcp_resource": props("server", "uri"),
    "request_user_input": props("questions"),
    "update_goal": props("status"),
    "view_image": props("path"),
    "web_search": None,
    "write_stdin": props("chars", "max_output_tokens", "session_id", "yield_time_ms"),
    # earlier versions and other model families
    **dict.fromkeys(("shell", "apply_patch", "update_plan", "local_shell"), None),
}

PROFILE = ToolProfile("codex", CODEX_TOOLS, _codex, lambda cmd, call, ctx: _codex_shell(cmd, call, ctx),
                      Signature(any_of=frozenset({"exec_command", "shell", "apply_patch", "write_stdin"})))  # fmt: skip


AGENT = Agent(
    name="codex",
    program="codex",
    package="@openai/codex",
    version="0.169.0",
    wires=("openai-responses",),
    profile=PROFILE,
    build=build,
    summary="Codex CLI: OpenAI Responses, $CODEX_HOME/config.toml provider",
    cwd_patterns=(r"<cwd>([^<\n]+)</cwd>",),
    masks=(
        r"(?<=OpenAI Codex \()v\d+\.\d+\.\d+(?=\))",  # the version in the header
        WORKSPACE,  # the header's and the footer's working directory
        r"(?<=Worked for )\S+ • \d{1,2}:\d{2}",  # the turn's duration ("<1s") and the clock time
    ),
    # no sandbox and no approvals, as --dangerously-bypass-approvals-and-sandbox: the workspace is the sandbox,
    # and codex's own cannot run in a container without user namespaces
    acp=AcpAdapter(
        "codex-acp",
        "codex-acp",
        "@zed-industries/codex-acp",
        "0.16.0",
        PROFILE,
        ((".codex/config.toml", 'sandbox_mode = "danger-full-access"\napproval_policy = "never"\n'),),
    ),
)
