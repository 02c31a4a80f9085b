"""pi (``@mariozechner/pi-coding-agent``, verified with 0.73.1).

``~/.pi/agent/models.json`` with one provider per API style (``mock-anthropic``,
the default, ``mock-chat``, ``mock-responses``) and offline settings.
"""

from __future__ import annotations

import json

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


AGENT = Agent(
    name="pi",
    program="pi",
    package="@mariozechner/pi-coding-agent",
    version="0.73.1",
    profile="pi",
    build=build,
    summary="pi: Anthropic, OpenAI Chat or Responses, ~/.pi/agent/models.json providers",
    cwd_patterns=(r"Current working directory: *(\S[^\n]*)",),
    masks=(
        WORKSPACE,  # the footer's working directory
        r"(?<=Took )\d+\.\d+s",  # how long the bash tool ran
        r"↑\S+ ↓\S+ \S+ \(auto\) +",  # tokens in/out and context use, with the padding before the model's name
    ),
)
