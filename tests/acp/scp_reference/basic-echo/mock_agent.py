"""Symposium's `scenarios/basic-echo/mock_agent.ts`, in its Python form: `runMockAgent(cx => cx.onPrompt(...))`."""

from workbench.acp.mock import run_mock_agent


async def on_prompt(message: str) -> str:
    return "Hello, user" if message == "Hello, world" else f"I don't understand: {message}"


run_mock_agent(lambda cx: cx.on_prompt(on_prompt), name="basic-echo")
