"""The SCP basic-echo agent: "Hello, world" gets "Hello, user"; anything else is echoed."""

from workbench.acp.mock import PromptAgent, serve


def reply(text: str) -> list[str]:
    return ["Hello, ", "user"] if text == "Hello, world" else [f"echo: {text}"]


def make_agent() -> PromptAgent:
    return PromptAgent(reply, name="basic-echo")


if __name__ == "__main__":
    serve(make_agent())
