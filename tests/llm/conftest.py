"""Helpers for the mock LLM server tests: a server on a background event loop,
scenarios written as YAML in tmp_path, Claudeless rule sets built from the model."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anthropic
import openai
import pytest
from google import genai
from google.genai import types

from tests.conftest import write
from workbench.llm import LlmServer
from workbench.scenario import model as m
from workbench.scenario.loader import load_scenario

T = TypeVar("T")


def load(tmp_path: Path, text: str, name: str = "s.yaml") -> m.Scenario:
    """Load a scenario written to ``tmp_path/name``."""
    return load_scenario(write(tmp_path, name, text), env={})


def rules_scenario(
    rules: list[m.ResponseRule], default: m.Reply | None = None, name: str = "rules", **kw: Any
) -> m.Scenario:
    return m.Scenario(name=name, file=f"{name}.toml", format="claudeless",
                      rules=m.RuleSet(tuple(rules), default, **kw))  # fmt: skip


def rule(kind: str, text: str, reply: m.Reply | str | None, **kw: Any) -> m.ResponseRule:
    r = m.Reply(reply) if isinstance(reply, str) else reply
    return m.ResponseRule(m.Pattern(kind, text), r, **kw)  # type: ignore[arg-type]


class Running:
    """A started server and clients for it."""

    def __init__(self, server: LlmServer, loop: asyncio.AbstractEventLoop) -> None:
        self.server = server
        self.loop = loop
        self.url = self.call(server.start())

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    def anthropic(self, key: str = "test", **kw: Any) -> anthropic.Anthropic:
        return anthropic.Anthropic(base_url=self.url, api_key=key, max_retries=0, **kw)

    def openai(self, key: str = "test", **kw: Any) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.openai_url, api_key=key, max_retries=0, **kw)

    def gemini(self, key: str = "test") -> genai.Client:
        """Google's SDK pointed at the server (no retries: a failure must show at once)."""
        options = types.HttpOptions(base_url=self.url, retry_options=types.HttpRetryOptions(attempts=1))
        return genai.Client(api_key=key, http_options=options)

    def finish(self) -> list[Any]:
        return self.call(self.server.finish())

    @property
    def failures(self) -> list[Any]:
        return self.server.failures

    def messages(self) -> list[str]:
        return [f"{f.line}: {f.kind}: {f.message}" for f in self.server.failures]


@pytest.fixture
def serve() -> Iterator[Callable[..., Running]]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    started: list[Running] = []

    def start(scenarios: list[m.Scenario] | m.Scenario, **kw: Any) -> Running:
        items = scenarios if isinstance(scenarios, list) else [scenarios]
        running = Running(LlmServer(items, **kw), loop)
        started.append(running)
        return running

    yield start
    for running in started:
        running.call(running.server.stop())
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
    loop.close()


# Tool definitions as Claude Code 2.1.197 sends them (property names from corpus/agent-wire).
CLAUDE_TOOLS: list[dict[str, Any]] = [
    {"name": "Bash", "description": "Run a command", "input_schema": {"type": "object", "properties": {
        "command": {"type": "string"}, "dangerouslyDisableSandbox": {"type": "boolean"},
        "description": {"type": "string"}, "run_in_background": {"type": "boolean"},
        "timeout": {"type": "number"}}, "required": ["command"]}},
    {"name": "Write", "description": "Write a file", "input_schema": {"type": "object", "properties": {
        "file_path": {"type": "string"}, "content": {"type": "string"}}, "required": ["file_path", "content"]}},
    {"name": "Read", "description": "Read a file", "input_schema": {"type": "object", "properties": {
        "file_path": {"type": "string"}, "limit": {"type": "integer"}, "offset": {"type": "integer"},
        "pages": {"type": "string"}}, "required": ["file_path"]}},
]  # fmt: skip

CHAT_TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": name, "description": name, "parameters": {
        "type": "object", "properties": props, "required": list(props)[:1]}}}
    for name, props in (("bash", {"command": {"type": "string"}, "timeout": {"type": "number"}}),
                        ("read", {"path": {"type": "string"}, "offset": {"type": "number"}, "limit": {"type": "number"}}),
                        ("write", {"path": {"type": "string"}, "content": {"type": "string"}}),
                        ("edit", {"path": {"type": "string"}, "edits": {"type": "array"}}))
]  # fmt: skip

RESPONSES_TOOLS: list[dict[str, Any]] = [
    {"type": "function", "name": "exec_command", "description": "Run a command", "strict": False,
     "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}, "workdir": {"type": "string"},
                                                     "yield_time_ms": {"type": "number"}}, "required": ["cmd"]}},
    {"type": "web_search", "external_web_access": False},
]  # fmt: skip


def gemini_tool(name: str, props: dict[str, str], required: list[str]) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {k: {"type": v} for k, v in props.items()},
        "required": required,
    }
    return {"name": name, "description": name, "parametersJsonSchema": schema}


# Function declarations as Gemini CLI 0.61.0 sends them (property names from its requests).
GEMINI_TOOLS: list[dict[str, Any]] = [{"functionDeclarations": [
    gemini_tool("write_file", {"file_path": "string", "content": "string"}, ["file_path", "content"]),
    gemini_tool("read_file", {"file_path": "string", "start_line": "integer", "end_line": "integer"}, ["file_path"]),
    gemini_tool("run_shell_command", {"command": "string", "description": "string", "dir_path": "string",
                                      "is_background": "boolean"}, ["command"]),
    gemini_tool("replace", {"file_path": "string", "instruction": "string", "old_string": "string",
                            "new_string": "string", "allow_multiple": "boolean"}, ["file_path", "old_string", "new_string"]),
]}]  # fmt: skip
