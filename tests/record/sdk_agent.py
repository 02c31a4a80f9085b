"""A small terminal coding agent on the official SDKs, for recording tests: it reads a prompt
(`> `), streams the model's text as it arrives, runs its two tools for real in its working
directory (`write_file {path, content}`, `run_command {command}`), and loops until the model
stops calling tools; then it asks for the next prompt. `exit` or EOF ends it.

    python3 sdk_agent.py anthropic|openai-chat|gemini BASE_URL API_KEY [TOOL_SCHEMA_VARIANT [PROMPT]]

With PROMPT (print mode) it answers that one prompt, shown as if typed, and exits.

The variant `renamed` offers `create_file` instead of `write_file` (an "upgraded" agent, for --drift);
`own-words` offers `put_file {target, body}` and `terminal {command_line}`, names no agent has;
`context` tells the model its working directory, HOME, the time and a folder named after the working
directory in the system prompt, as agents do; `context-rule` adds a rule after it; `fullscreen` turns on
the alternate screen, bracketed paste, mouse and focus reports and kitty keyboard flags and hides the
cursor, as TUIs do.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

STYLE, BASE_URL, API_KEY = sys.argv[1:4]
VARIANT = sys.argv[4] if len(sys.argv) > 4 else ""
OWN = VARIANT == "own-words"  # tools and properties no known agent has: `put_file {target, body}`, `terminal`
WRITE = "create_file" if VARIANT == "renamed" else "put_file" if OWN else "write_file"
RUN = "terminal" if OWN else "run_command"
PATH, CONTENT, COMMAND = ("target", "body", "command_line") if OWN else ("path", "content", "command")
SYSTEM = "You are a test agent."
if VARIANT in ("context", "context-rule"):
    SYSTEM += (
        f" Working directory: {Path.cwd()}. Home: {Path.home()}. Now: {time.strftime('%Y-%m-%d %H:%M:%S')}."
        # a folder named after the working directory, as Claude Code names its project memory
        f" Memory: {Path.home()}/.agent/projects/{re.sub(r'[^A-Za-z0-9]', '-', str(Path.cwd()))}/memory/."
        f" Notes: {Path.home()}/.agent/tmp/{Path.cwd().name}/notes.md."  # and after its name, as Gemini CLI
    )
if VARIANT == "context-rule":  # the same, and a new rule at the end of its line
    SYSTEM += " Never delete files."
TOOLS = [
    {"name": WRITE, "description": "Write a file in the working directory",
     "schema": {"type": "object", "properties": {PATH: {"type": "string"}, CONTENT: {"type": "string"}},
                "required": [PATH, CONTENT]}},
    {"name": RUN, "description": "Run a shell command",
     "schema": {"type": "object", "properties": {COMMAND: {"type": "string"}}, "required": [COMMAND]}},
]  # fmt: skip


def run_tool(name: str, args: dict[str, Any]) -> tuple[str, bool]:
    if name == WRITE:
        path = Path(args[PATH])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(args[CONTENT], encoding="utf-8")
        return f"wrote {len(args[CONTENT])} bytes to {args[PATH]}", False
    if name == RUN:
        done = subprocess.run(["bash", "-c", args[COMMAND]], capture_output=True, text=True, check=False)
        return done.stdout + done.stderr, done.returncode != 0
    return f"unknown tool {name}", True


def label(name: str) -> str:
    """What the screen shows for a call: the same after an upgrade renamed the tool."""
    return "write" if name == WRITE else name


def say(text: str) -> None:
    sys.stdout.write(text.replace("\n", "\r\n"))
    sys.stdout.flush()


class Anthropic:
    def __init__(self) -> None:
        import anthropic

        self.client = anthropic.Anthropic(base_url=BASE_URL, api_key=API_KEY, max_retries=0)
        self.messages: list[Any] = []

    def turn(self, prompt: str) -> None:
        self.messages.append({"role": "user", "content": prompt})
        tools = [
            {"name": t["name"], "description": t["description"], "input_schema": t["schema"]} for t in TOOLS
        ]
        while True:
            with self.client.messages.stream(model="claude-test", max_tokens=1024, system=SYSTEM,
                                             messages=self.messages, tools=tools) as stream:  # fmt: skip
                for text in stream.text_stream:
                    say(text)
                message = stream.get_final_message()
            say("\n")
            self.messages.append(
                {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]}
            )
            uses = [b for b in message.content if b.type == "tool_use"]
            if not uses:
                return
            results = []
            for use in uses:
                say(f"[{label(use.name)}]\n")
                out, error = run_tool(use.name, dict(use.input))
                results.append(
                    {"type": "tool_result", "tool_use_id": use.id, "content": out, "is_error": error}
                )
            self.messages.append({"role": "user", "content": results})


class Chat:
    def __init__(self) -> None:
        import openai

        self.client = openai.OpenAI(base_url=BASE_URL, api_key=API_KEY, max_retries=0)
        self.messages: list[Any] = [{"role": "system", "content": SYSTEM}]

    def turn(self, prompt: str) -> None:
        self.messages.append({"role": "user", "content": prompt})
        tools = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                                   "parameters": t["schema"]}} for t in TOOLS]  # fmt: skip
        while True:
            text, calls = "", {}
            for chunk in self.client.chat.completions.create(model="gpt-test", messages=self.messages, tools=tools,
                                                             stream=True):  # fmt: skip
                if not chunk.choices:
                    continue
                delta = chunk.choices[0].delta
                if delta.content:
                    say(delta.content)
                    text += delta.content
                for call in delta.tool_calls or ():
                    slot = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                    slot["id"] = call.id or slot["id"]
                    if call.function is not None:
                        slot["name"] += call.function.name or ""
                        slot["arguments"] += call.function.arguments or ""
            say("\n")
            tool_calls = [{"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                          for c in calls.values()]  # fmt: skip
            self.messages.append(
                {
                    "role": "assistant",
                    "content": text or None,
                    **({"tool_calls": tool_calls} if tool_calls else {}),
                }
            )
            if not tool_calls:
                return
            for c in calls.values():
                say(f"[{label(c['name'])}]\n")
                out, _error = run_tool(c["name"], json.loads(c["arguments"] or "{}"))
                self.messages.append({"role": "tool", "tool_call_id": c["id"], "content": out})


class Gemini:
    """google-genai with its own typed schemas (`types.Schema`), which the SDK sends as the Gemini API's
    OpenAPI subset: types in capitals (`STRING`, `OBJECT`)."""

    def __init__(self) -> None:
        from google import genai
        from google.genai import types

        self.types = types
        self.client = genai.Client(api_key=API_KEY, http_options=types.HttpOptions(base_url=BASE_URL))
        declarations = [
            types.FunctionDeclaration(
                name=t["name"], description=t["description"],
                parameters=types.Schema(type="OBJECT", required=t["schema"]["required"], properties={
                    name: types.Schema(type="STRING") for name in t["schema"]["properties"]}),
            )
            for t in TOOLS
        ]  # fmt: skip
        self.config = types.GenerateContentConfig(
            system_instruction=SYSTEM, tools=[types.Tool(function_declarations=declarations)],
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )  # fmt: skip
        self.history: list[Any] = []

    def turn(self, prompt: str) -> None:
        types = self.types
        self.history.append(types.Content(role="user", parts=[types.Part(text=prompt)]))
        while True:
            parts, calls = [], []
            for chunk in self.client.models.generate_content_stream(
                model="gemini-test", contents=self.history, config=self.config
            ):
                for candidate in chunk.candidates or ():
                    for part in candidate.content.parts or () if candidate.content else ():
                        parts.append(part)
                        if part.text:
                            say(part.text)
                        if part.function_call:
                            calls.append(part.function_call)
            say("\n")
            self.history.append(types.Content(role="model", parts=parts))
            if not calls:
                return
            answers = []
            for call in calls:
                say(f"[{label(call.name or '')}]\n")
                out, _error = run_tool(call.name or "", dict(call.args or {}))
                answers.append(
                    types.Part.from_function_response(name=call.name or "", response={"output": out})
                )
            self.history.append(types.Content(role="user", parts=answers))


def main() -> None:
    agent = Anthropic() if STYLE == "anthropic" else Gemini() if STYLE == "gemini" else Chat()
    if VARIANT == "fullscreen":  # as a TUI: modes it turns off only when it exits by itself (never, here)
        say("\x1b[?25l\x1b[?1049h\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[?1004h\x1b[>7u")  # as Codex does
    if len(sys.argv) > 5:
        say(f"> {sys.argv[5]}\n")
        agent.turn(sys.argv[5])
        return
    while True:
        try:
            prompt = input("> ")
        except EOFError:
            return
        if prompt.strip() == "exit":
            return
        try:
            agent.turn(prompt)
        except Exception as exc:  # an API error: shown, and the agent takes the next prompt
            say(f"error: {type(exc).__name__}: {str(exc)[:60]}\n")


if __name__ == "__main__":
    main()
