"""Continue's CLI ``cn`` (``@continuedev/cli``, verified with 1.5.47).

``~/.continue/config.yaml`` with one model of the ``openai`` provider whose
``apiBase`` is the server (OpenAI Chat Completions), passed with ``--config``;
``--auto`` allows every tool, so no permission prompt. Its tools (``Read``,
``Write``, ``Edit``, ``Bash``, ``List``...) share Claude Code's names but not
its schemas, so the server speaks to them through the generic profile.
"""

from __future__ import annotations

from workbench.llm.profiles import GENERIC

from .base import MODEL, Agent, Endpoint, Launch, stderr_to_log
from .claude_code import WORKSPACE


def build(exe: str, e: Endpoint, ui: str) -> Launch:
    config = e.home / ".continue" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "name: workbench\nversion: 1.0.0\nschema: v1\nmodels:\n"
        f"  - name: mock\n    provider: openai\n    model: {MODEL}\n"
        f"    apiBase: {e.openai_base_url}\n    apiKey: {e.api_key}\n    roles: [chat]\n",
        encoding="utf-8",
    )
    env = {"CONTINUE_GLOBAL_DIR": str(config.parent), "NO_UPDATE_NOTIFIER": "1"}
    args = ("--auto", "--config", str(config))
    if ui == "print":
        return Launch(stderr_to_log((exe, "-p", *args, e.prompt), env, e), env)
    return Launch((exe, *args), env, ready="Ask anything")


AGENT = Agent(
    name="continue",
    program="cn",
    package="@continuedev/cli",
    version="1.5.47",
    wires=("openai-chat",),
    profile=GENERIC,
    build=build,
    summary="Continue's cn: OpenAI Chat Completions, ~/.continue/config.yaml (--config), --auto",
    cwd_patterns=(r"Working directory: *(\S[^\n]*)",),
    masks=(WORKSPACE,),
)
