"""The mock LLM server playing a playbook, on the run's loop or on a thread of its own.

:class:`PlaybookServer` is the mock LLM server (every wire style, streaming or
not, pacing, side requests, tool profiles) whose one conversation is answered
by a :class:`~workbench.playbook.responder.PlaybookResponder`. It also answers
the built-in mock agent's question "do you have a mock result for this call?"
(``POST /workbench/tool``) from the playbook's ``mock_tools``, and the stand-in
editor's "what text do I leave in this file?" (``POST /workbench/editor``, from
``mock_ui.editor``; recorded as a ``ui`` event of kind ``editor``).

:class:`MockLlm` runs one on a background thread, for agents that run in the
test's own process (a Python agent built on the `anthropic` or `openai` SDK):
``base_url``, ``api_key``, ``events``, and :meth:`MockLlm.check`, which raises
:class:`PlaybookFailed` with every diagnostic.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import traceback
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

from aiohttp import web

from workbench.llm import LlmFailure, LlmServer
from workbench.llm.responders import Responder
from workbench.playbook.dsl import Playbook
from workbench.playbook.events import Events, UiRecord
from workbench.playbook.responder import PlaybookResponder, PlaybookState
from workbench.playbook.schedule import scenario_yaml
from workbench.scenario import model as m
from workbench.scenario.loader import load_scenario

TOOL_PATH = "/workbench/tool"
EDITOR_PATH = "/workbench/editor"


class PlaybookFailed(AssertionError):
    """The conversation broke the playbook; the message holds every diagnostic."""


def playbook_scenario(playbook: Playbook, path: Path | None = None) -> m.Scenario:
    """The playbook's scenario (its schedule), loaded from its YAML without writing a file."""
    path = path or Path(f"{playbook.name}.playbook.yaml")
    return load_scenario(path, text=scenario_yaml(playbook))


class PlaybookServer(LlmServer):
    """The mock LLM server with a playbook for its conversation (see the module docstring)."""

    def __init__(self, playbook: Playbook, *, scenario: m.Scenario | None = None,
                 response_steps: list[list[int]] | None = None, state: PlaybookState | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        self.state = state or PlaybookState(playbook)
        self.response_steps = response_steps
        self._tools_runner: web.AppRunner | None = None
        self._responder: PlaybookResponder | None = None
        self.tools_url = self.editor_url = ""
        self.scenario = scenario or playbook_scenario(playbook)
        super().__init__([self.scenario], **kwargs)

    @property
    def events(self) -> Events:
        return self.state.events

    def _make_responder(self, scenario: m.Scenario, label: str) -> Responder:
        def record(failure: LlmFailure) -> None:
            failure = replace(failure, session=label, file=failure.file or scenario.file)
            (self.notes if failure.kind == "note" else self.failures).append(failure)

        self._responder = PlaybookResponder(self.state, record, self.response_steps, scenario.file)
        return self._responder

    async def finish(self) -> list[LlmFailure]:
        """End the conversation; an agent that never asked still leaves the whole playbook unconsumed."""
        if self._responder is None:
            self._make_responder(self.scenario, "")
            assert self._responder is not None
            await self._responder.finish()
        return await super().finish()

    async def start(self) -> str:
        """The LLM API, plus the mock-tools endpoint on a port of its own (:attr:`tools_url`)."""
        base_url = await super().start()
        app = web.Application()
        app.router.add_post(TOOL_PATH, self._mock_tool)
        app.router.add_get(TOOL_PATH, self._mock_tool_names)
        app.router.add_post(EDITOR_PATH, self._editor)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        self._tools_runner = runner
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = int(runner.addresses[0][1])
        self.tools_url = f"http://127.0.0.1:{port}{TOOL_PATH}"
        self.editor_url = f"http://127.0.0.1:{port}{EDITOR_PATH}"
        return base_url

    async def stop(self) -> None:
        runner = self._tools_runner
        if runner is not None:
            await runner.cleanup()
            self._tools_runner = None
        await super().stop()

    async def _mock_tool(self, request: web.Request) -> web.StreamResponse:
        """``{"call_id", "name", "input"}`` -> ``{"mocked": false}`` or ``{"mocked": true, "content", "is_error"}``."""
        try:
            body = json.loads(await request.read())
            call_id, name, args = str(body["call_id"]), str(body["name"]), dict(body.get("input") or {})
        except (ValueError, KeyError, TypeError) as exc:
            return web.json_response({"error": f"expected {{call_id, name, input}}: {exc}"}, status=400)
        canonical = self._playbook_tool(call_id) or name
        mock = self.state.playbook.mock_tools.get(canonical, self.state.playbook.mock_tools.get(name))
        if mock is None:
            return web.json_response({"mocked": False})
        try:
            content, is_error, details = mock_result(mock, args)
        except Exception as exc:
            content, is_error, details = (
                f"mock_tools[{canonical!r}] raised {type(exc).__name__}: {exc}",
                True,
                {},
            )
            if self.state.playbook.propagate_errors and self._responder is not None:
                self._responder.tool_crashed(call_id, traceback.format_exc())
        self.state.mocked_calls[call_id] = details
        return web.json_response({"mocked": True, "content": content, "is_error": is_error})

    async def _editor(self, request: web.Request) -> web.StreamResponse:
        """``{"path", "text"}`` (the file the program opened and what it held) -> ``{"text"}`` to leave in it."""
        try:
            body = json.loads(await request.read())
            path, text = str(body["path"]), str(body["text"])
        except (ValueError, KeyError, TypeError) as exc:
            return web.json_response({"error": f"expected {{path, text}}: {exc}"}, status=400)
        choice = self.state.playbook.mock_ui.editor
        try:
            answer = str(choice(text)) if callable(choice) else str(choice)
        except Exception as exc:
            return web.json_response(
                {"error": f"mock_ui.editor raised {type(exc).__name__}: {exc}"}, status=500
            )
        self.state.events.add_ui(UiRecord("default editor", path, "", 0, "editor", answer))
        return web.json_response({"text": answer})

    async def _mock_tool_names(self, request: web.Request) -> web.StreamResponse:
        """``{"tools": [...]}``: the tools only ``mock_tools`` has, which the built-in agent offers too."""
        return web.json_response({"tools": sorted(self.state.playbook.mock_tools)})

    def _playbook_tool(self, call_id: str) -> str | None:
        for record in self.state.events.tool_calls:
            if record.call_id == call_id:
                return record.tool
        return None


def mock_result(mock: Any, params: Mapping[str, Any]) -> tuple[str, bool, dict[str, Any]]:
    """A ``mock_tools`` entry -> (content, is_error, details): a string, a function of the params, or a
    full result."""
    value = mock(dict(params)) if callable(mock) else mock
    if isinstance(value, str):
        return value, False, {}
    if isinstance(value, Mapping) and ("content" in value or "text" in value):
        content = value.get("content", value.get("text", ""))
        if isinstance(content, list):  # [{"type": "text", "text": ...}], as a tool result's content
            content = "".join(str(c.get("text", "")) for c in content if isinstance(c, Mapping))
        details = value.get("details")
        return (str(content), bool(value.get("is_error", value.get("isError", False))),
                dict(details) if isinstance(details, Mapping) else {})  # fmt: skip
    return json.dumps(value, default=str), False, {}


class MockLlm:
    """A :class:`PlaybookServer` on its own thread and loop, for agents in the test's own process."""

    def __init__(
        self, playbook: Playbook, *, speed: float | None = None, out_dir: Path | None = None
    ) -> None:
        self.playbook = playbook
        self.api_key = "wb-" + secrets.token_hex(8)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="workbench-mock-llm", daemon=True)
        self.server = PlaybookServer(playbook, speed=speed, out_dir=out_dir)
        self.base_url = ""
        self._checked = False

    def start(self) -> MockLlm:
        self._thread.start()
        self.base_url = self._run(self.server.start())
        return self

    def _run(self, coro: Any) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout=60)

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"

    @property
    def events(self) -> Events:
        return self.server.state.events

    @property
    def state(self) -> PlaybookState:
        return self.server.state

    def check(self) -> None:
        """End the conversation and raise :class:`PlaybookFailed` if the playbook was broken in any way."""
        if not self._checked:
            self._checked = True
            self._run(self.server.finish())
        if self.state.failures:
            raise PlaybookFailed("\n\n".join(f.message for f in self.state.failures))

    def close(self) -> None:
        if self._thread.is_alive():
            self._run(self.server.stop())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> MockLlm:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
