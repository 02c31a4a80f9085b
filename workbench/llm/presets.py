"""Agent presets for `workbench run --mode real-agent`: how to run a real coding
agent against the mock LLM server, in our pty, with nothing to click through.

A preset installs nothing. It finds the agent's program (in the npm prefixes
listed in ``$WORKBENCH_AGENTS``, separated by ``:``, then on ``PATH``), writes a
fresh HOME under the run folder with the config files that skip onboarding,
trust and login prompts, and sets the base URL and API key for the server:

* ``claude-code`` (``@anthropic-ai/claude-code``, tested with 2.1.197):
  ``ANTHROPIC_BASE_URL`` + ``ANTHROPIC_API_KEY``; ``~/.claude.json`` with
  ``hasCompletedOnboarding``, the key approved and the workspace trusted; file
  edits accepted and ``Bash`` allowed, so no permission dialog;
* ``codex`` (``@openai/codex``, 0.169.0): ``$CODEX_HOME/config.toml`` with a
  ``mock`` provider on the Responses API and the workspace trusted;
  approvals and sandbox bypassed; the TUI runs with ``--no-daemon`` so no
  background ``codex app-server`` outlives the run;
* ``pi`` (``@mariozechner/pi-coding-agent``, 0.73.1): ``~/.pi/agent/models.json``
  with one provider per API style (``mock-anthropic``, the default,
  ``mock-chat``, ``mock-responses``) and offline settings.

Each has a print mode (the prompt on the command line, the agent prints its
answer and exits) and a TUI mode (the engine types the scenario's inputs).
Any other agent runs from the scenario's ``command`` with the placeholders
``{base_url}``, ``{openai_base_url}``, ``{api_key}``, ``{workspace}``,
``{prompt}`` (see :func:`expand_command`).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

MODEL = "mock-model"
UIS = ("tui", "print")


class PresetError(Exception):
    """The agent is not installed, or the preset name is unknown."""


@dataclass(frozen=True)
class Endpoint:
    """Where the agent finds the model, and what it runs on."""

    base_url: str
    api_key: str
    workspace: Path
    home: Path
    prompt: str = ""

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"


@dataclass(frozen=True)
class Launch:
    argv: tuple[str, ...]
    env: dict[str, str]
    ready: str | None = None  # text the TUI shows once it takes input


Builder = Callable[[str, Endpoint, str], Launch]


@dataclass(frozen=True)
class Preset:
    name: str
    program: str  # the executable's name
    package: str  # the npm package
    version: str  # the version this preset was verified with
    profile: str  # the tool profile of the mock LLM server
    build: Builder

    def install_hint(self) -> str:
        return f"npm install -g {self.package}@{self.version}"

    def launch(self, endpoint: Endpoint, ui: str, environ: Mapping[str, str] | None = None) -> Launch:
        """argv and environment for this agent; writes its HOME. Raises PresetError when not installed."""
        if ui not in UIS:
            raise PresetError(f"unknown agent UI `{ui}`; known: {', '.join(UIS)}")
        exe = find_program(self.program, environ)
        if exe is None:
            raise PresetError(
                f"{self.name}: `{self.program}` is not installed: `{self.install_hint()}` "
                "(or list npm prefixes in WORKBENCH_AGENTS)"
            )
        endpoint.home.mkdir(parents=True, exist_ok=True)
        return self.build(exe, endpoint, ui)


def find_program(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """``name`` in the npm prefixes of ``$WORKBENCH_AGENTS``, else on ``PATH``."""
    environ = os.environ if environ is None else environ
    for prefix in filter(None, environ.get("WORKBENCH_AGENTS", "").split(":")):
        for candidate in (Path(prefix) / "node_modules" / ".bin" / name, Path(prefix) / "bin" / name):
            if candidate.exists():
                return str(candidate)
    return shutil.which(name, path=environ.get("PATH"))


# --------------------------------------------------------------------------- Claude Code


def _claude(exe: str, e: Endpoint, ui: str) -> Launch:
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


# --------------------------------------------------------------------------- Codex


def _toml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string


def _codex(exe: str, e: Endpoint, ui: str) -> Launch:
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
        env["WORKBENCH_AGENT_LOG"] = str(e.home.parent / "agent-stderr.log")
        redirect = 'exec "$0" "$@" 2>>"$WORKBENCH_AGENT_LOG"'
        return Launch(("sh", "-c", redirect, exe, "exec", "--skip-git-repo-check", bypass, e.prompt), env)
    return Launch((exe, "--no-daemon", bypass), env, ready="›")


# --------------------------------------------------------------------------- pi


def _pi(exe: str, e: Endpoint, ui: str, provider: str = "mock-anthropic") -> Launch:
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


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("claude-code", "claude", "@anthropic-ai/claude-code", "2.1.197", "claude-code", _claude),
        Preset("codex", "codex", "@openai/codex", "0.169.0", "codex", _codex),
        Preset("pi", "pi", "@mariozechner/pi-coding-agent", "0.73.1", "pi", _pi),
    )
}


def preset_named(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise PresetError(f"unknown agent preset `{name}`; known: {', '.join(PRESETS)}") from None


PLACEHOLDERS = ("base_url", "openai_base_url", "api_key", "workspace", "prompt")


def expand_command(argv: Sequence[str], endpoint: Endpoint) -> tuple[str, ...]:
    """A scenario ``command`` for any other agent, its ``{placeholder}`` words filled in.

    Only the names in :data:`PLACEHOLDERS` are replaced, so other braces (JSON,
    shell) pass through unchanged."""
    values = {
        "base_url": endpoint.base_url,
        "openai_base_url": endpoint.openai_base_url,
        "api_key": endpoint.api_key,
        "workspace": str(endpoint.workspace),
        "prompt": endpoint.prompt,
    }
    out = []
    for word in argv:
        for name, value in values.items():
            word = word.replace("{" + name + "}", value)
        out.append(word)
    return tuple(out)


def endpoint_env(endpoint: Endpoint) -> dict[str, str]:
    """What a plain ``command`` also gets: the usual SDK variables, pointing at the server."""
    return {
        "WORKBENCH_LLM_BASE_URL": endpoint.base_url,
        "WORKBENCH_LLM_API_KEY": endpoint.api_key,
        "ANTHROPIC_BASE_URL": endpoint.base_url,
        "ANTHROPIC_API_KEY": endpoint.api_key,
        "OPENAI_BASE_URL": endpoint.openai_base_url,
        "OPENAI_API_KEY": endpoint.api_key,
    }
