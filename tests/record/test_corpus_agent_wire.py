"""The captured vendor traffic of `../shared/corpus/agent-wire` (Claude Code, pi, Codex) replayed through the
recording proxy: each captured run's requests are sent as the agent sent them, to the mock LLM server as the
upstream (a real HTTP server on 127.0.0.1), and the recording is written as a scenario. Real requests (76 KB
bodies, `role: system` inside `messages`, developer messages, title side requests, three API styles in one
run) must pass the proxy unchanged and come out as the right turns. Skipped when the corpus is absent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.conftest import CORPUS, require_corpus
from workbench.llm import LlmServer
from workbench.llm.drift import read_sidecar, sidecar_path
from workbench.record.proxy import RecordingProxy
from workbench.record.redact import Redactor
from workbench.record.writer import Recording, conversation, write_recording
from workbench.scenario import model as m
from workbench.scenario.loader import load_scenario

pytestmark = pytest.mark.corpus
SKIP_HEADERS = {"host", "content-length", "connection", "authorization", "x-api-key", "transfer-encoding"}


def runs() -> dict[tuple[str, str], list[dict[str, Any]]]:
    corpus = require_corpus() / "agent-wire"
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for path in sorted(corpus.glob("*/requests.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            out.setdefault((entry["agent"], entry["scenario"]), []).append(entry)
    return out


def mock() -> m.Scenario:
    """The upstream: every request answered with the corpus mock's text, in its own API style."""
    rules = m.RuleSet((), m.Reply("Hello from mock"), timeouts=m.Timeouts(response_delay_ms=0))
    return m.Scenario(name="agent-wire", file="agent-wire.toml", format="claudeless", rules=rules)


async def replay(entries: list[dict[str, Any]], tmp_path: Path) -> tuple[RecordingProxy, list[int]]:
    upstream = LlmServer([mock()])
    proxy = RecordingProxy(await upstream.start(), Redactor({}), {})
    url = await proxy.start()
    statuses = []
    try:
        async with aiohttp.ClientSession() as session:
            for entry in entries:
                headers = {k: v for k, v in entry["headers"].items() if k.lower() not in SKIP_HEADERS}
                headers["x-api-key"] = "agent-wire"
                target = url + entry["path"] + (f"?{entry['query']}" if entry["query"] else "")
                body = json.dumps(entry["body"]).encode() if "body" in entry else None
                async with session.request(entry["method"], target, data=body, headers=headers) as response:
                    await response.read()
                    statuses.append(response.status)
    finally:
        await proxy.stop()
        await upstream.stop()
    return proxy, statuses


@pytest.mark.parametrize("run", [f"{a}/{s}" for a, s in runs()] if CORPUS.is_dir() else ["absent/corpus"])
def test_captured_runs_pass_the_proxy_and_become_scenarios(run: str, tmp_path: Path) -> None:
    agent, name = run.split("/")
    entries = runs()[(agent, name)]  # skips when the corpus is absent
    proxy, statuses = asyncio.run(replay(entries, tmp_path))
    assert statuses == [200] * len(entries)
    sent = [json.dumps(e["body"]).encode() for e in entries if "body" in e]
    assert [x.body for x in proxy.exchanges if x.method == "POST"] == sent  # forwarded as the agent sent it
    turns = conversation(proxy.exchanges)
    posts = [e for e in entries if e["method"] == "POST"]
    # a tool-less request is a side request (a title) unless it is the only kind the run has
    expected = [e for e in posts if e["body"].get("tools") or not any(p["body"].get("tools") for p in posts)]
    assert [t.exchange.path for t in turns] == [e["path"] for e in expected], run
    assert all(t.reply.text == "Hello from mock" for t in turns)
    recording = Recording(name=name, command=("agent", "{base_url}"), agent=None, width=80, height=24,
                          workspace=tmp_path / "ws", home=tmp_path / "home", upstream="http://upstream",
                          exchanges=proxy.exchanges)  # fmt: skip
    written = write_recording(recording, tmp_path / f"{name}.yaml", tmp_path / "screenshots", Redactor({}))
    scenario = load_scenario(written.scenario, env={})
    assert len([e for e in scenario.timeline if isinstance(e, m.LlmResponse)]) == len(turns)
    shapes = read_sidecar(sidecar_path(written.scenario))
    assert [[t["name"] for t in s["tools"]] for s in shapes] == [
        [tool_name(t) for t in e["body"].get("tools") or ()] for e in expected
    ]


def tool_name(tool: dict[str, Any]) -> str:
    """A tool's name as each style writes it (Chat nests it under `function`; built-ins have only a type)."""
    return str(tool.get("name") or (tool.get("function") or {}).get("name") or tool.get("type"))
