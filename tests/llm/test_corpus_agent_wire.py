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
from tests.llm.conftest import Running, load, rule, rules_scenario
from workbench.llm.agents import AGENTS, detect_profile
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


def test_each_agent_speaks_the_wire_its_module_declares() -> None:
    """An agent's captured requests are in the API styles its module declares (the path claims the style),
    its preset's own (the first) among them."""
    from workbench.llm.wire import wire_for

    seen: dict[str, set[str]] = {}
    for r in posts():
        seen.setdefault(r["agent"], set()).add(wire_for(r["path"], r.get("headers") or {}).style)
    assert set(seen) == set(PROFILE)
    for agent, styles in seen.items():
        assert styles <= set(AGENTS[agent].wires) and AGENTS[agent].wires[0] in styles, (agent, styles)


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


def conversations() -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The captured POSTs by run and API path: one conversation each, in order."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in posts():
        out.setdefault((r["scenario"], r["path"]), []).append(r)
    return out


TOOL_ANSWERS = ("tool_use", "tool", "tool_calls")


def replay_scenario(requests: list[dict[str, Any]]) -> str:
    """A timeline that answers as the capturing mock did: a tool call where it made one, text elsewhere
    (its side requests, answered with JSON, are no step of a scenario)."""
    lines = ["name: replay", "timeline:"]
    for r in requests:
        answer = r["mock_response"].split()[-1]
        if not r["body"].get("tools") and answer not in TOOL_ANSWERS:
            continue  # the capturing mock's schema answers: side requests here
        lines.append('  - llmResponse: [{assistant: [[0, "Hello from mock"]]}]')
        if answer in TOOL_ANSWERS:
            lines.append('  - writeFile: {path: hello.txt, content: "hello from tool\\n"}')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("key", sorted(conversations()), ids=lambda k: f"{k[0]}{k[1]}")
def test_replayed_conversations_get_the_answers_they_got(
    tmp_path: Path, serve: Callable[..., Running], key: tuple[str, str]
) -> None:
    """No captured request of a known agent changes its answer under the any-agent rules:
    side requests stay side requests, turns get their reply (text or tool call) in order."""
    requests = conversations()[key]
    seen: list[str] = []
    srv = serve(load(tmp_path, replay_scenario(requests)), on_request=lambda e: seen.append(e["outcome"]))
    with httpx2.Client(base_url=srv.url, timeout=30) as client:
        for r in requests:
            headers = {k: v for k, v in r["headers"].items() if k.lower() not in SKIPPED_HEADERS}
            headers = {k: ("key" if v == "<redacted>" else v) for k, v in headers.items()}
            query = f"?{r['query']}" if r["query"] else ""
            assert client.post(r["path"] + query, json=r["body"], headers=headers).status_code == 200
    expected = []
    for r in requests:
        answer = r["mock_response"].split()[-1]
        side = not r["body"].get("tools") and answer not in TOOL_ANSWERS
        expected.append("side" if side else "tool" if answer in TOOL_ANSWERS else "text")
    got = [
        "side" if o.startswith("side request") else "tool" if o.startswith("tool_use") else "text"
        for o in seen
    ]
    assert got == expected, (key, seen)
    srv.finish()
    # the captured results answer the capturing mock's call ids, not ours: only tool checks may fail
    assert [f for f in srv.failures if f.kind != "tool"] == [], srv.messages()
    assert srv.server.notes == [] or all("served again" not in n.message for n in srv.server.notes)


def test_known_agents_keep_their_profiles_with_schemas() -> None:
    """A named profile is chosen only when the offered schemas match its snapshot: they do for
    every captured request of the three agents."""
    for r in posts():
        chat = WIRES[r["path"]].parse(r["body"])
        if chat.tools:
            assert detect_profile(chat.tools).name == PROFILE[r["agent"]], r["scenario"]
