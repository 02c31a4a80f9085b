"""The built-in mock agent as a client of an LLM API: what a playbook drives in mock-agent runs.

    python3 -m workbench.playbook.api_agent --base-url URL --api-key KEY

It looks and types like `workbench mock-agent` (same rendering, same one-line
chat input, same tools run for real in the current folder), but instead of
playing a scenario's steps it asks the model: each prompt entered goes to the
Anthropic Messages API at ``--base-url`` with the mock agent's tools; thinking,
text and tool calls are drawn; tool calls run and their results go back, until
the model answers without calls. So a playbook (or any scenario served by the
mock LLM server) drives the built-in agent through the same wire as a real one.

``$WORKBENCH_MOCK_TOOLS`` (set by the playbook run) is asked before each tool
runs; when the playbook's ``mock_tools`` has a result for the call, that result
is shown and returned instead of running the tool. An API error is drawn and
ends the turn, as a real agent without retries would.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import sys
import termios
import tty
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.agent import render
from workbench.agent.mock_agent import Terminal
from workbench.agent.tools import ShellRegistry, execute_tool
from workbench.names import Env
from workbench.workspace import Workspace

MOCK_TOOLS_ENV = Env.MOCK_TOOLS
TOOLS = ("runCmd", "readFile", "writeFile", "appendFile", "editFile", "grep", "listDir", "find")
HTTP_TIMEOUT_S = 120.0


class Client:
    def __init__(self, base_url: str, api_key: str, term: Terminal, workspace: Path) -> None:
        self.url = base_url.rstrip("/") + "/v1/messages"
        self.api_key = api_key
        self.term = term
        self.workspace = Workspace.attach(workspace)
        self.shells = ShellRegistry()
        self.messages: list[dict[str, Any]] = []
        self.mock_tools = os.environ.get(MOCK_TOOLS_ENV)
        names = [*TOOLS, *self._mocked_only()]
        self.tools = [{"name": t, "description": f"the mock agent's {t} tool",
                       "input_schema": {"type": "object"}} for t in names]  # fmt: skip

    def _mocked_only(self) -> list[str]:
        """The tools only the playbook's ``mock_tools`` has: offered too, so the model may call them."""
        if not self.mock_tools:
            return []
        try:
            with urllib.request.urlopen(self.mock_tools, timeout=HTTP_TIMEOUT_S) as response:
                names = json.loads(response.read()).get("tools", [])
        except (urllib.error.URLError, OSError, ValueError):
            return []
        return [str(n) for n in names if n not in TOOLS]

    def _post(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        data = json.dumps(body).encode()
        request = urllib.request.Request(url, data, {"content-type": "application/json", **headers})
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S) as response:
            return json.loads(response.read())

    def converse(self, prompt: str) -> None:
        """One user turn: ask, draw, run tools, send results, until the model stops calling tools."""
        self.messages.append({"role": "user", "content": prompt})
        while True:
            body = {"model": "mock-model", "max_tokens": 8192, "messages": self.messages, "tools": self.tools,
                    "thinking": {"type": "enabled", "budget_tokens": 1024}}  # fmt: skip
            try:
                message = self._post(
                    self.url, body, {"x-api-key": self.api_key, "anthropic-version": "2023-06-01"}
                )
            except urllib.error.HTTPError as exc:
                self._api_error(exc)
                return
            except (urllib.error.URLError, OSError, ValueError) as exc:
                self.term.emit(render.llm_error(0, "connection_error", str(exc)))
                return
            content = message.get("content") or []
            self.messages.append({"role": "assistant", "content": content})
            results = [self._block(block) for block in content]
            results = [r for r in results if r is not None]
            if not results:
                return
            self.messages.append({"role": "user", "content": results})

    def _api_error(self, exc: urllib.error.HTTPError) -> None:
        try:
            error = json.loads(exc.read()).get("error", {})
        except ValueError:
            error = {}
        self.term.emit(
            render.llm_error(exc.code, str(error.get("type", "error")), str(error.get("message", exc)))
        )
        self.messages.pop()  # the prompt was not answered: it is not part of the conversation

    def _block(self, block: dict[str, Any]) -> dict[str, Any] | None:
        kind = block.get("type")
        if kind == "thinking":
            self.term.emit(render.thinking(str(block.get("thinking", ""))))
        elif kind == "text":
            self.term.emit(render.assistant(str(block.get("text", ""))))
        elif kind == "tool_use":
            name, args, call_id = str(block["name"]), dict(block.get("input") or {}), str(block["id"])
            self.term.emit(render.tool_title(name, args))
            content, is_error = self._run_tool(call_id, name, args)
            self.term.emit(render.tool_result("error" if is_error else "ok", content))
            return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}
        return None

    def _run_tool(self, call_id: str, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        if self.mock_tools:
            try:
                answer = self._post(self.mock_tools, {"call_id": call_id, "name": name, "input": args}, {})
            except (urllib.error.URLError, OSError, ValueError) as exc:
                return f"could not ask for a mock result: {exc}", True
            if answer.get("mocked"):
                return str(answer.get("content", "")), bool(answer.get("is_error"))
        outcome = execute_tool(name, args, self.workspace, shells=self.shells)
        result = outcome.result if isinstance(outcome.result, str) else json.dumps(outcome.result)
        return result, outcome.status != "ok"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m workbench.playbook.api_agent", description=__doc__)
    parser.add_argument("--base-url", required=True, help="the Anthropic-style API to ask")
    parser.add_argument("--api-key", default="mock-key")
    parser.add_argument("--name", default="mock agent", help="the banner's title")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    term = Terminal(True)
    client = Client(args.base_url, args.api_key, term, Path.cwd())
    prompts: list[str] = []
    term.on_submit = prompts.append
    saved = termios.tcgetattr(0) if os.isatty(0) else None
    if saved is not None:
        tty.setraw(0, termios.TCSANOW)
    try:
        term.emit(render.banner(args.name))
        term.draw_input()
        while not term.eof:
            ready, _, _ = select.select([0], [], [])
            if ready:
                try:
                    data = os.read(0, 4096)
                except OSError:
                    data = b""
                term.feed(data)
            while prompts:
                client.converse(prompts.pop(0))
                term.draw_input()
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        client.shells.close()
        if saved is not None:
            termios.tcsetattr(0, termios.TCSADRAIN, saved)


if __name__ == "__main__":
    raise SystemExit(main())
