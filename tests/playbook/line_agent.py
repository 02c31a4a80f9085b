"""A line-mode coding agent (the official Anthropic SDK, the terminal left in canonical mode, as a plain CLI
leaves it): it reads each prompt with ``input()`` and offers two tools. ``ask`` asks the user a free-text
question on the terminal (``input(question)``) and returns the answer; ``note`` prints its text (a line
ending in ':'), stays quiet for a second without reading, then returns whatever was typed meanwhile;
``edit`` writes its text to a file, opens ``$VISUAL`` on it as git does (``sh -c '$VISUAL "$@"'``) and
returns what the file holds afterwards.

    python3 line_agent.py BASE_URL API_KEY
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anthropic

TOOLS = [
    {"name": "ask", "description": "Ask the user a question", "input_schema": {"type": "object"}},
    {"name": "note", "description": "Show a note", "input_schema": {"type": "object"}},
    {"name": "edit", "description": "Let the user edit a text", "input_schema": {"type": "object"}},
]


def typed_meanwhile() -> str:
    """Whatever complete lines the terminal holds, read without waiting."""
    typed = b""
    while select.select([0], [], [], 0)[0]:
        chunk = os.read(0, 1024)
        if not chunk:
            break
        typed += chunk
    return repr(typed.decode())


def run_tool(name: str, args: dict[str, Any]) -> str:
    if name == "ask":
        return f"answer: {input(str(args.get('question', '?'))).strip()!r}"
    if name == "edit":
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "EDIT_MSG")
            path.write_text(str(args.get("text", "")))
            editor = os.environ["VISUAL"]
            subprocess.run(["sh", "-c", f'{editor} "$@"', editor, str(path)], check=True)
            return f"edited: {path.read_text()!r}"
    print(str(args.get("text", "")), flush=True)
    time.sleep(1.0)
    return f"typed meanwhile: {typed_meanwhile()}"


def main() -> None:
    client = anthropic.Anthropic(base_url=sys.argv[1], api_key=sys.argv[2], max_retries=0)
    messages: list[dict[str, Any]] = []
    while True:
        try:
            prompt = input("> ")
        except EOFError:
            return
        messages.append({"role": "user", "content": prompt})
        while True:
            request: dict[str, Any] = {
                "model": "mock-model",
                "max_tokens": 1024,
                "messages": messages,
                "tools": TOOLS,
            }
            reply = client.messages.create(**request)
            messages.append({"role": "assistant", "content": reply.content})
            results = []
            for block in reply.content:
                if block.type == "text":
                    print(block.text, flush=True)
                elif block.type == "tool_use":
                    output = run_tool(block.name, dict(block.input))  # type: ignore[arg-type]
                    print(f"[{block.name}] {output}", flush=True)
                    results.append({"type": "tool_result", "tool_use_id": block.id, "content": output})
            if not results:
                break
            messages.append({"role": "user", "content": results})


if __name__ == "__main__":
    main()
