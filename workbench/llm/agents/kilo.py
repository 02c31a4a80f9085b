"""Kilo Code's CLI ``kilo`` (``@kilocode/cli``, verified with 7.7.7).

``$XDG_CONFIG_HOME/kilo/kilo.json`` (under the run's HOME) with a provider of
the bundled ``@ai-sdk/openai-compatible`` package whose ``baseURL`` is the
server (OpenAI Chat Completions), its model the default; autoupdate and
sharing off (it still starts slowly: half a minute on a busy 2-core machine). Its tools (``write {filePath, content}``, ``bash``, ``edit``...)
share pi's names but not its schemas: the generic profile speaks to them.
"""

from __future__ import annotations

import json

from workbench.llm.profiles import GENERIC

from .base import MODEL, Agent, Endpoint, Launch
from .claude_code import WORKSPACE


def build(exe: str, e: Endpoint, ui: str) -> Launch:
    config_home = e.home / ".config"
    (config_home / "kilo").mkdir(parents=True, exist_ok=True)
    # the model's display name is its id: the TUI shows it once it takes input (the ready text)
    provider = {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                "options": {"baseURL": e.openai_base_url, "apiKey": e.api_key},
                "models": {MODEL: {"name": MODEL}}}  # fmt: skip
    config = {
        "provider": {"mock": provider},
        "model": f"mock/{MODEL}",
        "autoupdate": False,
        "share": "disabled",
    }
    (config_home / "kilo" / "kilo.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    env = {"XDG_CONFIG_HOME": str(config_home), "XDG_DATA_HOME": str(e.home / ".local" / "share"),
           "XDG_STATE_HOME": str(e.home / ".local" / "state"), "XDG_CACHE_HOME": str(e.home / ".cache")}  # fmt: skip
    model = ("--model", f"mock/{MODEL}")
    if ui == "print":  # `kilo run` writes its transcript to stderr
        return Launch((exe, "run", *model, e.prompt), env)
    return Launch((exe, *model), env, ready=MODEL)


AGENT = Agent(
    name="kilo",
    program="kilo",
    package="@kilocode/cli",
    version="7.7.7",
    wires=("openai-chat",),
    profile=GENERIC,
    build=build,
    summary="Kilo Code's kilo: OpenAI Chat Completions, a ~/.config/kilo/kilo.json provider",
    cwd_patterns=(r"Working directory: *(\S[^\n]*)",),
    masks=(
        WORKSPACE,  # the footer's working directory
        rf"(?<=· {MODEL} · )\d+(?:\.\d+)?m?s",  # a finished turn's duration (wall time)
    ),
)
