"""Compatibility with what Claude Code 2.1.197, Codex 0.169.0 and pi 0.73.1 really send
(`corpus/agent-wire`): every captured request parses, is recognised, and is answered."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.conftest import CORPUS
from tests.llm.conftest import Running, rule, rules_scenario
from workbench.llm.profiles import detect_profile
from workbench.llm.structured import side_request
from workbench.llm.wire import AnthropicWire, ChatWire, ResponsesWire, Wire

pytestmark = pytest.mark.corpus
WIRE = CORPUS / "agent-wire"
WIRES: dict[str, Wire] = {
    "/v1/messages": AnthropicWire(),
    "/v1/chat/completions": ChatWire(),
    "/v1/responses": ResponsesWire(),
}
PROFILE = {"claude-code": "claude-code", "codex": "codex", "pi": "pi"}
SKIPPED_HEADERS = {"host", "content-length", "connection", "accept-encoding"}


def captured() -> Iterator[dict[str, Any]]:
    if not WIRE.is_dir():
        return
    for path in sorted(WIRE.glob("*/requests.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            yield json.loads(line)


def posts() -> list[dict[str, Any]]:
    return [r for r in captured() if r["method"] == "POST"]


@pytest.fixture(autouse=True)
def _corpus(corpus: Path) -> None:
    assert (corpus / "agent-wire").is_dir()


def test_every_request_parses_and_is_recognised() -> None:
    requests = posts()
    assert len(requests) == 37
    side = []
    for r in requests:
        chat = WIRES[r["path"]].parse(r["body"])
        assert chat.stream, r["scenario"]
        if side_request(chat) is not None:
            side.append((r["agent"], r["scenario"]))
            continue
        assert chat.first_prompt() in ("say hi", "write hello.txt", "write tui.txt", "say hi from the tui"), (
            r["scenario"], chat.first_prompt())  # fmt: skip
        assert chat.agent_cwd() and chat.agent_cwd().startswith("/srv/agents/work-"), r["scenario"]  # type: ignore[union-attr]
        profile = detect_profile(chat.tool_names)
        assert profile.name == PROFILE[r["agent"]], r["scenario"]
        assert profile.diff(chat.tools, []) == [], (r["scenario"], profile.diff(chat.tools, []))
    # the session-title requests of Claude Code's and Codex's TUIs, nothing else
    assert side == [("claude-code", "claude-tui-tool"), ("codex", "codex-tui"), ("codex", "codex-tui2")]


def test_tool_results_and_roles_as_the_agents_send_them() -> None:
    by_run = {(r["scenario"], r["seq"]): r for r in posts()}
    claude = AnthropicWire().parse(by_run[("claude-tool-acceptEdits", 3)]["body"])
    assert [m.role for m in claude.messages] == ["user", "system", "assistant", "user"]
    (result,) = claude.trailing_tool_results()
    assert result.call_id.startswith("toolu_mock_") and result.text.startswith("File created successfully")
    assert claude.ends_with_tool_results() and claude.thinking
    codex = ResponsesWire().parse(by_run[("codex-tool-ws", 2)]["body"])
    (out,) = codex.trailing_tool_results()
    assert out.text.startswith("Chunk ID") and "Process exited with code 0" in out.text
    assert [m.role for m in codex.messages[:3]] == ["developer", "developer", "user"]
    pi = ChatWire().parse(by_run[("pi-tool", 4)]["body"])
    assert [m.role for m in pi.messages] == ["system", "user", "assistant", "tool"]
    assert pi.trailing_tool_results()[0].text == "Successfully wrote 19 bytes to hello.txt"


def test_every_request_is_answered_by_a_live_server(serve: Callable[..., Running]) -> None:
    srv = serve(rules_scenario([rule("any", "", "Hello from mock")], name="mock"))
    ends = {"/v1/messages": "event: message_stop", "/v1/chat/completions": "data: [DONE]",
            "/v1/responses": "event: response.completed"}  # fmt: skip
    with httpx2.Client(base_url=srv.url, timeout=30) as client:
        for r in captured():
            headers = {k: v for k, v in r["headers"].items() if k.lower() not in SKIPPED_HEADERS}
            headers = {k: (f"key-{r['scenario']}" if v == "<redacted>" else v) for k, v in headers.items()}
            if r["method"] == "HEAD":
                assert client.head(r["path"], headers=headers).status_code == 200
                continue
            query = f"?{r['query']}" if r["query"] else ""
            reply = client.post(r["path"] + query, json=r["body"], headers=headers)
            assert reply.status_code == 200, (r["scenario"], reply.text[:300])
            assert ends[r["path"]] in reply.text, r["scenario"]
    assert srv.failures == []
