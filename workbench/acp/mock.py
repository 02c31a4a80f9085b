"""A small scripted ACP agent for ``mock_agent.py`` files: a function from prompt to reply.

SCP's ``runMockAgent(cx => cx.onPrompt(fn))`` in Python, with the SDK doing the
protocol::

    from workbench.acp.mock import PromptAgent, serve

    def reply(text: str) -> str:
        return "Hello, user" if text == "Hello, world" else f"echo: {text}"

    def make_agent() -> PromptAgent:           # the in-process runner calls this
        return PromptAgent(reply)

    if __name__ == "__main__":                 # the direct runner starts the file
        serve(make_agent())

or, as SCP's own ``mock_agent.ts`` writes it, ``run_mock_agent(lambda cx:
cx.on_prompt(reply))``.

The reply may be a string (one ``agent_message_chunk``), a list of strings (one
chunk each), or an awaitable of either. For tool calls, plans and permissions,
play a scenario (``workbench acp-agent``) or write an SDK agent class.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, run_agent, update_agent_message_text
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
)

Reply = str | list[str]
OnPrompt = Callable[[str], Reply | Awaitable[Reply]]


class PromptAgent:
    """An SDK agent object that answers each prompt with ``on_prompt(text)``."""

    def __init__(self, on_prompt: OnPrompt, name: str = "mock-agent") -> None:
        self.on_prompt = on_prompt
        self.name = name
        self._conn: Any = None
        self._ids = itertools.count(1)
        self._sessions: set[str] = set()

    def on_connect(self, conn: Any) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, **kw: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=min(protocol_version, PROTOCOL_VERSION),
                                  agent_capabilities=AgentCapabilities(load_session=False),
                                  agent_info=Implementation(name=self.name, version="1"))  # fmt: skip

    async def new_session(self, cwd: str, **kw: Any) -> NewSessionResponse:
        session_id = f"{self.name}-{next(self._ids)}"
        self._sessions.add(session_id)
        return NewSessionResponse(session_id=session_id)

    async def prompt(self, prompt: list[Any], session_id: str, **kw: Any) -> PromptResponse:
        if session_id not in self._sessions:
            raise RequestError.invalid_params({"sessionId": session_id, "details": "unknown session"})
        text = "".join(getattr(block, "text", "") or "" for block in prompt)
        reply = self.on_prompt(text)
        if inspect.isawaitable(reply):
            reply = await reply
        for chunk in [reply] if isinstance(reply, str) else list(reply):
            await self._conn.session_update(session_id=session_id, update=update_agent_message_text(chunk))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kw: Any) -> None:
        return None


class MockAgentSetup:
    """What SCP's ``runMockAgent(cx => ...)`` hands its function: where to say how prompts are answered."""

    def __init__(self) -> None:
        self.handler: OnPrompt | None = None

    def on_prompt(self, handler: OnPrompt) -> None:
        self.handler = handler


def run_mock_agent(setup: Callable[[MockAgentSetup], Any], name: str = "mock-agent") -> None:
    """SCP's ``runMockAgent(cx => cx.onPrompt(fn))``: serve the agent ``setup`` describes on stdio."""
    cx = MockAgentSetup()
    setup(cx)
    if cx.handler is None:
        raise ValueError("run_mock_agent(setup): setup must call cx.on_prompt(handler)")
    serve(PromptAgent(cx.handler, name=name))


def serve(agent: Any) -> None:
    """Serve ``agent`` on stdin/stdout until the client closes stdin."""
    asyncio.run(run_agent(agent))
