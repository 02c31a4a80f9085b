"""A small real ACP agent for tests: the model is whatever ANTHROPIC_BASE_URL serves (the mock LLM server).

It is what ACP adapters such as Claude Code's are, in eighty lines: each prompt
becomes a Messages API conversation with three tools (writeFile, readFile,
runCmd); every tool call is reported as an ACP tool call, asks permission for
writes, and does its work through the client's fs/* and terminal/* methods.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, cast

import anthropic
from acp import (
    PROTOCOL_VERSION,
    run_agent,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
)
from acp.schema import (
    AgentCapabilities,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ToolCallUpdate,
)

TOOLS = [
    {"name": "writeFile", "description": "write a file", "input_schema": {"type": "object", "properties": {
        "path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}},
    {"name": "readFile", "description": "read a file", "input_schema": {"type": "object", "properties": {
        "path": {"type": "string"}}, "required": ["path"]}},
    {"name": "runCmd", "description": "run a shell command", "input_schema": {"type": "object", "properties": {
        "cmd": {"type": "string"}}, "required": ["cmd"]}},
]  # fmt: skip
KINDS = {"writeFile": "edit", "readFile": "read", "runCmd": "execute"}


class LlmAgent:
    def __init__(self) -> None:
        self.model: Any = anthropic.AsyncAnthropic(max_retries=0)
        self.history: dict[str, list[dict[str, Any]]] = {}
        self.cwd: dict[str, str] = {}
        self.cancels: dict[str, asyncio.Event] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kw: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=AgentCapabilities())

    async def new_session(self, cwd: str, **kw: Any) -> NewSessionResponse:
        sid = f"llm-{len(self.history) + 1}"
        self.history[sid], self.cwd[sid] = [], cwd
        return NewSessionResponse(session_id=sid)

    async def prompt(self, prompt: list[Any], session_id: str, **kw: Any) -> PromptResponse:
        """One turn; ``session/cancel`` stops it (a running command is killed) with ``cancelled``."""
        cancel = self.cancels[session_id] = asyncio.Event()
        work = asyncio.ensure_future(self.turn(prompt, session_id))
        stop = asyncio.ensure_future(cancel.wait())
        await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if not work.done():
            work.cancel()
            await asyncio.gather(work, return_exceptions=True)
            return PromptResponse(stop_reason="cancelled")
        return work.result()

    async def turn(self, prompt: list[Any], session_id: str) -> PromptResponse:
        messages = self.history[session_id]
        messages.append({"role": "user", "content": "".join(getattr(b, "text", "") for b in prompt)})
        while True:
            reply = await self.model.messages.create(
                model="mock-model", max_tokens=4096, messages=messages, tools=TOOLS
            )
            messages.append(
                {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]}
            )
            results = []
            for block in reply.content:
                if block.type == "thinking":
                    await self.conn.session_update(session_id, update_agent_thought_text(block.thinking))
                elif block.type == "text":
                    await self.conn.session_update(session_id, update_agent_message_text(block.text))
                elif block.type == "tool_use":
                    output = await self.tool(session_id, block.id, block.name, dict(block.input))
                    results.append({"type": "tool_result", "tool_use_id": block.id, "content": output})
            if not results:
                return PromptResponse(stop_reason="end_turn")
            messages.append({"role": "user", "content": results})

    async def tool(self, sid: str, call_id: str, name: str, args: dict[str, Any]) -> str:
        path = os.path.join(self.cwd[sid], str(args.get("path", "")))
        await self.conn.session_update(sid, start_tool_call(call_id, f"{name} {args}", kind=KINDS.get(name, "other"),  # type: ignore[arg-type]
                                                            status="pending", raw_input=args))  # fmt: skip
        if name == "writeFile":
            answer = await self.conn.request_permission(
                session_id=sid, tool_call=ToolCallUpdate(tool_call_id=call_id, title=f"Write {args.get('path')}"),
                options=[PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
                         PermissionOption(option_id="no", name="Reject", kind="reject_once")])  # fmt: skip
            if getattr(answer.outcome, "option_id", None) != "yes":
                await self.conn.session_update(sid, update_tool_call(call_id, status="failed"))
                return "permission refused"
            await self.conn.write_text_file(session_id=sid, path=path, content=str(args.get("content", "")))
            output = "written"
        elif name == "readFile":
            output = (await self.conn.read_text_file(session_id=sid, path=path)).content
        else:
            term = await self.conn.create_terminal(session_id=sid, command="bash", args=["-c", str(args.get("cmd"))],
                                                   cwd=self.cwd[sid])  # fmt: skip
            try:
                await self.conn.wait_for_terminal_exit(session_id=sid, terminal_id=term.terminal_id)
            except asyncio.CancelledError:
                await self.conn.kill_terminal(session_id=sid, terminal_id=term.terminal_id)
                await self.conn.release_terminal(session_id=sid, terminal_id=term.terminal_id)
                raise
            output = (await self.conn.terminal_output(session_id=sid, terminal_id=term.terminal_id)).output
            await self.conn.release_terminal(session_id=sid, terminal_id=term.terminal_id)
        await self.conn.session_update(sid, update_tool_call(call_id, status="completed",
                                                             content=[tool_content(text_block(output))]))  # fmt: skip
        return output

    async def cancel(self, session_id: str, **kw: Any) -> None:
        if session_id in self.cancels:
            self.cancels[session_id].set()


if __name__ == "__main__":
    print("llm agent up", file=sys.stderr)
    asyncio.run(run_agent(cast(Any, LlmAgent())))
