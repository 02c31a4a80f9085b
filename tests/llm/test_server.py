"""What real agents need from the server, and how it treats bad input."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2

from tests.llm.conftest import Running, load
from workbench.llm import LlmFailure
from workbench.timeline import Step

ONE = "name: one\ntimeline:\n  - userInputs: [[0, hi]]\n  - llmResponse: [{assistant: [[0, hello from the scenario]]}]\n"


def test_head_preflight_root_and_models_in_both_shapes(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, ONE))
    assert httpx2.head(srv.url + "/").status_code == 200
    assert httpx2.get(srv.url + "/").json()["scenarios"] == ["one"]
    models = srv.anthropic().models.list()
    assert [mo.id for mo in models.data] == ["mock-model"] and models.data[0].type == "model"
    listed = srv.openai().models.list()
    assert [mo.id for mo in listed.data] == ["mock-model"] and listed.data[0].object == "model"
    assert srv.openai().models.retrieve("gpt-x").id == "gpt-x"


def test_bad_input_gets_the_styles_error_shape_and_the_server_keeps_serving(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, ONE))
    post = lambda path, **kw: httpx2.post(srv.url + path, timeout=30, **kw)  # noqa: E731
    r = post("/v1/messages", content=b"{not json", headers={"anthropic-version": "2023-06-01"})
    assert (
        r.status_code == 400
        and r.json()["type"] == "error"
        and r.json()["error"]["type"] == "invalid_request_error"
    )
    r = post("/v1/chat/completions", json={"model": "m", "messages": "hi"})
    assert r.status_code == 400 and "messages" in r.json()["error"]["message"]
    r = post(
        "/v1/messages", json={"model": "m", "messages": [{"role": "robot", "content": "x"}], "max_tokens": 5}
    )
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"
    r = post("/v1/responses", json=[1, 2])
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"
    r = post("/v1/nothing-here", json={})
    assert r.status_code == 404 and "error" in r.json()
    r = post("/v1/messages/nothing", json={}, headers={"anthropic-version": "2023-06-01"})
    assert r.status_code == 404 and r.json()["error"]["type"] == "not_found_error"
    big = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x" * (10 * 1024 * 1024)}]}
    r = post("/v1/messages", json=big)
    assert r.status_code == 200  # 10 MB is within the limit; it is answered normally
    r = post("/v1/messages", content=b"x" * (33 * 1024 * 1024), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["type"] == "request_too_large"
    with httpx2.Client() as c:
        wrong = c.post(srv.url + "/v1/messages", json={"model": 3, "messages": [], "max_tokens": 1})
    assert wrong.status_code == 400
    msg = srv.anthropic(key="after").messages.create(
        model="m", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
    )
    assert msg.content[0].type == "text"


def test_a_client_leaving_mid_stream_does_not_hurt(tmp_path: Path, serve: Callable[..., Running]) -> None:
    long = "name: long\ntimeline:\n  - llmResponse:\n      - assistant:\n" + "".join(
        f"          - [30, 'chunk {i} ']\n" for i in range(20)
    )
    srv = serve(load(tmp_path, long), speed=1.0)
    body = json.dumps(
        {"model": "m", "max_tokens": 100, "stream": True, "messages": [{"role": "user", "content": "go"}]}
    )
    port = int(srv.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(f"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-api-key: gone\r\n"
                     f"Content-Length: {len(body)}\r\n\r\n{body}".encode())  # fmt: skip
        assert b"200 OK" in sock.recv(4096)
    # the same conversation again: the agent retries after the cut and gets the same reply
    again = srv.anthropic(key="gone").messages.create(
        model="m", max_tokens=100, messages=[{"role": "user", "content": "go"}]
    )
    assert again.content[0].type == "text" and again.content[0].text.startswith("chunk 0 chunk 1")


def test_structured_side_requests_do_not_consume_the_timeline(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, ONE))
    claude = srv.anthropic()
    # Claude Code's session-title request (TUI), before the main turn
    title_schema = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"],
                    "additionalProperties": False}  # fmt: skip
    title = claude.post("/v1/messages?beta=true", cast_to=object, body={
        "model": "m", "max_tokens": 100, "stream": False, "tools": [], "thinking": {"type": "disabled"},
        "system": [{"type": "text", "text": "Generate a concise, sentence-case title (3-7 words) ..."}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "<session>\nfix the login page\n</session>\n\nWrite the title"}]}],
        "output_config": {"effort": "high", "format": {"type": "json_schema", "schema": title_schema}}})  # fmt: skip
    assert isinstance(title, dict)
    assert json.loads(title["content"][0]["text"]) == {"title": "Fix the login page"}
    # Codex's title request: text.format json_schema with maxLength
    codex = srv.openai().responses.create(model="m", input="Generate a concise title.\n\nUser prompt:\nsay hi to everyone in the room please", text={
        "format": {"type": "json_schema", "name": "codex_output_schema", "strict": True, "schema": {
            "type": "object", "properties": {"title": {"type": "string", "minLength": 1, "maxLength": 12}},
            "required": ["title"], "additionalProperties": False}}})  # fmt: skip
    assert json.loads(codex.output_text) == {"title": "Say hi to ev"}
    # a Chat Completions response_format with a nested schema
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object", "required": ["n", "tags", "ok"],
           "properties": {"n": {"type": "integer", "minimum": 3}, "tags": {"type": "array", "items": {"type": "string"},
                                                                           "minItems": 1}, "ok": {"type": "boolean"}}}}}  # fmt: skip
    chat = srv.openai().chat.completions.create(
        model="m", messages=[{"role": "user", "content": "x"}], response_format=fmt
    )  # type: ignore[arg-type]
    assert json.loads(chat.choices[0].message.content or "") == {"n": 3, "tags": ["mock"], "ok": False}
    # Claude Code's Bash prefix policy check, and a one-token probe
    policy = "Your task is to process Bash commands. This policy spec defines how to determine the prefix of a Bash command:"
    prefix = claude.messages.create(model="m", max_tokens=100, system=policy,
                                    messages=[{"role": "user", "content": "Command: git commit -m 'x'"}])  # fmt: skip
    assert prefix.content[0].type == "text" and prefix.content[0].text == "git"
    probe = claude.messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "quota"}])
    assert probe.content[0].type == "text"
    # the conversation itself still starts at the first response
    msg = claude.messages.create(model="m", max_tokens=50, messages=[{"role": "user", "content": "hi"}])
    assert msg.content[0].type == "text" and msg.content[0].text == "hello from the scenario"


def test_asserts_use_the_workspace_and_the_engines_hook(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "data.json").write_text('{"a": [1, {"b": "yes"}]}')
    s = load(tmp_path, "name: a\ntimeline:\n  - llmResponse: [{assistant: [[0, first]]}]\n"
             "  - assert:\n      fs: {exists: [data.json, missing.txt], notExists: [gone.txt]}\n"
             "      json: {file: {path: data.json, pointer: /a/1/b, equals: 'no'}}\n"
             "      text: {contains: [Welcome]}\n"
             "  - screenshot: after-first\n"
             "  - llmResponse: [{assistant: [[0, second]]}]\n")  # fmt: skip
    seen: list[str] = []

    async def on_assert(step: Step) -> list[LlmFailure]:
        await asyncio.sleep(0)
        return [LlmFailure("assert", "the screen does not contain 'Welcome'", step.line, step.index)]

    srv = serve(s, workspace=workspace, on_assert=on_assert, on_step=lambda step: seen.append(step.action))
    client = srv.anthropic()
    history: list[Any] = [{"role": "user", "content": "go"}]
    assert client.messages.create(model="m", max_tokens=9, messages=history).content[0].text == "first"  # type: ignore[union-attr]
    assert srv.failures == []  # nothing is checked before the next request
    history += [{"role": "assistant", "content": "first"}, {"role": "user", "content": "more"}]
    assert client.messages.create(model="m", max_tokens=9, messages=history).content[0].text == "second"  # type: ignore[union-attr]
    assert srv.messages() == [
        "4: assert: fs.exists: `missing.txt` does not exist",
        '4: assert: json.file: `data.json` /a/1/b is "yes", expected "no"',
        "4: assert: the screen does not contain 'Welcome'",
    ]
    assert seen == ["assert", "screenshot"]
    assert srv.call(srv.server.wait_step(99, timeout=0.05)) is False
    assert srv.call(srv.server.wait_step(3, timeout=1)) is True  # steps: first, assert, screenshot, second
    assert srv.finish() == []


def test_a_request_past_the_last_reply_does_not_wait_for_the_steps_hook(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    """The engine's step hook may hold a reply back until the runner has played the steps before it; a
    request with no reply left (a session being recorded) is answered at once, or a paused run hangs it."""
    s = load(
        tmp_path, "name: a\ntimeline:\n  - llmResponse: [{assistant: [[0, first]]}]\n  - advanceMs: 100\n"
    )
    seen: list[str] = []

    async def held(step: Step) -> None:
        seen.append(step.action)
        await asyncio.Event().wait()  # the runner never plays it (paused)

    srv = serve(s, on_step=held)
    client = srv.openai(timeout=10)
    assert (
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}])
        .choices[0]
        .message.content
        == "first"
    )
    reply = client.chat.completions.create(model="m", messages=[
        {"role": "user", "content": "go"}, {"role": "assistant", "content": "first"}, {"role": "user", "content": "more"}])  # fmt: skip
    assert not reply.choices[0].message.content and seen == []
    assert "after the scenario's last one" in " ".join(srv.messages())


def test_finish_reports_unserved_replies_and_missing_results(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    s = load(tmp_path, "name: f\ntimeline:\n  - llmResponse: [{assistant: [[0, go]]}]\n"
             "  - runCmd: {cmd: ls}\n  - llmResponse: [{assistant: [[0, done]]}]\n  - assert: {fs: {exists: [x]}}\n")  # fmt: skip
    srv = serve(s)
    srv.anthropic().messages.create(model="m", max_tokens=50, messages=[{"role": "user", "content": "go"}])
    failures = srv.finish()
    assert [(f.line, f.kind) for f in failures] == [(4, "tool"), (5, "expect")]
    assert [n.message for n in srv.server.notes if n.line == 6] == [
        "fs/json/git checks skipped: the server was given no workspace"
    ]


def test_requests_after_the_last_reply_get_an_empty_answer_and_a_failure(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, ONE))
    client = srv.openai()
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    extra = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "and?"}])
    assert extra.choices[0].message.content == "" and extra.choices[0].finish_reason == "stop"
    assert srv.messages() == ["0: expect: the agent asked for a response after the scenario's last one"]


def test_unknown_fields_and_query_strings_are_ignored(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, ONE))
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi", "extra": 1}],
            "metadata": {"user_id": "{}"}, "something_new": {"x": [1]}}  # fmt: skip
    r = httpx2.post(srv.url + "/v1/messages?beta=true&x=1", json=body, headers={"x-api-key": "q"})
    assert r.status_code == 200 and r.json()["content"][0]["text"] == "hello from the scenario"
    assert r.headers["request-id"].startswith("req_")
    chat = srv.openai(key="o").chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], n=1, seed=3
    )
    assert chat.choices[0].message.content == "hello from the scenario"
