"""Small coding agents built on the official SDKs, running in the test's own process: what a user
of the `mock_llm` fixture tests. Each runs a `bash` tool for real in ``cwd`` and loops until the
model stops calling tools."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

BASH = {"name": "bash", "description": "Run a shell command and return its output",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}  # fmt: skip


def run_bash(command: str, cwd: Path) -> tuple[str, bool]:
    done = subprocess.run(
        ["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=30, check=False
    )
    return done.stdout + done.stderr, done.returncode != 0


class AnthropicAgent:
    def __init__(
        self, base_url: str, api_key: str, cwd: Path, *, stream: bool = True, run_tools: bool = True
    ) -> None:
        import anthropic

        self.client = anthropic.Anthropic(base_url=base_url, api_key=api_key, max_retries=0)
        self.cwd, self.stream, self.run_tools = cwd, stream, run_tools
        self.messages: list[dict[str, Any]] = []
        self.responses: list[Any] = []
        self.tools = [
            {"name": "bash", "description": BASH["description"], "input_schema": BASH["parameters"]}
        ]

    def _create(self) -> Any:
        args = {"model": "mock-model", "max_tokens": 4096, "messages": self.messages, "tools": self.tools,
                "thinking": {"type": "enabled", "budget_tokens": 1024}}  # fmt: skip
        if self.stream:
            with self.client.messages.stream(**args) as s:
                self.deltas = sum(1 for event in s if event.type == "content_block_delta")
                return s.get_final_message()
        return self.client.messages.create(**args)

    def ask(self, prompt: str) -> str:
        self.messages.append({"role": "user", "content": prompt})
        while True:
            message = self._create()
            self.responses.append(message)
            self.messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content
                                                                   if b.type != "thinking" or b.signature]})  # fmt: skip
            uses = [b for b in message.content if b.type == "tool_use"]
            if not uses or not self.run_tools:
                return "".join(b.text for b in message.content if b.type == "text")
            results = []
            for use in uses:
                out, error = run_bash(use.input["command"], self.cwd)
                results.append(
                    {"type": "tool_result", "tool_use_id": use.id, "content": out, "is_error": error}
                )
            self.messages.append({"role": "user", "content": results})


class ChatAgent:
    def __init__(self, base_url: str, api_key: str, cwd: Path, *, stream: bool = True) -> None:
        import openai

        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
        self.cwd, self.stream = cwd, stream
        self.messages: list[dict[str, Any]] = []
        self.calls_per_response: list[int] = []

    def ask(self, prompt: str) -> str:
        self.messages.append({"role": "user", "content": prompt})
        tools = [{"type": "function", "function": BASH}]
        while True:
            if self.stream:
                text, calls = "", {}
                for chunk in self.client.chat.completions.create(model="mock-model", messages=self.messages,  # type: ignore[call-overload]
                                                                 tools=tools, stream=True):  # fmt: skip
                    delta = chunk.choices[0].delta if chunk.choices else None
                    if delta is None:
                        continue
                    text += delta.content or ""
                    for tc in delta.tool_calls or []:
                        entry = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                        entry["id"] = tc.id or entry["id"]
                        entry["name"] += (tc.function.name or "") if tc.function else ""
                        entry["arguments"] += (tc.function.arguments or "") if tc.function else ""
                tool_calls = [calls[i] for i in sorted(calls)]
            else:
                done = self.client.chat.completions.create(
                    model="mock-model", messages=self.messages, tools=tools
                )  # type: ignore[call-overload]
                msg = done.choices[0].message
                text = msg.content or ""
                tool_calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
                              for c in msg.tool_calls or []]  # fmt: skip
            self.calls_per_response.append(len(tool_calls))
            self.messages.append({"role": "assistant", "content": text or None, "tool_calls": [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                for c in tool_calls] or None})  # fmt: skip
            if not tool_calls:
                return text
            for c in tool_calls:
                out, _ = run_bash(json.loads(c["arguments"])["command"], self.cwd)
                self.messages.append({"role": "tool", "tool_call_id": c["id"], "content": out})


class ResponsesAgent:
    def __init__(self, base_url: str, api_key: str, cwd: Path) -> None:
        import openai

        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
        self.cwd = cwd
        self.items: list[Any] = []

    def ask(self, prompt: str) -> str:
        self.items.append({"role": "user", "content": prompt})
        tools = [{"type": "function", **BASH}]
        while True:
            with self.client.responses.stream(model="mock-model", input=self.items, tools=tools) as s:  # type: ignore[arg-type]
                response = s.get_final_response()
            calls = [o for o in response.output if o.type == "function_call"]
            self.items += [
                o.model_dump(exclude_none=True)
                for o in response.output
                if o.type in ("message", "function_call")
            ]
            if not calls:
                return response.output_text
            for c in calls:
                out, _ = run_bash(json.loads(c.arguments)["command"], self.cwd)
                self.items.append({"type": "function_call_output", "call_id": c.call_id, "output": out})


class GeminiAgent:
    """On `google-genai`: streaming generate_content with a `bash` function; results go back by name."""

    def __init__(self, base_url: str, api_key: str, cwd: Path) -> None:
        from google import genai
        from google.genai import types

        options = types.HttpOptions(base_url=base_url, retry_options=types.HttpRetryOptions(attempts=1))
        self.client = genai.Client(api_key=api_key, http_options=options)
        self.types = types
        self.cwd = cwd
        self.contents: list[Any] = []
        self.config = types.GenerateContentConfig(
            tools=[types.Tool(function_declarations=[types.FunctionDeclaration(
                name="bash", description=BASH["description"], parameters_json_schema=BASH["parameters"])])])  # fmt: skip

    def ask(self, prompt: str) -> str:
        t = self.types
        self.contents.append(t.Content(role="user", parts=[t.Part(text=prompt)]))
        while True:
            chunks = list(self.client.models.generate_content_stream(
                model="gemini-2.5-pro", contents=self.contents, config=self.config))  # fmt: skip
            parts = [p for c in chunks for p in (c.candidates[0].content.parts or [])]  # type: ignore[index,union-attr]
            calls = [p.function_call for p in parts if p.function_call]
            text = "".join(p.text or "" for p in parts if p.text and not p.thought)
            self.contents.append(t.Content(role="model", parts=parts))
            if not calls:
                return text
            responses = [t.Part(function_response=t.FunctionResponse(
                name=c.name, response={"output": run_bash(str((c.args or {})["command"]), self.cwd)[0]}))
                for c in calls]  # fmt: skip
            self.contents.append(t.Content(role="user", parts=responses))
