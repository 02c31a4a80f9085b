"""pi (``@mariozechner/pi-coding-agent``, verified with 0.73.1).

``~/.pi/agent/models.json`` with one provider per API style (``mock-anthropic``,
the default, ``mock-chat``, ``mock-responses``) and offline settings.
"""

from __future__ import annotations

import json

from workbench.llm.profiles import Call, MapContext, Signature, ToolProfile, cd_into, clean_args, props

from .base import MODEL, Agent, Endpoint, Launch
from .claude_code import WORKSPACE


def build(exe: str, e: Endpoint, ui: str, provider: str = "mock-anthropic") -> Launch:
    agent_dir = e.home / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    apis = {"mock-anthropic": ("anthropic-messages", e.base_url),
            "mock-chat": ("openai-completions", e.openai_base_url),
            "mock-responses": ("openai-responses", e.openai_base_url)}  # fmt: skip
    providers = {name: {"baseUrl": url, "api": api, "apiKey": e.api_key, "models": [{"id": MODEL, "name": name}]}
                 for name, (api, url) in apis.items()}  # fmt: skip
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}, indent=2), encoding="utf-8")
    (agent_dir / "settings.json").write_text(
        json.dumps({"enableInstallTelemetry": False, "quietStartup": True}), encoding="utf-8"
    )
    env = {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}
    args = ("--provider", provider, "--model", MODEL)
    if ui == "print":
        return Launch((exe, "-p", *args, e.prompt), env)
    return Launch((exe, *args), env, ready=MODEL)


# ----- its tools (the mock LLM server's tool profile; snapshot from corpus/agent-wire, 2026-11-22)


def _pi(call: Call, ctx: MapContext) -> Call | None:
    a = dict(call.args)
    n = call.name
    if n == "runCmd":
        timeout = a.get("timeout")
        return Call(
            "bash", clean_args({"command": cd_into(str(a.get("cmd", "")), a.get("cwd")), "timeout": timeout})
        )
    if n == "readFile":
        return Call(
            "read", clean_args({"path": a.get("path"), "offset": a.get("offset"), "limit": a.get("limit")})
        )
    if n == "writeFile":
        return Call("write", {"path": a.get("path"), "content": a.get("content", "")})
    if n == "editFile":
        edits = a.get("edits")
        if not isinstance(edits, list):
            edits = [{"oldText": a.get("old_string", ""), "newText": a.get("new_string", "")}]
        return Call("edit", {"path": a.get("path"), "edits": edits})
    if n == "grep" and ctx.has("grep"):
        return Call("grep", clean_args({"pattern": a.get("pattern"), "path": a.get("path"), "glob": a.get("glob"),
                                    "ignoreCase": a.get("-i")}))  # fmt: skip
    if n == "listDir" and ctx.has("ls"):
        return Call("ls", clean_args({"path": a.get("path")}))
    if n == "find" and ctx.has("find"):
        return Call("find", clean_args({"pattern": a.get("name"), "path": a.get("path")}))
    return None


def _pi_shell(command: str, call: Call, ctx: MapContext) -> Call:
    return Call("bash", {"command": command})


PI_TOOLS: dict[str, frozenset[str] | None] = {
    "bash": props("command", "timeout"),
    "edit": props("edits", "path"),
    "read": props("limit", "offset", "path"),
    "write": props("content", "path"),
    # off by default in 0.73.1
    **dict.fromkeys(("grep", "find", "ls"), None),
}

PROFILE = ToolProfile("pi", PI_TOOLS, _pi, _pi_shell,
                      Signature(frozenset({"bash", "read"}), frozenset({"write", "edit"})))  # fmt: skip


AGENT = Agent(
    name="pi",
    program="pi",
    package="@mariozechner/pi-coding-agent",
    version="0.73.1",
    wires=(
        "anthropic",
        "openai-chat",
        "openai-responses",
    ),  # providers mock-anthropic (its preset's), mock-chat, mock-responses
    profile=PROFILE,
    build=build,
    summary="pi: Anthropic, OpenAI Chat or Responses, ~/.pi/agent/models.json providers",
    cwd_patterns=(r"Current working directory: *(\S[^\n]*)",),
    masks=(
        WORKSPACE,  # the footer's working directory
        r"(?<=Took )\d+\.\d+s",  # how long the bash tool ran
        r"↑\S+ ↓\S+ \S+ \(auto\) +",  # tokens in/out and context use, with the padding before the model's name
    ),
)
