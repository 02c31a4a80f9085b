"""``--input-format stream-json``: prompts (and control requests) as JSON lines on stdin.

This is how the Claude Agent SDKs drive Claude Code: they start ``claude
--output-format stream-json --verbose --input-format stream-json``, send a
``control_request`` (``initialize``, later perhaps ``interrupt`` or
``set_permission_mode``) and wait for its ``control_response``, then write
``user`` messages and read each turn's messages up to its ``result``. The
process ends when stdin closes.

Every control request is acknowledged with a ``success`` response (a scripted
model has no hooks to register nor a turn to interrupt; ``set_permission_mode``
and ``set_model`` take effect for the next turns). Each ``user`` message is one
prompt; its text is the string content, or the text blocks of a content list.
A line that is not JSON is reported on stderr and skipped, as is a message of
another type.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, BinaryIO

from workbench.agent.claude.main import EXIT_OK, PrintSession
from workbench.agent.claude.output import dump


def prompt_text(message: dict[str, Any]) -> str | None:
    """The prompt in a ``user`` message, or None when it has no text."""
    inner = message.get("message")
    content = inner.get("content") if isinstance(inner, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(t for t in texts if isinstance(t, str)) or None
    return None


def serve(session: PrintSession, stdin: BinaryIO) -> int:
    """Answer the messages on ``stdin`` until it closes; the last turn's exit code."""
    code = EXIT_OK
    wrote_init = False
    for raw in iter(stdin.readline, b""):
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            print(f"Error: stdin line is not JSON: {line[:200]}", file=sys.stderr)
            continue
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        if kind == "control_request":
            _control(session, message)
        elif kind == "user":
            prompt = prompt_text(message)
            if prompt is None:
                continue
            if not wrote_init:
                session.write_init()
                wrote_init = True
            code = session.turn(prompt, time.monotonic())
    return code


def _control(session: PrintSession, message: dict[str, Any]) -> None:
    request = message.get("request")
    request = request if isinstance(request, dict) else {}
    subtype = request.get("subtype")
    answer: dict[str, Any] = {}
    if subtype == "set_permission_mode" and isinstance(request.get("mode"), str):
        session.mode = session.call.permission_mode = request["mode"]
    elif subtype == "set_model" and isinstance(request.get("model"), str):
        session.call.model = request["model"]
    elif subtype == "initialize":
        answer = {"commands": [], "output_style": "default", "models": []}
    reply = {"type": "control_response",
             "response": {"subtype": "success", "request_id": message.get("request_id"), "response": answer}}  # fmt: skip
    session.stdout.write(dump(reply) + "\n")
    session.stdout.flush()
