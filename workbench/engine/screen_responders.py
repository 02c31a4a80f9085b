"""The run's screen responders: an observer that answers the program's questions per `onScreen`.

Once the program runs, the screen is looked at every ``POLL_S``; when it has not
changed for ``SETTLED_MS`` (a question is drawn in full), the rules of
:mod:`workbench.terminal.responders` decide, and the answer is typed as a user
would type it. Every answer is recorded: it joins the checks of the step during
which it happened (so the trace and the app show it), with a ``ui`` entry
(rule, what matched, keys). A question of a known kind that nothing answers
aborts the run (:meth:`ScenarioRun.abort`) after `unansweredMs`, failed with the
screen, instead of letting it hang until the run's timeout.

It is active only for scenarios with `onScreen`; for the others it does nothing.
It must come before the trace observer, so its records are in the step's checks
when the trace is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from workbench.engine.report import Failure
from workbench.scenario.user_regex import PatternTooSlow
from workbench.terminal import encode_keys
from workbench.terminal.responders import Responders

if TYPE_CHECKING:
    from workbench.engine.report import ScenarioResult
    from workbench.engine.runner import ScenarioRun
    from workbench.engine.trace import StepRecord
    from workbench.terminal import Screen

POLL_S = 0.05
SETTLED_MS = 100


class ScreenResponders:
    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        self._pending: list[dict[str, Any]] = []
        self.answers: list[dict[str, Any]] = []

    def run_started(self, run: ScenarioRun) -> None:
        config = run.options.on_screen or (run.scenario.on_screen if run.scenario is not None else None)
        if config is None or (not config.rules and config.unanswered_ms <= 0):
            return
        self._task = asyncio.get_running_loop().create_task(self._watch(run, Responders(config)))

    async def _watch(self, run: ScenarioRun, responders: Responders) -> None:
        last, since = "", time.monotonic()
        start = since
        while True:
            await asyncio.sleep(POLL_S)
            screen = run.screen
            if screen is None:
                continue
            text = _text(screen)
            now = time.monotonic()
            if text != last:
                last, since = text, now
                continue
            if (now - since) * 1000 < SETTLED_MS:
                continue
            reading = responders.answers_input and run.asks_for_a_line()
            if reading and _text(screen) != text:  # the question was still on its way to the screen
                last, since = _text(screen), now
                continue
            try:
                answer = responders.answer(text, reading)
            except PatternTooSlow as exc:  # an `onScreen` regex: placed where it is written
                at = exc.pos
                file = run.result.file if run.result is not None else ""
                at_line, at_col = (at.line, at.col) if at else (responders.config.line, 0)
                run.abort(Failure(0, at_line, "expect", str(exc), at.file if at else file, col=at_col))
                return
            except Exception as exc:  # a Python answer (a playbook's mock_ui) that cannot answer this screen
                file = run.result.file if run.result is not None else ""
                run.abort(
                    Failure(
                        0, responders.config.line, "expect", f"{exc}; the screen was:\n{text.rstrip()}", file
                    )
                )
                return
            if answer is not None:
                run.send_input(encode_keys(answer.keys))
                record = {"rule": answer.rule.label, "matched": answer.matched, "keys": answer.keys,
                          "line": answer.rule.line, "at_ms": int((now - start) * 1000)}  # fmt: skip
                if answer.rule.answer is not None:
                    record["kind"], record["value"] = answer.rule.kind or "match", answer.value
                self.answers.append(record)
                self._pending.append({"ok": True, "message": f"onScreen ({answer.rule.label}, line {answer.rule.line}): "
                                      f"saw {answer.matched!r}, typed {answer.keys!r}", "ui": record})  # fmt: skip
                last = ""  # look again once the program has drawn its reply
                continue
            hanging = responders.unanswered(text, int(now * 1000))
            if hanging is not None:
                kind, line = hanging
                message = (f"an unexpected {kind} question waits for an answer that no `onScreen` rule gives: "
                           f"{line!r}; add a rule (match/regex/default: {kind}) with the keys to type. "
                           f"The screen was:\n{text.rstrip()}")  # fmt: skip
                file = run.result.file if run.result is not None else ""
                run.abort(Failure(0, responders.config.line, "timing", message, file))
                return  # the run stops here: nothing later could answer the question

    def step_finished(self, run: ScenarioRun, record: StepRecord) -> None:
        if self._pending:
            record.checks = [*record.checks, *self._pending]
            self._pending = []

    def run_finished(self, run: ScenarioRun, result: ScenarioResult) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(Exception):
                self._task.exception() if self._task.done() and not self._task.cancelled() else None
            self._task = None


def _text(screen: Screen) -> str:
    return "\n".join(row.rstrip() for row in screen.text_rows())
