"""Real agents in print mode against the server: each writes a file and runs a command.

Skipped unless the agent is installed: put `claude`, `pi` and `codex` on PATH, or
set WORKBENCH_AGENTS to npm prefixes (`npm i --prefix DIR @anthropic-ai/claude-code`
and so on) separated by `:`. Verified with Claude Code 2.1.197, pi 0.73.1 and
Codex 0.169.0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.llm.conftest import Running, load

pytestmark = pytest.mark.slow

SCENARIO = """\
name: real-{agent}
timeline:
  - userInputs: [[0, "write hello.txt and show it"]]
  - llmResponse:
      - think: [[100, "Write, then cat."]]
      - assistant: [[100, "Writing hello.txt."]]
  - writeFile: {{path: hello.txt, content: "hello from {agent}\\n"}}
  - llmResponse:
      - assistant: [[50, "Now showing it."]]
  - runCmd: {{cmd: cat hello.txt, result: "hello from {agent}"}}
  - llmResponse:
      - assistant: [[50, "Done: hello.txt says hello."]]
  - assert:
      fs: {{exists: [hello.txt]}}
"""
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "TERM": "xterm-256color"}


def binary(name: str) -> str:
    for prefix in filter(None, os.environ.get("WORKBENCH_AGENTS", "").split(":")):
        candidate = Path(prefix) / "node_modules" / ".bin" / name
        if candidate.exists():
            return str(candidate)
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (see this module's docstring)")
    return found


def run_agent(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env={**BASE_ENV, **env}, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=180, check=False)  # fmt: skip


def served(tmp_path: Path, serve: Callable[..., Running], agent: str) -> tuple[Running, Path, Path]:
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    srv = serve(load(tmp_path, SCENARIO.format(agent=agent)), workspace=work, strict_tools=True, speed=8.0)
    return srv, work, home


def check(srv: Running, work: Path, agent: str, done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Done: hello.txt says hello." in done.stdout
    assert (work / "hello.txt").read_text() == f"hello from {agent}\n"
    assert srv.finish() == [] and srv.failures == []


def test_claude_code(tmp_path: Path, serve: Callable[..., Running]) -> None:
    claude = binary("claude")
    srv, work, home = served(tmp_path, serve, "claude")
    env = {"HOME": str(home), "ANTHROPIC_BASE_URL": srv.url, "ANTHROPIC_API_KEY": "test",
           "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}  # fmt: skip
    argv = [
        claude,
        "-p",
        "write hello.txt and show it",
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Bash(cat:*)",
    ]
    check(srv, work, "claude", run_agent(argv, env, work))


@pytest.mark.parametrize("provider", ["mock-anthropic", "mock-chat", "mock-responses"])
def test_pi(tmp_path: Path, serve: Callable[..., Running], provider: str) -> None:
    pi = binary("pi")
    srv, work, home = served(tmp_path, serve, "pi")
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True)
    apis = {"mock-anthropic": ("anthropic-messages", srv.url), "mock-chat": ("openai-completions", srv.openai_url),
            "mock-responses": ("openai-responses", srv.openai_url)}  # fmt: skip
    providers = {name: {"baseUrl": url, "api": api, "apiKey": "test", "models": [{"id": "mock-model", "name": name}]}
                 for name, (api, url) in apis.items()}  # fmt: skip
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    (agent_dir / "settings.json").write_text('{"enableInstallTelemetry": false, "quietStartup": true}')
    env = {"HOME": str(home), "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}
    argv = [pi, "-p", "--provider", provider, "--model", "mock-model", "write hello.txt and show it"]
    check(srv, work, "pi", run_agent(argv, env, work))


def test_codex(tmp_path: Path, serve: Callable[..., Running]) -> None:
    codex = binary("codex")
    srv, work, home = served(tmp_path, serve, "codex")
    codex_home = home / ".codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "mock-model"\nmodel_provider = "mock"\ncheck_for_update_on_startup = false\n\n'
        f'[model_providers.mock]\nname = "Mock"\nbase_url = "{srv.openai_url}"\nenv_key = "MOCK_API_KEY"\n'
        'wire_api = "responses"\n\n[analytics]\nenabled = false\n'
    )
    env = {"HOME": str(home), "CODEX_HOME": str(codex_home), "MOCK_API_KEY": "test"}
    argv = [codex, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
            "write hello.txt and show it"]  # fmt: skip
    check(srv, work, "codex", run_agent(argv, env, work))
