"""An agent the product has never seen, for tests: a terminal coding agent on the official OpenAI SDK's
Responses API (streamed), with three tools of its own offered as strict JSON schemas (`open_file
{filename}`, `exec {argv: [...]}`, `patch_file {filename, find, replace}`). It takes its prompt from its
command line (one turn, then it exits) or reads prompts at `quill> ` until EOF; it finds the API the usual
way (`OPENAI_BASE_URL`, `OPENAI_API_KEY`) and its model in `$XDG_CONFIG_HOME/quill/model` (default
`~/.config`), so it needs a HOME as real agents do.

    python3 responses_agent.py [PROMPT...]
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import openai

CONFIG = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "quill" / "model"
MODEL = CONFIG.read_text(encoding="utf-8").strip() if CONFIG.exists() else "gpt-4.1-mini"


def _tool(name: str, description: str, **properties: object) -> dict[str, object]:
    return {"type": "function", "name": name, "description": description, "strict": True, "parameters": {
        "type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}}  # fmt: skip


TOOLS = [
    _tool("open_file", "Read a text file and return its contents.", filename={"type": "string"}),
    _tool("exec", "Execute a program (argv list) and return its output.",
          argv={"type": "array", "items": {"type": "string"}}),
    _tool("patch_file", "Edit a file: replace the text `find` with `replace`.",
          filename={"type": "string"}, find={"type": "string"}, replace={"type": "string"}),
]  # fmt: skip


def run_tool(name: str, args: dict[str, object]) -> str:
    try:
        if name == "open_file":
            return Path(str(args["filename"])).read_text(encoding="utf-8")
        if name == "exec":
            done = subprocess.run([str(a) for a in args["argv"]], capture_output=True, text=True, check=False)  # type: ignore[attr-defined]
            return done.stdout + done.stderr
        if name == "patch_file":
            path, find = Path(str(args["filename"])), str(args["find"])
            text = path.read_text(encoding="utf-8")
            if find not in text:
                return "error: text not found"
            path.write_text(text.replace(find, str(args["replace"]), 1), encoding="utf-8")
            return "ok"
        return f"error: unknown tool {name}"
    except OSError as exc:
        return f"error: {exc}"


client = openai.OpenAI(max_retries=0)
history: list[dict[str, object]] = []


def turn(prompt: str) -> None:
    history.append({"role": "user", "content": prompt})
    while True:
        with client.responses.stream(model=MODEL, instructions="You are quill, a coding agent.",
                                     input=history, tools=TOOLS) as stream:  # type: ignore[arg-type]  # fmt: skip
            for event in stream:
                if event.type == "response.output_text.delta":
                    print(event.delta, end="", flush=True)
            final = stream.get_final_response()
        calls = [item for item in final.output if item.type == "function_call"]
        for item in final.output:
            if item.type == "message":
                history.append({"role": "assistant", "content": final.output_text})
                print()
            elif item.type == "function_call":
                history.append({"type": "function_call", "call_id": item.call_id, "name": item.name,
                                "arguments": item.arguments})  # fmt: skip
        if not calls:
            return
        for call in calls:
            args = json.loads(call.arguments)
            print(f"[{call.name}] {json.dumps(args)}", flush=True)
            history.append({"type": "function_call_output", "call_id": call.call_id,
                            "output": run_tool(call.name, args)})  # fmt: skip


if len(sys.argv) > 1:
    turn(" ".join(sys.argv[1:]))
else:
    while True:
        try:
            line = input("quill> ")
        except EOFError:
            break
        if line.strip():
            turn(line)
