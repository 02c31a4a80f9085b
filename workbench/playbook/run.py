"""A playbook run: the engine walks the playbook's schedule with an agent in a real pty.

:func:`run_playbook` writes the playbook as a scenario file (the YAML of
:meth:`Playbook.to_yaml`) into the output folder, then runs it like any
scenario with one difference: its driver, :class:`PlaybookDriver`, is the
real-agent driver whose mock LLM server answers from the playbook (late-bound
params, ``.then``, the playbook's checks) instead of the scenario's timeline.
The engine types each turn's prompt once the agent has answered the one before,
takes the screen at every step and leaves a run folder (trace, recording,
`playbook-events.jsonl`) that `workbench show RUN` opens like any other.

The agent is a preset (``agent="pi"``, ``"claude-code"``, ``"codex"``), any
command with `{base_url}`/`{api_key}` placeholders, or by default the built-in
mock agent in LLM mode (:mod:`workbench.playbook.api_agent`), which alone can
honour ``mock_tools``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from workbench.engine.drivers import AGENT_MODE
from workbench.engine.drivers.base import RunContext, Stopped
from workbench.engine.drivers.real_agent import AGENT_EXIT_GRACE_S, RealAgentDriver
from workbench.engine.options import RunOptions
from workbench.engine.program import Program
from workbench.engine.report import ScenarioResult
from workbench.llm import LlmServer
from workbench.names import Env
from workbench.playbook.api_agent import MOCK_TOOLS_ENV
from workbench.playbook.dsl import Playbook
from workbench.playbook.editor import script as editor_script
from workbench.playbook.events import Events, UiRecord
from workbench.playbook.responder import PlaybookFailure, PlaybookState
from workbench.playbook.schedule import scenario_yaml, timeline
from workbench.playbook.server import PlaybookServer
from workbench.playbook.ui import screen_rules
from workbench.scenario.names import folder_name
from workbench.scenario.outcomes import CheckOutcome
from workbench.timeline import Schedule, Step, StepKind
from workbench.timeline.prepare import prepare

BUILT_IN = "mock-agent"
EVENTS_FILE = "playbook-events.jsonl"


def mock_agent_command(name: str) -> list[str]:
    return [sys.executable, "-m", "workbench.playbook.api_agent", "--base-url", "{base_url}",
            "--api-key", "{api_key}", "--name", name]  # fmt: skip


def response_steps(playbook: Playbook, schedule: Schedule) -> list[list[int]]:
    """Turn -> response -> the last schedule step of that response's `llmResponse` event."""
    last: dict[int, int] = {}
    for step in schedule.steps:
        last[step.event_index] = max(last.get(step.event_index, -1), step.index)
    return [[last.get(event, -1) for event in turn] for turn in timeline(playbook)[1]]


class PlaybookDriver(RealAgentDriver):
    """The real-agent driver, with the playbook's server; agent steps record the playbook's events."""

    summary: ClassVar[str] = "a Python playbook served to any agent through the mock LLM server"

    def __init__(self, ctx: RunContext, state: PlaybookState) -> None:
        super().__init__(ctx)
        self.state = state
        self._shown = 0
        self._events = (ctx.run_dir / EVENTS_FILE).open("w", encoding="utf-8")
        state.events.listeners.append(self._write_event)

    def _write_event(self, kind: str, record: dict[str, Any]) -> None:
        self._events.write(json.dumps({"kind": kind, **record}, default=str) + "\n")
        self._events.flush()

    def new_server(self, **kwargs: Any) -> LlmServer:
        steps = response_steps(self.state.playbook, self.ctx.schedule)
        return PlaybookServer(self.state.playbook, scenario=self.ctx.scenario, response_steps=steps,
                              state=self.state, **kwargs)  # fmt: skip

    async def _agent_program(self, program: Program) -> Program:
        agent = await super()._agent_program(program)
        assert isinstance(self.server, PlaybookServer)
        editor = self.ctx.run_dir / "workbench-editor"  # mock_ui.editor: see workbench.playbook.editor
        editor.write_text(editor_script(sys.executable), encoding="utf-8")
        editor.chmod(0o755)
        return replace(agent, env={**agent.env, MOCK_TOOLS_ENV: self.server.tools_url, "VISUAL": str(editor),
                                   "EDITOR": str(editor), Env.UI_EDITOR: self.server.editor_url})  # fmt: skip

    async def play(self, step: Step) -> list[CheckOutcome] | None:
        if step.kind is StepKind.ADVANCE:  # a turn's end: its screen is final once the agent is quiet
            await self.settle()
            return self._new_events()
        checks = await super().play(step)
        if checks is None:
            return None
        return checks + self._new_events()

    async def _wait_served(self, step: Step) -> None:
        """Wait for the server to play ``step``; stop at once when the playbook cannot go on (a params
        function raised, a tool the agent lacks, a mock tool crashed) or the agent exited before its end
        (then the verdict is the playbook's own: not fully consumed)."""
        assert self.server is not None and self.ctx.session is not None
        session = self.ctx.session
        while not await self.server.wait_step(step.index, timeout=0.2):
            if self.state.stopped is not None:
                raise Stopped
            if not session.alive and not await self.server.wait_step(step.index, timeout=AGENT_EXIT_GRACE_S):
                await self._collect()  # the server's final check names what the playbook had left
                raise Stopped

    def _new_events(self) -> list[CheckOutcome]:
        """The playbook's events since the last step, as the step's checks (the trace and the app show them)."""
        out = []
        for kind, record in self.state.events.all[self._shown :]:
            text = getattr(record, "text", None)
            if kind in ("tool_call", "blocked_call"):
                text = f"{record.tool} {json.dumps(record.input, default=str)[:200]}"
            out.append(CheckOutcome(kind != "blocked_call", f"playbook {kind}: {str(text)[:300]}"))
        self._shown = len(self.state.events.all)
        return out

    async def stop(self) -> None:
        """Also after a timeout: the server's final check runs, so the failure names what the playbook had
        left (`Playbook not fully consumed`) beside the timeout, whatever the agent was doing."""
        await self._collect()
        await super().stop()
        self._events.close()


class UiEvents:
    """An observer of the run: each answer of the screen responders (``mock_ui``) becomes a ``ui`` event."""

    def __init__(self, events: Events) -> None:
        self.events = events

    def run_started(self, run: Any) -> None:
        return None

    def step_finished(self, run: Any, record: Any) -> None:
        for check in record.checks:
            ui = check.get("ui")
            if isinstance(ui, dict):
                self.events.add_ui(UiRecord(str(ui["rule"]), str(ui["matched"]), str(ui["keys"]), int(ui["at_ms"]),
                                            str(ui.get("kind", "")), ui.get("value")))  # fmt: skip

    def run_finished(self, run: Any, result: Any) -> None:
        return None


@dataclass
class PlaybookRun:
    """What a playbook run left: the report entry, the events, the playbook's own failures."""

    result: ScenarioResult
    events: Events
    failures: list[PlaybookFailure]
    scenario_file: Path  # the path the scenario was played as (its name and folder); played from memory
    scenario_text: str  # the scenario YAML it was played from (never written; save it to replay it)
    consumed: int = 0  # playbook actions served to the agent
    remaining: int = 0  # actions it never asked for

    @property
    def run_dir(self) -> Path | None:
        return Path(self.result.run_dir) if self.result.run_dir else None

    @property
    def passed(self) -> bool:
        return self.result.status in ("passed", "skipped")

    def explain(self) -> str:
        """Every failure with its line, the screen when it helps, and the run folder."""
        lines = [f"{self.result.file}:{f.line}: {f.kind}: {f.message}" + (f"\n{f.diff}" if f.diff else "")
                 for f in self.result.failures]  # fmt: skip
        if self.result.run_dir:
            lines.append(
                f"trace and recording in {self.result.run_dir} (workbench show {self.result.run_dir})"
            )
        return "\n".join(lines)


async def run_playbook(
    playbook: Playbook,
    *,
    agent: str = BUILT_IN,
    command: Sequence[str] | None = None,
    options: RunOptions | None = None,
    terminal: tuple[int, int] | None = None,
    masks: Sequence[str] = (),
) -> PlaybookRun:
    """Run ``playbook`` against ``agent`` (a preset name, or `mock-agent`) or ``command``; see the module docstring."""
    from workbench.engine.runner import run_scenario

    options = options or RunOptions()
    if command is None and agent == BUILT_IN:
        command = mock_agent_command(playbook.name)
    folder = options.out_dir / folder_name(playbook.name)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{folder_name(playbook.name)}.playbook.yaml"
    text = scenario_yaml(playbook, command, terminal)
    if masks:
        text += "masks:\n" + "".join(f"  - {json.dumps(mask)}\n" for mask in masks)
    prepared = prepare(path, defines=options.defines, text=text)  # played from memory: no file to read back
    state = PlaybookState(playbook)
    preset = None if command is not None else agent
    run_options = replace(options, mode=AGENT_MODE, mode_options={"agent": preset} if preset else {},
                          on_screen=screen_rules(playbook.mock_ui), driver=lambda ctx: PlaybookDriver(ctx, state))  # fmt: skip
    result = await run_scenario(path, run_options, [UiEvents(state.events)], prepared)
    return PlaybookRun(result, state.events, state.failures, path, text, state.consumed, state.remaining)
