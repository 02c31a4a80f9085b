"""The "Record a session" dialog: `workbench record` from the palette, its upstream and command filled in.

The upstream comes from ``$WORKBENCH_RECORD_UPSTREAM``, else the agent's usual
base-URL variables, else Anthropic's API; the command from the open scenario's
``command`` (placeholders and all). The app has no terminal to relay, so a
recording started here types one prompt and ends when the agent is idle
(``record --prompt``); the main screen opens the scenario as soon as it is
written.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from workbench.app.templates import new_file_name
from workbench.names import DEFAULT_SCENARIOS_DIR

if TYPE_CHECKING:
    from workbench.app.screens.main import MainScreen

DEFAULT_UPSTREAM = "https://api.anthropic.com"


@dataclass(frozen=True)
class RecordRequest:
    upstream: str
    command: tuple[str, ...]
    prompt: str
    output: Path

    def argv(self) -> list[str]:
        """`workbench record`'s arguments (after `workbench`)."""
        return ["record", "--upstream", self.upstream, "-o", str(self.output), "--prompt", self.prompt,
                "--", *self.command]  # fmt: skip


async def record(request: RecordRequest) -> str | None:
    """Run `workbench record` for ``request`` until the agent is idle; None when the scenario is written,
    else why not (the last line the recorder wrote to stderr)."""
    import asyncio
    import sys

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "workbench", *request.argv(), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await proc.communicate()
    if proc.returncode == 0 and request.output.exists():
        return None
    lines = err.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {proc.returncode}"


def record_session(host: MainScreen) -> None:
    """The palette's "record a session" on ``host``: this dialog, then `workbench record`, then the file opened."""
    scenario = host.validation.scenario if host.validation is not None else None
    command = scenario.command if scenario is not None and scenario.command else ()

    async def recording(request: RecordRequest) -> None:
        host.notify(f"recording {request.output} (the agent runs until it is idle)", timeout=4)
        error = await record(request)
        if error is not None:
            host.notify(f"recording failed: {error}", severity="error")
            return
        host.browser.add_file(request.output)
        host.request_open(request.output)

    def answered(request: RecordRequest | None) -> None:
        if request is not None:
            host.run_worker(recording(request), exclusive=True, group="record")

    host.app.push_screen(RecordScreen(host.browser.root or DEFAULT_SCENARIOS_DIR, command), answered)


def default_upstream(environ: dict[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    for name in (
        "WORKBENCH_RECORD_UPSTREAM",
        "ANTHROPIC_BASE_URL",
        "OPENAI_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
    ):
        if env.get(name):
            return env[name]
    return DEFAULT_UPSTREAM


class RecordScreen(ModalScreen[RecordRequest | None]):
    """Upstream, command, prompt and a name; Enter (or Record) returns what to record."""

    DEFAULT_CSS = """
    RecordScreen { align: center middle; }
    #record-dialog { width: 90; max-width: 100%; height: auto; max-height: 100%;
                     border: thick $primary; background: $surface; padding: 0 1; }
    #record-error { color: $text-error; height: auto; }
    #record-buttons { height: auto; align: center middle; }
    #record-buttons Button { margin: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="record-cancel")]

    def __init__(self, folder: Path, command: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.folder = folder
        self.command = command

    def compose(self) -> ComposeResult:
        with Vertical(id="record-dialog"):
            yield Static(
                f"Record a session into {self.folder}/ (the agent talks to the real API through a proxy)"
            )
            yield Input(default_upstream(), placeholder="upstream URL", id="record-upstream")
            yield Input(
                shlex.join(self.command),
                placeholder="command, with {base_url} placeholders",
                id="record-command",
            )
            yield Input(placeholder="the prompt to type", id="record-prompt")
            yield Input(placeholder="name, e.g. fix-the-bug", id="record-name")
            yield Static("", id="record-error")
            with Horizontal(id="record-buttons"):
                yield Button("Record", id="record-start", variant="primary")
                yield Button("Cancel", id="record-cancel-button")

    LABELS: ClassVar[dict[str, str]] = {"upstream": "upstream URL", "command": "the agent's command",
                                        "prompt": "prompt", "name": "scenario name"}  # fmt: skip

    def on_mount(self) -> None:
        for name, label in self.LABELS.items():  # a filled field keeps saying what it is (a placeholder goes)
            self.query_one(f"#record-{name}", Input).border_title = label
        empty = next((i for i in self.query(Input) if not i.value), None)
        (empty or self.query_one("#record-prompt", Input)).focus()

    def _value(self, name: str) -> str:
        return self.query_one(f"#record-{name}", Input).value.strip()

    @on(Input.Submitted)
    @on(Button.Pressed, "#record-start")
    def start(self) -> None:
        error = self.query_one("#record-error", Static)
        try:
            command = tuple(shlex.split(self._value("command")))
        except ValueError as exc:
            error.update(f"command: {exc}")
            return
        for name, what in (("upstream", "an upstream URL"), ("prompt", "a prompt"), ("name", "a name")):
            if not self._value(name):
                error.update(f"{what} first")
                self.query_one(f"#record-{name}", Input).focus()
                return
        if not command:
            error.update("the agent's command first")
            return
        output = self.folder / new_file_name(self._value("name"))
        if output.exists():
            error.update(f"{output} exists already: choose another name")
            return
        self.dismiss(RecordRequest(self._value("upstream"), command, self._value("prompt"), output))

    @on(Button.Pressed, "#record-cancel-button")
    def action_cancel(self) -> None:
        self.dismiss(None)
