"""Codex CLI (``@openai/codex``, verified with 0.169.0).

``$CODEX_HOME/config.toml`` with a ``mock`` provider on the Responses API and
the workspace trusted; approvals and sandbox bypassed; the TUI runs with
``--no-daemon`` so no background ``codex app-server`` outlives the run.
"""

from __future__ import annotations

import json

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


AGENT = Agent(
    name="codex",
    program="codex",
    package="@openai/codex",
    version="0.169.0",
    profile="codex",
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
        "codex",
        ((".codex/config.toml", 'sandbox_mode = "danger-full-access"\napproval_policy = "never"\n'),),
    ),
)
