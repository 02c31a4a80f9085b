"""The editor pane: the find bar, the scenario's text and its diagnostics, as one widget.

It owns what happens inside it: finding text or going to a line (``:42``),
jumping to a chosen diagnostic and walking the problems (F4). The screen
brings it forward and tells it what the validator found; it tells the screen
nothing, since nothing it does changes a run.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical

from workbench.app.widgets.editor import DiagnosticsList, FindBar, ScenarioEditor
from workbench.scenario.diagnostics import Diagnostic, Severity


class EditorPane(Vertical):
    DEFAULT_CSS = """
    EditorPane {
        width: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._problem = -1  # the diagnostic F4 went to last

    def compose(self) -> ComposeResult:
        yield FindBar(id="find")
        yield ScenarioEditor(id="editor")
        yield DiagnosticsList(id="diagnostics")

    @property
    def editor(self) -> ScenarioEditor:
        return self.query_one("#editor", ScenarioEditor)

    @property
    def find_bar(self) -> FindBar:
        return self.query_one("#find", FindBar)

    @property
    def diagnostics(self) -> DiagnosticsList:
        return self.query_one("#diagnostics", DiagnosticsList)

    def show_problems(self, diagnostics: list[Diagnostic]) -> None:
        """What the validator found: listed under the text, marked in it, the first error in the border."""
        self.diagnostics.show(diagnostics)
        self.editor.show_problems(diagnostics)
        errors = [d for d in diagnostics if d.severity == Severity.ERROR]
        self.editor.border_subtitle = (
            f"line {errors[0].pos.line}: {errors[0].message.splitlines()[0]}" if errors else ""
        )

    def action_find(self) -> None:
        """Find in the editor, or go to a line (``:42``)."""
        self.find_bar.open()

    def action_next_diagnostic(self) -> None:
        """Jump to the next problem and say what it is."""
        diagnostics = self.diagnostics.diagnostics
        if not diagnostics:
            self.notify("no problems")
            return
        self._problem = (self._problem + 1) % len(diagnostics)
        d = diagnostics[self._problem]
        self.editor.jump_to(d.pos.line, d.pos.col)
        self.notify(f"{d.pos.line}:{d.pos.col}: {d.message}", timeout=4,
                    severity="error" if d.severity == Severity.ERROR else "warning")  # fmt: skip

    @on(FindBar.Find)
    def _find(self, event: FindBar.Find) -> None:
        event.stop()
        needle = event.needle.strip()
        if needle.startswith(":") and needle[1:].isdigit():
            self.editor.jump_to(int(needle[1:]))
            self.find_bar.action_close()
        elif not self.editor.find(event.needle, backwards=event.backwards):
            self.notify(f"not found: {event.needle!r}", severity="warning", timeout=2)

    @on(FindBar.Closed)
    def _find_closed(self, event: FindBar.Closed) -> None:
        event.stop()
        self.editor.focus()

    @on(DiagnosticsList.Jump)
    def _jump(self, event: DiagnosticsList.Jump) -> None:
        event.stop()
        self.editor.jump_to(event.diagnostic.pos.line, event.diagnostic.pos.col)
