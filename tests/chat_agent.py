"""A real agent of our own for real-agent runs: a chat loop on the official Anthropic SDK.

It reads a line, asks the model (the mock LLM server, at ``ANTHROPIC_BASE_URL``)
and prints ``[asked N] <reply>``, so a test sees each request reach the model.
"""

CHAT_AGENT = """\
import os, anthropic
client = anthropic.Anthropic(base_url=os.environ["ANTHROPIC_BASE_URL"], max_retries=0)
messages = []
while True:
    try:
        line = input("> ")
    except EOFError:
        break
    messages.append({"role": "user", "content": line})
    reply = client.messages.create(model="m", max_tokens=100, messages=messages)
    text = "".join(b.text for b in reply.content if b.type == "text")
    messages.append({"role": "assistant", "content": text or "."})
    print(f"[asked {len(messages) // 2}] {text}")
"""
