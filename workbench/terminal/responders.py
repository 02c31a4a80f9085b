"""Screen responders: decide which `onScreen` rule answers the screen, and when a question is left hanging.

:class:`Responders` is pure (the caller passes the screen text and the time), so
every rule is tested without a terminal; the engine feeds it the settled screen
and types what it returns (:mod:`workbench.engine.screen_responders`).

* A rule answers when its text or regex is on the screen. It then waits until
  that match has left the screen before it may answer again (so one question
  gets one answer, however long the program takes to redraw), up to its
  ``times`` (None: every time).
* Rules are tried in order; the first that may answer wins. ``default`` rules
  answer a question of their kind that no text rule answered.
* Questions are recognised by shape: ``confirm`` is a `(y/n)`, `[Y/n]`,
  `(yes/no)` choice; ``select`` is two or more numbered options (`1.`, `2)`)
  one of which carries a cursor (`❯`, `>`, `›`, `▶`). A question of a known
  kind that stays on the screen unanswered for ``unanswered_ms`` is reported
  once, by :meth:`Responders.unanswered`.
* A free-text ``input`` question has no shape: the caller says when the
  program waits to read a line (``reading``, from
  :mod:`workbench.terminal.line_read`); its text is the screen's last line
  that is not blank. Each such wait is a new question (a line that was typed
  and not yet read never counts as one), so no count of answered questions
  applies to it.
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import Any

from workbench.records import record
from workbench.scenario.on_screen import OnScreen, ScreenRule

_CONFIRM = re.compile(r"[\(\[]\s*(?:y|yes)\s*/\s*(?:n|no)\s*[\)\]]", re.IGNORECASE)
_OPTION = re.compile(r"^\s*(?P<cursor>[❯>›▶→]\s*)?(?P<n>\d{1,2})[.)]\s+\S")


def questions(screen: str) -> list[tuple[str, str]]:
    """Every question of a known kind on the screen, oldest first: (kind, the line that shows it)."""
    lines = screen.split("\n")
    found = [("confirm", line.strip()) for line in lines if _CONFIRM.search(line)]
    numbers: list[int] = []
    cursor_line = ""
    for line in [*lines, ""]:
        option = _OPTION.match(line)
        if option is not None:
            numbers.append(int(option["n"]))
            cursor_line = line.strip() if option["cursor"] else cursor_line
            continue
        if (
            len(numbers) >= 2
            and cursor_line
            and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        ):
            found.append(("select", cursor_line))
        numbers, cursor_line = [], ""
    return found


def select_options(screen: str) -> tuple[list[str], int] | None:
    """The newest numbered menu with a cursor: its option labels (without number and cursor) and the
    index of the option under the cursor; None when the screen shows none."""
    found: tuple[list[str], int] | None = None
    labels: list[str] = []
    numbers: list[int] = []
    cursor = -1
    for line in [*screen.split("\n"), ""]:
        option = _OPTION.match(line)
        if option is not None:
            numbers.append(int(option["n"]))
            cursor = len(labels) if option["cursor"] else cursor
            labels.append(line[option.end("n") + 1 :].strip())
            continue
        if (
            len(numbers) >= 2
            and cursor >= 0
            and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        ):
            found = (labels, cursor)
        labels, numbers, cursor = [], [], -1
    return found


def question_kind(screen: str) -> tuple[str, str] | None:
    """The newest question of a known kind on the screen, or None."""
    found = questions(screen)
    return found[-1] if found else None


@record
class Answer:
    rule: ScreenRule
    matched: str
    keys: str
    value: Any = None  # what a Python rule answered (True for a confirm, the option chosen, the text typed)


@record
class _RuleState:
    used: int = 0
    handled: int = 0  # occurrences on the screen when an answer was last typed: only more is a new question


@record
class Responders:
    """See the module docstring. Text and regex rules are tried before defaults, each in file order."""

    config: OnScreen
    _order: list[tuple[ScreenRule, _RuleState]] = field(default_factory=list)
    _handled: dict[str, int] = field(default_factory=dict)  # kind -> questions on screen at the last answer
    _waiting: tuple[str, str] | None = None
    _since: int = 0
    _reported: bool = False

    def __post_init__(self) -> None:
        rules = sorted(self.config.rules, key=lambda r: r.kind is not None)
        self._order = [(rule, _RuleState()) for rule in rules]

    @property
    def answers_input(self) -> bool:
        """Whether a rule answers free-text questions (then the caller says when a line is awaited)."""
        return any(rule.kind == "input" for rule, _ in self._order)

    def answer(self, screen: str, reading: bool = False) -> Answer | None:
        """The answer to type for this settled screen, if any (at most one per call). ``reading``: the
        program waits to read a line from its terminal (a free-text question)."""
        counts = [self._occurrences(rule, screen, reading) for rule, _ in self._order]
        for (rule, state), (count, matched) in zip(self._order, counts, strict=True):
            if rule.kind == "input":
                state.handled = 0  # every line awaited is a new question (see the module docstring)
            state.handled = min(state.handled, count)  # answered questions scrolled away or were redrawn
            if count <= state.handled or (rule.times is not None and state.used >= rule.times):
                continue
            state.used += 1
            for (_, other), (n, _) in zip(self._order, counts, strict=True):
                other.handled = n  # every question now on the screen has had its answer
            kinds = questions(screen)
            self._handled = {kind: sum(1 for k, _ in kinds if k == kind) for kind in ("confirm", "select")}
            self._waiting = None
            if rule.answer is not None:
                keys, value = rule.answer(matched, screen)
                return Answer(rule, matched, keys, value)
            return Answer(rule, matched, rule.keys)
        return None

    def _occurrences(self, rule: ScreenRule, screen: str, reading: bool) -> tuple[int, str]:
        """How often the rule's question is on the screen, and the newest occurrence's text."""
        if rule.kind == "input":
            last = next((line.strip() for line in reversed(screen.split("\n")) if line.strip()), "")
            return (1, last) if reading else (0, "")
        if rule.match is not None:
            count = screen.count(rule.match) or screen.replace("\n", "").count(rule.match)
            return count, rule.match
        if rule.regex is not None:
            found = rule.regex_matches(screen)
            return len(found), found[-1].group(0) if found else ""
        lines = [line for kind, line in questions(screen) if kind == rule.kind]
        return len(lines), lines[-1] if lines else ""

    def unanswered(self, screen: str, now_ms: int) -> tuple[str, str] | None:
        """A new question of a known kind that has waited ``unanswered_ms`` with no answer: (kind, line), once."""
        found = questions(screen)
        counts = {kind: sum(1 for k, _ in found if k == kind) for kind in ("confirm", "select")}
        for kind, count in counts.items():
            self._handled[kind] = min(self._handled.get(kind, 0), count)
        fresh = [(k, line) for k, line in found if counts[k] > self._handled.get(k, 0)]
        question = fresh[-1] if fresh else None
        if question is None or self._reported:
            self._waiting, self._since = question, now_ms
            return None
        if question != self._waiting:
            self._waiting, self._since = question, now_ms
            return None
        if now_ms - self._since >= self.config.unanswered_ms:
            self._reported = True
            return question
        return None
