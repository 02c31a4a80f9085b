"""Google's Gemini API through the official SDK (`google-genai`): text, thoughts and
function calls, streaming (`alt=sse`) and not; errors in Google's shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from google.genai import errors, types

from tests.llm.conftest import GEMINI_TOOLS, Running, load, rule, rules_scenario
from workbench.scenario import model as m

SCENARIO = """\
name: gemini
timeline:
  - userInputs: [[0, "make notes.txt"]]
  - llmResponse:
      - think: [[10, "Two lines, then count them."]]
      - assistant: [[10, "Creating notes.txt now."]]
  - writeFile: {path: notes.txt, content: "a\\nb\\n"}
  - runCmd: {cmd: wc -l notes.txt, result: "2 notes.txt"}
  - llmResponse:
      - assistant: [[10, "notes.txt has 2 lines."]]
"""

THOUGHTS = types.GenerateContentConfig(
    tools=GEMINI_TOOLS,  # type: ignore[arg-type]
    thinking_config=types.ThinkingConfig(include_thoughts=True),
)


def user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def answer(calls: list[types.FunctionCall], outputs: list[str]) -> list[types.Content]:
    """The model turn with its calls, then the user turn with one response per call (no ids)."""
    model = types.Content(role="model", parts=[types.Part(function_call=c) for c in calls])
    responses = [
        types.Part(function_response=types.FunctionResponse(name=c.name, response={"output": out}))
        for c, out in zip(calls, outputs, strict=True)
    ]
    return [model, types.Content(role="user", parts=responses)]


def test_streaming_thoughts_text_and_function_calls(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.gemini()
    chunks = list(
        client.models.generate_content_stream(
            model="gemini-2.5-pro", contents=[user("make notes.txt")], config=THOUGHTS
        )
    )
    parts = [p for c in chunks for p in (c.candidates[0].content.parts or [])]  # type: ignore[index,union-attr]
    thought = "".join(p.text or "" for p in parts if p.thought)
    text = "".join(p.text or "" for p in parts if not p.thought and p.text)
    calls = [p.function_call for p in parts if p.function_call]
    assert thought == "Two lines, then count them." and text == "Creating notes.txt now."
    assert [(c.name, c.args) for c in calls] == [  # type: ignore[union-attr]
        ("write_file", {"file_path": "notes.txt", "content": "a\nb\n"}),
        ("run_shell_command", {"command": "wc -l notes.txt"}),
    ]
    last = chunks[-1]
    assert last.candidates[0].finish_reason == types.FinishReason.STOP  # type: ignore[index]
    usage = last.usage_metadata
    assert usage is not None and usage.prompt_token_count and usage.thoughts_token_count
    assert [c.candidates[0].finish_reason for c in chunks[:-1]] == [None] * (len(chunks) - 1)  # type: ignore[index]
    history = [user("make notes.txt"), *answer(calls, ["wrote notes.txt", "2 notes.txt\n"])]  # type: ignore[arg-type]
    final = client.models.generate_content(model="gemini-2.5-pro", contents=history, config=THOUGHTS)  # type: ignore[arg-type]
    assert final.text == "notes.txt has 2 lines." and final.model_version == "gemini-2.5-pro"
    assert srv.failures == []


def test_thoughts_only_when_asked_and_non_streaming(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    config = types.GenerateContentConfig(tools=GEMINI_TOOLS)  # type: ignore[arg-type]
    client = srv.gemini()  # held: the SDK closes its connection pool when the client is collected
    reply = client.models.generate_content(model="m", contents="make notes.txt", config=config)
    parts = reply.candidates[0].content.parts  # type: ignore[index,union-attr]
    assert [p.thought for p in parts] == [None, None, None]  # type: ignore[union-attr]
    assert parts[0].text == "Creating notes.txt now."  # type: ignore[index]
    assert reply.function_calls and [c.name for c in reply.function_calls] == [
        "write_file",
        "run_shell_command",
    ]


def test_results_are_matched_by_name_and_order(tmp_path: Path, serve: Callable[..., Running]) -> None:
    """No ids on this API: the second response to `run_shell_command` is compared with the
    scenario's result, and a wrong one fails with the scenario's line."""
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.gemini()
    config = types.GenerateContentConfig(tools=GEMINI_TOOLS)  # type: ignore[arg-type]
    first = client.models.generate_content(model="m", contents="make notes.txt", config=config)
    calls = first.function_calls or []
    history = [user("make notes.txt"), *answer(calls, ["ok", "3 notes.txt\n"])]
    client.models.generate_content(model="m", contents=history, config=config)  # type: ignore[arg-type]
    assert srv.messages() == [
        "8: tool: runCmd (run_shell_command): expected a result containing '2 notes.txt', "
        "the agent's result was '3 notes.txt'"
    ]


def test_gemini_clis_router_request_is_a_side_request(tmp_path: Path, serve: Callable[..., Running]) -> None:
    """A `responseJsonSchema` request (Gemini CLI's router, with Google's upper-case types)
    gets JSON that fits the schema and leaves the scenario's first reply to the real turn."""
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.gemini()
    schema = {"type": "OBJECT", "properties": {"complexity_reasoning": {"type": "STRING"},
              "complexity_score": {"type": "INTEGER"}}, "required": ["complexity_reasoning", "complexity_score"]}  # fmt: skip
    routed = client.models.generate_content(
        model="flash-lite",
        contents="make notes.txt",
        config=types.GenerateContentConfig(
            response_mime_type="application/json", response_json_schema=schema
        ),
    )
    value = json.loads(routed.text or "")
    assert isinstance(value["complexity_reasoning"], str) and isinstance(value["complexity_score"], int)
    real = client.models.generate_content(
        model="m",
        contents="make notes.txt",
        config=types.GenerateContentConfig(tools=GEMINI_TOOLS),  # type: ignore[arg-type]
    )
    assert real.text == "Creating notes.txt now."


def test_count_tokens_and_models(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.gemini()
    short = client.models.count_tokens(model="m", contents="hi").total_tokens
    long = client.models.count_tokens(model="m", contents="hi " * 400).total_tokens
    assert short is not None and long is not None and long > short > 0
    listed = httpx.get(srv.url + "/v1beta/models", headers={"x-goog-api-key": "k"}).json()
    assert {"name": "models/mock-model"}.items() <= listed["models"][0].items()


SCRIPTED_ERROR = """\
name: err
timeline:
  - llmResponse:
      - error: {errorType: rate_limit_error, statusCode: 429, message: slow down, retryAfterSeconds: 7}
  - llmResponse: [{assistant: [[0, fine]]}]
"""


def test_errors_in_googles_shape(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCRIPTED_ERROR))
    client = srv.gemini()
    with pytest.raises(errors.ClientError) as info:
        client.models.generate_content(model="m", contents="go")
    assert info.value.code == 429 and info.value.status == "RESOURCE_EXHAUSTED"
    assert info.value.message == "slow down"
    assert client.models.generate_content(model="m", contents="go").text == "fine"
    empty = httpx.post(
        srv.url + "/v1beta/models/m:generateContent", headers={"x-goog-api-key": "k"}, json={"contents": []}
    )  # fmt: skip (the SDK itself refuses to send this)
    assert empty.status_code == 400 and empty.json()["error"]["status"] == "INVALID_ARGUMENT"
    raw = httpx.post(srv.url + "/v1beta/models/m:generateContent", headers={"x-goog-api-key": "k"},
                     json={"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"maxOutputTokens": -5}})  # fmt: skip
    assert raw.status_code == 400 and raw.json()["error"]["status"] == "INVALID_ARGUMENT"
    missing = httpx.post(srv.url + "/v1beta/models/m:frobnicate", headers={"x-goog-api-key": "k"}, json={})
    body: dict[str, Any] = missing.json()
    assert missing.status_code == 404 and body["error"] == {
        "code": 404,
        "message": "Invalid URL (POST /v1beta/models/m:frobnicate)",
        "status": "NOT_FOUND",
    }


def test_injected_failures(serve: Callable[..., Running]) -> None:
    def failing(kind: str, **params: Any) -> m.Reply:
        return m.Reply("", failure=m.Fault(kind, params))

    srv = serve(rules_scenario([
        rule("contains", "trigger-auth", failing("auth_error", message="bad key")),
        rule("contains", "trigger-credits", failing("out_of_credits")),
        rule("contains", "trigger-partial", failing("partial_response", partial_text="half of it")),
    ]))  # fmt: skip
    client = srv.gemini()
    with pytest.raises(errors.ClientError) as auth:
        client.models.generate_content(model="m", contents="trigger-auth")
    assert auth.value.code == 400 and auth.value.details["error"]["details"][0]["reason"] == "API_KEY_INVALID"
    with pytest.raises(errors.ClientError) as credits:
        client.models.generate_content(model="m", contents="trigger-credits")
    assert credits.value.code == 429 and credits.value.status == "RESOURCE_EXHAUSTED"
    seen: list[str] = []
    with pytest.raises(Exception):  # noqa: B017 - the SDK meets a stream cut mid-way
        for chunk in client.models.generate_content_stream(model="m", contents="trigger-partial"):
            seen.append(chunk.text or "")
    assert "".join(seen) == "half of it"


CAPTURED = Path(__file__).parent / "data" / "gemini-cli-0.61.0.jsonl"


def test_gemini_cli_requests_replayed(tmp_path: Path, serve: Callable[..., Running]) -> None:
    """Gemini CLI 0.61.0's own requests (a `write hello.txt` run captured against a stub):
    the router is a side request, the turns get the write call and the text, and the
    function response is matched to the call by name and order."""
    scenario = load(tmp_path, 'name: g\ntimeline:\n  - llmResponse: [{assistant: [[0, "Writing."]]}]\n'
                    '  - writeFile: {path: hello.txt, content: "hi from gemini\\n"}\n'
                    '  - llmResponse: [{assistant: [[0, "Hello from mock"]]}]\n')  # fmt: skip
    seen: list[str] = []
    srv = serve(scenario, on_request=lambda e: seen.append(e["outcome"]))
    requests = [json.loads(line) for line in CAPTURED.read_text(encoding="utf-8").splitlines()]
    for r in requests:
        headers = {k: ("key" if v == "<redacted>" else v) for k, v in r["headers"].items()}
        query = f"?{r['query']}" if r["query"] else ""
        assert httpx.post(srv.url + r["path"] + query, json=r["body"], headers=headers).status_code == 200
    assert [o.split(":")[0] for o in seen] == ["side request (schema)", "tool_use", "end_turn"]
    assert "tools write_file" in seen[1]
    srv.finish()
    assert srv.failures == []


def test_stream_without_sse_is_one_json_array(tmp_path: Path, serve: Callable[..., Running]) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    reply = httpx.post(srv.url + "/v1beta/models/m:streamGenerateContent", headers={"x-goog-api-key": "k"},
                       json={"contents": [{"role": "user", "parts": [{"text": "make notes.txt"}]}], "tools": GEMINI_TOOLS})  # fmt: skip
    chunks = reply.json()
    assert reply.status_code == 200 and isinstance(chunks, list) and len(chunks) == 1
    parts = chunks[0]["candidates"][0]["content"]["parts"]
    assert (
        parts[0] == {"text": "Creating notes.txt now."} and parts[1]["functionCall"]["name"] == "write_file"
    )
    assert (
        chunks[0]["candidates"][0]["finishReason"] == "STOP"
        and chunks[0]["usageMetadata"]["totalTokenCount"] > 0
    )


def test_function_calling_mode_none_gets_no_function_call(
    tmp_path: Path, serve: Callable[..., Running]
) -> None:
    srv = serve(load(tmp_path, SCENARIO))
    config = types.GenerateContentConfig(tools=GEMINI_TOOLS, tool_config=types.ToolConfig(  # type: ignore[arg-type]
        function_calling_config=types.FunctionCallingConfig(mode=types.FunctionCallingConfigMode.NONE)))  # fmt: skip
    client = srv.gemini()
    reply = client.models.generate_content(model="m", contents="make notes.txt", config=config)
    assert not reply.function_calls and reply.text == "Creating notes.txt now."


@pytest.mark.parametrize(
    ("response", "verdict"),
    [
        ({"output": "2 notes.txt", "error": "exit status 1"}, "an error: '2 notes.txt'"),  # beside its output
        ({"output": "Command: false\nStdout: (empty)\nExit Code: 1"}, "an error"),  # Gemini CLI's shell tool
        ({"output": "2 notes.txt", "exit_code": 1}, "an error"),
        ({"stdout": "2 notes.txt", "returncode": 2}, "an error"),
        ({"exit_code": 1}, "an error"),
        ({"output": "2 notes.txt", "exit_code": 0}, None),
        ({"output": "2 notes.txt"}, None),
    ],
)
def test_a_failed_command_is_an_error_however_the_response_says_it(
    tmp_path: Path, serve: Callable[..., Running], response: dict[str, Any], verdict: str | None
) -> None:
    """Gemini's function response: `output` for the output, `error` for error details; an error beside an
    output is still one. Gemini CLI reports a command that failed in its output (`Exit Code: 1`), not with
    an `error` key; other agents put the exit code in a field of its own. Each was taken as a success."""
    srv = serve(load(tmp_path, SCENARIO))
    client = srv.gemini()
    config = types.GenerateContentConfig(tools=GEMINI_TOOLS)  # type: ignore[arg-type]
    calls = client.models.generate_content(model="m", contents="make notes.txt", config=config).function_calls
    assert calls and [c.name for c in calls] == ["write_file", "run_shell_command"]
    model = types.Content(role="model", parts=[types.Part(function_call=c) for c in calls])
    responses = [types.Part(function_response=types.FunctionResponse(name=calls[0].name, response={"output": "ok"})),
                 types.Part(function_response=types.FunctionResponse(name=calls[1].name, response=response))]  # fmt: skip
    history = [user("make notes.txt"), model, types.Content(role="user", parts=responses)]
    client.models.generate_content(model="m", contents=history, config=config)  # type: ignore[arg-type]
    messages = [m for m in srv.messages() if "expected status" in m]
    if verdict is None:
        assert messages == []
    else:
        assert messages and messages[0].startswith("8: tool: runCmd (run_shell_command): expected status ok, "
                                                   f"the agent reported {verdict}")  # fmt: skip
