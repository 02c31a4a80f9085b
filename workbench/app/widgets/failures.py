"""The failures pane: every failure of the last run with its line, kind and whole message, wrapped.

It stays until the next run starts (a toast is gone in seconds); choosing a
failure jumps to its step and that step's recorded screen. For a Claudeless
file, which has no steps of its own, it lists the response rules instead and
says why the file is not run alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.app.widgets.option_list import SafeOptionList

if TYPE_CHECKING:  # the schema loads with the first validation, after the first frame
    from workbench.engine.report import Failure
    from workbench.scenario.model import Pattern, Reply, Scenario


def _pattern(pattern: Pattern) -> str:
    return "any prompt" if pattern.type == "any" else f"{pattern.type} {pattern.text!r}"


def _reply(reply: Reply | None) -> str:
    if reply is None:
        return "(turns)"
    if reply.failure is not None:
        return f"fails: {reply.failure.type}"
    tools = ", ".join(call.tool for call in reply.tool_calls)
    text = reply.text.splitlines()[0] if reply.text else ""
    return " + ".join(
        part for part in (repr(text) if text else "", f"tools: {tools}" if tools else "") if part
    )


class FailuresList(SafeOptionList):
    """Failures of the last run (or a Claudeless file's rules); Enter or a click jumps to a failure."""

    DEFAULT_CSS = """
    FailuresList {
        height: 1fr;
        border: round $foreground 30%;
        border-title-color: $text;
    }
    FailuresList:focus {
        border: round $primary;
    }
    """
    BORDER_TITLE = "Failures"
    VIEW: ClassVar[str] = "failures"  # its number key and tab (workbench.app.actions.VIEWS)

    class Jump(Message):
        def __init__(self, failure: Failure) -> None:
            super().__init__()
            self.failure = failure

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.failures: list[Failure] = []

    def action_open(self) -> None:
        """Take the keyboard with the first failure highlighted, so Enter opens it at once (F12)."""
        self.focus()
        if self.failures and self.highlighted is None:
            self.highlighted = 0

    def show(self, failures: list[Failure], status: str | None, skip_reason: str | None = None) -> None:
        """The failures of a finished run (``status`` None: no run yet, or a new one started); a skipped
        run shows why it was skipped (a program or variable it needs here), whole and wrapped."""
        self.failures = list(failures)
        self.clear_options()
        if status is None:
            self.border_title = "Failures"
            self.add_option(Option(Text("no run yet", style="italic"), disabled=True))
            return
        count = len(failures)
        self.border_title = f"Failures: {count} ({status})"
        if not failures:
            if status == "passed":
                word = "passed: no failures"
            elif status == "running":
                word = "running: no failures so far"
            elif skip_reason:
                word = f"skipped: {skip_reason}"
            else:
                word = f"{status}: no failures recorded"
            self.add_option(Option(Text(word), disabled=True))
        for i, failure in enumerate(failures):  # the whole message, wrapped: never cut (issue 22 point 3)
            text = Text()
            text.append("✗ ", style="bold red")
            where = f"line {failure.line}" if failure.line else f"step {failure.step + 1}"
            text.append(f"{where} ", style="bold")
            text.append(f"[{failure.kind}] ", style="italic")
            text.append(failure.message.rstrip("\n"))
            self.add_option(Option(text, id=str(i)))

    def show_rules(self, scenario: Scenario) -> None:
        """A Claudeless file: its rules table, and why it does not run alone."""
        self.failures = []
        self.clear_options()
        rules = scenario.rules.rules if scenario.rules is not None else ()
        self.border_title = f"Rules: {len(rules)} (Claudeless)"
        self.add_option(Option(Text("Claudeless rules answer a real agent's requests: they do not run alone "
                                    "(workbench run --mode real-agent).", style="italic"), disabled=True))  # fmt: skip
        for number, rule in enumerate(rules, 1):
            text = Text()
            line = rule.pos.line if rule.pos is not None else 0
            text.append(f"{number:>2}. ", style="bold")
            text.append(f"line {line}: " if line else "")
            text.append(f"{_pattern(rule.pattern)} -> {_reply(rule.reply)}")
            if rule.max_matches is not None:
                text.append(f" (at most {rule.max_matches}x)", style="italic")
            self.add_option(Option(text, disabled=True))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None and event.option.id.isdigit():
            self.post_message(self.Jump(self.failures[int(event.option.id)]))
