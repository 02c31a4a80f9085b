"""The step inspector: everything about the step the timeline is at, wrapped, never cut.

It draws a :class:`workbench.app.core.inspect.StepDetails`: the event with its
scenario lines, each check with its full message, the failures at that step,
the files it changed, the screen before and after with the changed cells
marked, and the ACP messages or model requests of the step. The screen pairs
come from :mod:`workbench.terminal.screen_diff`, as in the screenshot pane.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, ClassVar

from rich import box
from rich.console import Group, RenderableType
from rich.style import Style as RichStyle
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import ScrollableContainer, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from workbench.app.widgets.diff import marked_text
from workbench.scenario.diagnostics import count

if TYPE_CHECKING:  # the trace's records load with the first inspected step
    from collections.abc import Sequence
    from pathlib import Path

    from workbench.app.core.inspect import StepDetails
    from workbench.app.widgets.timeline import Mark
    from workbench.engine.report import Failure
    from workbench.engine.trace import StepRecord

CHANGE_SIGNS = {"added": "+", "modified": "~", "deleted": "-"}


def _heading(text: str) -> Text:
    return Text(text, style="bold underline")


def _framed(screen: Text, width: int) -> Text:
    """A screen with a rule above and below, so its blank rows still show where it ends."""
    rule = Text("─" * width, style="dim")
    framed = Text("\n", no_wrap=True).join([rule, screen, rule])
    framed.no_wrap = True
    return framed


def render_details(details: StepDetails, changed: RichStyle) -> RenderableType:
    """The inspector's content for ``details`` (the text wraps at the pane's width; screens do not)."""
    parts: list[RenderableType] = []
    state = "not run yet" if not details.ran else ("failed" if details.failed else "passed")
    head = Text(f"Step {details.index + 1} of {details.total} · {details.actor} {details.action} · {state}",
                style="bold")  # fmt: skip
    if details.ran:
        head.append(f"\nvirtual {details.at_ms} ms · wall {details.wall_ms} ms", style="dim")
    parts += [head, Text(details.summary)]
    if details.checks:
        checks = Text()
        for i, check in enumerate(details.checks):
            checks.append("✓ " if check.ok else "✗ ", style="green" if check.ok else "bold red")
            checks.append(check.message + ("\n" if i < len(details.checks) - 1 else ""))
        parts += [_heading("Checks"), checks]
    if details.failures:
        failures = Text()
        for i, failure in enumerate(details.failures):
            failures.append(f"✗ {failure.kind}: ", style="bold red")
            failures.append(failure.message + ("\n" if i < len(details.failures) - 1 else ""))
        parts += [_heading("Failures"), failures]
    if details.files:
        files = Text()
        for i, change in enumerate(details.files):
            kind = change.get("change", "")
            files.append(f"{CHANGE_SIGNS.get(kind, '?')} {change.get('path', '')} ({kind})", style="bold")
            for line in (change.get("diff") or "").splitlines():  # the step's diff of it, from the trace
                style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
                files.append("\n" + line, style=None if line.startswith(" ") else style)
            if i < len(details.files) - 1:
                files.append("\n")
        parts += [_heading("Files changed"), files]
    if details.source:  # a long line wraps beside its number, under its own start
        source = Table(
            box=box.MINIMAL, show_header=False, show_edge=False, pad_edge=False, border_style="dim"
        )
        source.add_column(justify="right", style="dim", no_wrap=True)
        source.add_column(overflow="fold")
        for offset, line in enumerate(details.source):
            source.add_row(str(details.line + offset), Text(line))
        parts += [_heading(f"Scenario line {details.line}"), source]
    if details.conversation:
        parts += [_heading("Messages of this step"), Text("\n\n".join(details.conversation))]
    return Group(*(item for part in parts for item in (part, Text(""))))


def render_screens(details: StepDetails, changed: RichStyle) -> RenderableType:
    """The screen before and after the step, changed cells marked; each keeps its width (the pane scrolls)."""
    diff = details.screen
    if diff is None:
        return Text("")
    note = (  # with the screen after: what the step did to the one before
        "the step changed no cell"
        if diff.same
        else f"the step changed {count(diff.changed_cells, 'cell')} in {count(len(diff.changed_rows), 'row')}"
    )
    return Group(
        _heading("Screen before"), _framed(marked_text(diff.before, changed), diff.width),
        _heading(f"Screen after ({note})"), _framed(marked_text(diff.after, changed), diff.width),
    )  # fmt: skip


class StepInspector(VerticalScroll, can_focus=True):
    """The inspector pane (a tab beside the terminal); :meth:`show` draws a step's details."""

    DEFAULT_CSS = """
    StepInspector {
        height: 1fr;
        border: round $foreground 30%;
        border-title-color: $text;
        padding: 0 1;
        scrollbar-size: 1 1;
    }
    StepInspector:focus {
        border: round $primary;
    }
    StepInspector #inspector-body {
        width: 1fr;
    }
    StepInspector #inspector-screens-scroll {
        height: auto;
        overflow-x: auto;
        scrollbar-size: 1 1;
    }
    StepInspector #inspector-screens {
        width: auto;
    }
    """
    BORDER_TITLE = "Step"
    VIEW: ClassVar[str] = "step"  # its number key and tab (workbench.app.actions.VIEWS)

    class Wanted(Message):
        """The user asked for the selected step (F11): the screen draws it with :meth:`StepInspector.show`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.details: StepDetails | None = None

    def action_inspect(self) -> None:
        """The timeline's step in full, with the keyboard here to scroll it."""
        self.focus()
        self.post_message(self.Wanted())

    def compose(self) -> ComposeResult:
        yield Static(
            "Select a step on the timeline (ctrl+l, arrows) or run the scenario.", id="inspector-body"
        )
        with ScrollableContainer(id="inspector-screens-scroll"):
            yield Static(id="inspector-screens")

    def _changed_style(self) -> RichStyle:
        from workbench.app.themes import DEFAULT_VARIABLES

        colour = self.app.current_theme.variables.get("diff-changed") or DEFAULT_VARIABLES["diff-changed"]
        return RichStyle(bgcolor=colour, bold=True)

    def on_mount(self) -> None:
        if self._told and self.children:  # told before it was mounted (the run panes mount it after the first
            # frame); no children: the app closed before it was mounted
            self.show(self.details)

    _told = False

    def inspect(
        self,
        index: int,
        marks: Sequence[Mark],
        records: dict[int, StepRecord],
        *,
        failures: list[Failure],
        scenario_text: str,
        size: tuple[int, int],
        run_dir: Path | None,
    ) -> None:
        """Show step ``index`` of the timeline's ``marks``: what it did if it ran (``records``), with the
        conversation of that step read from ``run_dir``; what it will do if not."""
        if not 0 <= index < len(marks):
            self.show(None)
            return
        from workbench.app.core.inspect import conversation, inspect_step

        mark = marks[index]
        talk = conversation(run_dir, list(records.values())) if index in records else {}
        self.show(inspect_step(
            index, total=len(marks), records=records, planned=(mark.actor, mark.action, mark.summary, mark.line),
            failures=failures, scenario_text=scenario_text, size=size, talk=talk,
        ))  # fmt: skip

    def show(self, details: StepDetails | None) -> None:
        self.details = details
        self._told = True
        if not self.children:
            return  # drawn when mounted
        body = self.query_one("#inspector-body", Static)
        screens = self.query_one("#inspector-screens", Static)
        if details is None:
            body.update("No step selected: run the scenario or pick a step on the timeline.")
            screens.update("")
            self.border_title = "Step"
            return
        self.border_title = f"Step {details.index + 1}: {details.action}"
        changed = self._changed_style()
        body.update(render_details(details, changed))
        screens.update(render_screens(details, changed))

    def text(self) -> str:
        """What the pane says, as plain text (for tests)."""
        if self.details is None:
            return ""
        from rich.console import Console

        console = Console(
            width=max(20, self.scrollable_content_region.width or 80), record=True, file=io.StringIO()
        )
        console.print(render_details(self.details, RichStyle()))
        console.print(render_screens(self.details, RichStyle()), crop=False, soft_wrap=True)
        return console.export_text()
