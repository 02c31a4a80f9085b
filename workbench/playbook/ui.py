"""A playbook's ``mock_ui`` as the run's screen responders, with answers computed in Python.

The pi harness calls ``mockUI.confirm/select/input`` through pi's extension UI;
here the agent is a real TUI, so a question is recognised on its screen by its
shape (:mod:`workbench.terminal.responders`) and answered with keys:

* a confirm (`(y/n)`, `[Y/n]`, `(yes/no)`): ``y``/``yes`` or ``n``/``no`` and Enter, from
  ``MockUi.confirm`` (default yes; a function gets the question's line);
* a numbered menu with a cursor: the cursor moves to the chosen option
  (``<Up>``/``<Down>``) and Enter picks it; ``MockUi.select`` is an index, an
  option's text (exact, else a unique part of it) or a function of the options
  (default: the first). An index or a text that names no option fails the run
  with the options shown, never a silent fallback (the pi harness falls back to
  the first item);
* a free-text question: ``MockUi.input`` (default: empty, as pi's) and Enter.
  It has no shape on the screen (agent output ending in `:` looks the same), so
  it is asked only when the program waits to read a line from its terminal
  while the run waits for the program (:mod:`workbench.terminal.line_read`
  says what the kernel shows; ``ScenarioRun.asks_for_a_line``);
* text rules (:class:`~workbench.playbook.dsl.UiRule`) are tried first, as written.

Each answer is a ``ui`` event with its kind (``confirm``, ``select``, ``input``,
``match``) and value (True/False, the option's text, the text typed, the keys), so ``events.ui_calls_for``
works as in the pi harness.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from workbench.playbook.dsl import MockUi, Select, Text, UiRule
from workbench.scenario.on_screen import OnScreen, ScreenRule
from workbench.terminal.responders import select_options

_YES_NO = re.compile(r"yes\s*/\s*no", re.IGNORECASE)


class UiAnswerError(ValueError):
    """A ``mock_ui`` answer that names nothing on the screen; the message shows what was there."""


def screen_rules(mock_ui: MockUi) -> OnScreen:
    """The run's responders: the text rules, then the confirm, select and input defaults (each answers every
    time)."""
    rules = [_text_rule(rule) for rule in mock_ui.rules]
    rules.append(ScreenRule("", kind="confirm", times=None, answer=_confirm(mock_ui.confirm)))
    rules.append(ScreenRule("", kind="select", times=None, answer=_select(mock_ui.select)))
    rules.append(ScreenRule("", kind="input", times=None, answer=_input(mock_ui.input)))
    return OnScreen(tuple(rules))


def _text_rule(rule: UiRule) -> ScreenRule:
    return ScreenRule(rule.keys, match=None if rule.regex else rule.match, regex=rule.match if rule.regex else None,
                      times=rule.times, answer=lambda matched, screen: (rule.keys, rule.keys))  # fmt: skip


def _confirm(choice: bool | Callable[[str], bool]) -> Callable[[str, str], tuple[str, Any]]:
    def answer(line: str, screen: str) -> tuple[str, Any]:
        yes = bool(choice(line)) if callable(choice) else bool(choice)
        words = ("yes", "no") if _YES_NO.search(line) else ("y", "n")
        return f"{words[0] if yes else words[1]}<Enter>", yes

    return answer


def _select(choice: Select) -> Callable[[str, str], tuple[str, Any]]:
    def answer(line: str, screen: str) -> tuple[str, Any]:
        found = select_options(screen)
        if found is None:
            raise UiAnswerError(f"mock_ui select: no menu with a cursor on the screen at {line!r}")
        labels, cursor = found
        target = option_index(choice(list(labels)) if callable(choice) else choice, labels)
        moves = "<Down>" * (target - cursor) if target >= cursor else "<Up>" * (cursor - target)
        return moves + "<Enter>", labels[target]

    return answer


def _input(choice: Text) -> Callable[[str, str], tuple[str, Any]]:
    def answer(line: str, screen: str) -> tuple[str, Any]:
        text = str(choice(line)) if callable(choice) else str(choice)
        return text.replace("<", "<lt>") + "<Enter>", text

    return answer


def option_index(choice: Any, labels: list[str]) -> int:
    """The option ``choice`` names: an index, an option's exact text, or a part only one option has."""
    shown = "; ".join(f"{n}: {label!r}" for n, label in enumerate(labels))
    if isinstance(choice, bool) or not isinstance(choice, int | str):
        raise UiAnswerError(
            f"mock_ui select: {choice!r} is neither an index nor an option's text; options: {shown}"
        )
    if isinstance(choice, int):
        if not 0 <= choice < len(labels):
            raise UiAnswerError(f"mock_ui select: index {choice} is not an option; options: {shown}")
        return choice
    if choice in labels:
        return labels.index(choice)
    partial = [n for n, label in enumerate(labels) if choice in label]
    if len(partial) == 1:
        return partial[0]
    which = "no option" if not partial else "more than one option"
    raise UiAnswerError(f"mock_ui select: {choice!r} matches {which}; options: {shown}")
