"""The protocol every mode implements, and the run context a driver may use.

A *driver* plays the agent side of a scenario: the mock agent over its control
channel, the mock LLM server for a real agent, the REST server for a client,
or nothing at all for a plain terminal program. The runner owns everything
else (workspace, pty, clock, screenshots, assertions, observers) and calls the
driver at five points:

``start(program)``
    Before anything is played: set up what the mode needs (servers, sockets),
    decide the program under test (it may replace the one the scenario names)
    and start it with :meth:`RunContext.spawn`.
``play(step)``
    Play one step the mode's way and return its checks, or return None to let
    the runner play it (input, screenshots, assertions, user commands...).
``settle()``
    Before a screen is read: wait until what the program shows is final.
``finish()``
    After the last step: the program's exit code, when the mode knows one.
``stop()``
    Always, also after a failure or a timeout: end what ``start`` began.

A driver sees the run only through :class:`RunContext`; it never touches the
runner's own fields.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import field
from pathlib import Path
from typing import Protocol

from workbench.clock import VirtualClock
from workbench.engine.options import RunOptions
from workbench.engine.program import Program
from workbench.engine.report import Failure, ScenarioResult
from workbench.records import record
from workbench.scenario import model as m
from workbench.scenario.outcomes import CheckOutcome, FailureKind
from workbench.terminal import PtySession, encode_keys
from workbench.terminal.keys import split_keys
from workbench.timeline import Schedule, Step
from workbench.workspace import Workspace
from workbench.workspace.asserts import assert_checks, git_checks

Checks = list[CheckOutcome]
"""What a step checked (in the trace as its `checks`)."""


class DriverError(Exception):
    """The mode cannot run this scenario (an agent not installed, a port in use...): a `process` failure,
    at the step being played unless ``at`` names the step, line and kind the run failed at."""

    def __init__(self, message: str, at: tuple[int, int, str] | None = None) -> None:
        super().__init__(message)
        self.at = at


class Stopped(Exception):
    """The driver has recorded why the run cannot go on: the run ends now, with no failure of its own."""


class Skip(Exception):
    """The mode has nothing to play in this scenario; the message says why and what to use instead."""


@record
class RunContext:
    """What a driver may see and do of one run. The runner fills it in as the run goes."""

    path: Path
    scenario: m.Scenario
    schedule: Schedule
    options: RunOptions
    result: ScenarioResult
    run_dir: Path
    workspace: Workspace
    clock: VirtualClock
    spawn: Callable[[Program], Awaitable[PtySession]]
    """Start the program under test in the run's pty (recorded, in the workspace, at the profile's size)."""
    session: PtySession | None = None
    typed_bytes: int = 0
    """Every byte written to the program so far (typed steps and the app's focus mode)."""
    settle: Callable[[], Awaitable[None]] = field(default=lambda: _nothing())
    waiting_for_program: bool = False
    """True while the driver waits for the program to act (a real agent's next request to the model), so
    a line the program then waits to read from its terminal is a question nobody else will answer."""
    played: int = -1
    """The last step the runner has finished (:meth:`wait_played` waits for one)."""
    started: float = 0.0
    """When the run started (``time.monotonic()``): the origin of the trace's ``wall_ms``, for records kept
    beside it on the same clock (the ACP messages)."""
    _progress: asyncio.Event = field(default_factory=asyncio.Event)

    def step_played(self, index: int) -> None:
        """The runner has finished step ``index`` (and every one before it)."""
        self.played = max(self.played, index)
        self._progress.set()

    async def wait_played(self, index: int) -> None:
        """Until the runner has finished step ``index``: what a server answering the program on the
        runner's loop waits for before it sends what comes after that step."""
        while self.played < index:
            self._progress.clear()
            await self._progress.wait()

    def write(self, text: str) -> None:
        """Type ``text`` (key notation: ``<Enter>``, ``<C-d>``) into the program now."""
        assert self.session is not None
        data = encode_keys(text)
        self.session.write_bytes(data)
        self.typed_bytes += len(data)

    async def type(self, text: str) -> None:
        """Type ``text`` as a person does: into a TUI a key per read (:meth:`PtySession.type_keys`)."""
        assert self.session is not None
        keys = split_keys(text)
        self.typed_bytes += sum(len(k) for k in keys)
        await self.session.type_keys(keys)

    def screen_text(self) -> str:
        if self.session is None:
            return ""
        return "\n".join(row.rstrip() for row in self.session.screen.text_rows())

    def the_screen(self) -> str:
        """The screen for a failure message: `the screen was:` and its rows down to the last written one (a
        CI log is not given a screenful of blank lines), or `the screen was empty`."""
        shown = self.screen_text().rstrip()
        return f"the screen was:\n{shown}" if shown else "the screen was empty"

    def fail(self, index: int, line: int, kind: FailureKind, message: str) -> None:
        """Record a failure of step ``index`` (0: of the run) written at ``line`` in the report."""
        self.result.fail(Failure(index, line, kind, message, self.result.file))

    async def assert_outcomes(self, step: Step, *, screen_only: bool = False) -> list[CheckOutcome]:
        """The checks of an `assert` or `assertGit` step, once the screen has settled.
        ``screen_only``: of an `assert`, only `text.contains` (the mock LLM server checks the rest)."""
        event = step.event
        if not (screen_only and isinstance(event, m.Assert) and not event.text_contains):
            await self.settle()  # a program's output, files and commits are final once its screen is quiet
        if isinstance(event, m.AssertGit):
            return git_checks(self.workspace.path, event.checks)
        assert isinstance(event, m.Assert)
        return assert_checks(event, self.workspace, self.screen_text(), files=not screen_only)


def key_notation(key: str) -> str:
    """`{type: key, key: ...}` names (`Up`, `Enter`, `ctrl+c`, `Ctrl-C`, `<Tab>`) in our key notation."""
    if key.startswith("<") and key.endswith(">"):
        return key
    lowered = key.lower()
    for prefix in ("ctrl+", "ctrl-", "c-"):
        if lowered.startswith(prefix) and len(key) == len(prefix) + 1:
            return f"<C-{lowered[-1]}>"
    return f"<{key}>"


async def _nothing() -> None:
    return None


class Driver(Protocol):
    """One way of playing the agent side; see the module docstring for when each method runs."""

    def __init__(self, ctx: RunContext) -> None: ...
    async def start(self, program: Program) -> None: ...
    async def play(self, step: Step) -> Checks | None: ...
    async def settle(self) -> None: ...
    async def finish(self) -> int | None: ...
    async def stop(self) -> None: ...
