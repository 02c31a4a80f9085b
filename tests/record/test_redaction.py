"""No secret reaches disk: the user's key goes upstream, never into the agent, the scenario, the goldens,
the sidecar or a replay's trace; every environment value named like a key or token is redacted too."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anthropic
from aiohttp import web

from tests.cli_process import workbench
from tests.record.helpers import agent_command, record, serve_llm
from workbench.record.proxy import RecordingProxy
from workbench.record.redact import REDACTED, Redactor, secret_names

KEY = "sk-ant-api03-recording-test-0123456789"
TOKEN = "deploy-tok-5f2a9c7e11"
LEAKY = f"""\
name: upstream
timeline:
  - userInputs:
      - [0, "show the env"]
  - llmResponse:
      - assistant:
          - [10, "Your key is {KEY} and the token {TOKEN}."]
  - agentToolUse:
      toolName: runCmd
      args: {{cmd: "echo {TOKEN} > leak.txt; echo {KEY}"}}
  - llmResponse:
      - assistant:
          - [10, "Echoed {KEY}."]
"""


def test_no_written_file_holds_a_secret(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": KEY, "MY_DEPLOY_TOKEN": TOKEN}
    with serve_llm(tmp_path, LEAKY) as url:
        done = record(tmp_path, url, "scenarios/leak.yaml", agent_command("anthropic"), "--prompt", "show the env",
                      env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    replay = workbench("run", "scenarios", "--mode", "real-agent", "--ci", "--out", "runs", cwd=tmp_path)
    written = [p for p in tmp_path.rglob("*") if p.is_file() and "upstream" not in p.parts]
    assert any(p.suffix == ".golden" for p in written) and any(p.name == "trace.jsonl" for p in written)
    for path in written:
        data = path.read_bytes()
        assert KEY.encode() not in data and TOKEN.encode() not in data, path
    scenario = (tmp_path / "scenarios" / "leak.yaml").read_text()
    assert f"Your key is {REDACTED} and the token {REDACTED}." in scenario
    assert KEY not in done.stdout + done.stderr and KEY not in replay.stdout + replay.stderr


def test_the_proxy_sends_the_users_credential_upstream_and_keeps_it_out_of_the_exchange() -> None:
    seen: list[dict[str, str]] = []

    async def upstream(request: web.Request) -> web.Response:
        seen.append(dict(request.headers))
        return web.json_response({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                                  "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
                                  "usage": {"input_tokens": 1, "output_tokens": 1}})  # fmt: skip

    async def main() -> tuple[Any, RecordingProxy]:
        app = web.Application()
        app.router.add_post("/v1/messages", upstream)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        redactor = Redactor({"ANTHROPIC_API_KEY": KEY})
        proxy = RecordingProxy(f"http://127.0.0.1:{port}", redactor, {"ANTHROPIC_API_KEY": KEY})
        url = await proxy.start()
        client = anthropic.Anthropic(base_url=url, api_key="wb-throwaway-key", max_retries=0)
        message = await asyncio.to_thread(
            client.messages.create, model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
        await proxy.stop()
        await runner.cleanup()
        return message, proxy

    message, proxy = asyncio.run(main())
    assert message.content[0].text == "hi"
    assert seen[0]["x-api-key"] == KEY and "wb-throwaway-key" not in str(seen[0])
    (exchange,) = proxy.exchanges
    credential = exchange.headers.get("x-api-key") or exchange.headers.get(
        "authorization"
    )  # as the SDK sends it
    assert credential == REDACTED and exchange.status == 200, exchange.headers


def test_what_counts_as_a_secret() -> None:
    environ = {"OPENAI_API_KEY": "sk-1234567890", "GITHUB_TOKEN": "ghp_abcdefgh", "DB_PASSWORD": "hunter2hunter2",
               "TOKEN_LIMIT": "8", "PATH": "/usr/bin", "KEYBOARD": "us-international", "AUTH_HEADER": "Basic QWxhZGRpbjpvcGVu"}  # fmt: skip
    assert secret_names(environ) == [
        "AUTH_HEADER",
        "DB_PASSWORD",
        "GITHUB_TOKEN",
        "OPENAI_API_KEY",
        "TOKEN_LIMIT",
    ]
    redactor = Redactor(environ)
    assert (
        redactor.text("a sk-1234567890 b ghp_abcdefgh 8 us-international")
        == f"a {REDACTED} b {REDACTED} 8 us-international"
    )
    redactor.add_headers({"Authorization": "Bearer live-token-xyz123"})
    assert redactor.text("token live-token-xyz123") == f"token {REDACTED}"
    assert redactor.data({"k": ["hunter2hunter2"]}) == {"k": [REDACTED]}
