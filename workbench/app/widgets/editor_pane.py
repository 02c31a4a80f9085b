"""The editor pane: the find bar, the scenario's text and its diagnostics, as one widget.

It owns what happens to the file: opening it, validating it as it is typed
(debounced, off the UI thread), saving it atomically, finding text or going to a
line (``:42``), jumping to a chosen diagnostic and walking the problems (F4).
It tells the screen what it learnt by messages: ``Validated`` (the scenario and
its schedule), ``Saved`` and ``StepChosen`` (the cursor is on a step's line).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Self

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.timer import Timer
from textual.widgets import TextArea

from workbench.app.widgets.editor import DiagnosticsList, FindBar, ScenarioEditor
from workbench.scenario.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:  # the schema and the loader load with the first validation
    from workbench.app.core.complete import Choice, Completion
    from workbench.app.model import Validation

VALIDATE_DELAY_S = 0.3


class EditorPane(Vertical):
    DEFAULT_CSS = """
    EditorPane {
        width: 1fr;
    }
    """
    VIEW: ClassVar[str] = "editor"  # its number key and tab (workbench.app.actions.VIEWS)

    class Validated(Message):
        """The validator's answer for the text the editor holds now (stale answers are dropped)."""

        def __init__(self, result: Validation) -> None:
            super().__init__()
            self.result = result

    class Saved(Message):
        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    class StepChosen(Message):
        """The user moved the cursor onto step ``index``'s lines; the step is written at ``line``."""

        def __init__(self, index: int, line: int) -> None:
            super().__init__()
            self.index = index
            self.line = line

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._problem = -1  # the diagnostic F4 went to last
        self.path: Path | None = None
        self.validation: Validation | None = None
        self._validate_timer: Timer | None = None
        self._validated_text: tuple[Path, str] | None = None  # what the last validation was asked for
        self._validation_of: tuple[Path, str] | None = None  # what ``validation`` is the answer for

    def compose(self) -> ComposeResult:
        yield FindBar(id="find")
        yield ScenarioEditor(id="editor")
        yield DiagnosticsList(id="diagnostics")

    def focus(self, scroll_visible: bool = True) -> Self:
        """The pane's keyboard is the text's."""
        self.editor.focus(scroll_visible)
        return self

    @property
    def editor(self) -> ScenarioEditor:
        return self.query_one("#editor", ScenarioEditor)

    @property
    def find_bar(self) -> FindBar:
        return self.query_one("#find", FindBar)

    @property
    def diagnostics(self) -> DiagnosticsList:
        return self.query_one("#diagnostics", DiagnosticsList)

    # ------------------------------------------------------------------ the file

    def open(self, path: Path, text: str, *, validate: bool = True) -> None:
        """Show ``path``'s ``text``, forget the last file's validation, and follow the file on disk."""
        self.path = path
        self.validation = None
        self._validated_text = None
        self._validation_of = None
        self.editor.open_text(path, text)
        self.editor.border_title = str(path)
        self.editor.current_step_line = None
        if validate:
            self.validate_now()
        self.editor.follow_on_disk()

    def show_recorded(self, path: Path, text: str) -> None:
        """A recorded run's scenario: shown as it is, not to be edited (nothing validates or watches it)."""
        self.path = path
        self.editor.read_only = True
        self.editor.open_text(path, text)
        self.editor.border_title = f"{path} (read-only)"

    def save(self) -> bool:
        """Write the text atomically; on failure nothing is lost and the user is told why."""
        if self.path is None:
            self.notify("no file to save", severity="warning")
            return False
        from workbench.atomic import write_atomic  # here: json and the journal load with the first save

        text = self.editor.text
        try:
            write_atomic(self.path, text)
        except OSError as exc:
            self.notify(f"save failed, nothing was lost: {exc}", severity="error")
            return False
        self.editor.saved_text = text
        self.editor.border_title = str(self.path)
        self.notify(f"saved {self.path}", timeout=2)
        self.post_message(self.Saved(self.path))
        return True

    def action_save(self) -> None:
        self.save()

    # ------------------------------------------------------------------ completion

    def action_complete(self) -> None:
        """The events, keys or values the scenario format allows at the cursor (ctrl+space): one is written at
        once, several are listed beside the cursor."""
        from workbench.app.core.complete import complete_at

        editor = self.editor
        if editor.read_only:
            self.notify("a recorded run's scenario is read-only", severity="warning")
            return
        editor.focus()
        if self.path is not None and self.path.suffix.lower() not in (".yaml", ".yml"):
            self.notify(f"completion knows the YAML format; {self.path.name} is not YAML", severity="warning")
            return
        row, column = editor.cursor_location
        completion = complete_at(editor.document.lines, row, column)
        if completion is None or not completion.choices:
            self.notify("nothing the scenario format names fits here: type a key at the start of a line, an "
                        "event after `- ` in the timeline, or a value after `key: `", severity="warning", timeout=4)  # fmt: skip
            return
        if len(completion.choices) == 1:
            self._write_choice(completion, completion.choices[0])
            return
        from workbench.app.screens.complete import CompleteScreen

        def chosen(answer: object) -> None:
            if isinstance(answer, str):  # typing went on
                editor.insert(answer)
            elif answer is not None:
                self._write_choice(completion, answer)  # type: ignore[arg-type]

        self.app.push_screen(CompleteScreen(completion.choices, editor.cursor_screen_offset), chosen)

    def _write_choice(self, completion: Completion, choice: Choice) -> None:
        from workbench.app.core.complete import insertion

        row, column = self.editor.cursor_location
        self.editor.replace(insertion(choice, completion), (row, completion.start), (row, column))

    # ------------------------------------------------------------------ validation

    @on(TextArea.Changed, "#editor")
    def _edited(self, event: TextArea.Changed) -> None:
        self.editor.border_title = f"{self.path}{' ●' if self.editor.dirty else ''}"
        if self._validate_timer is not None:
            self._validate_timer.stop()
        self._validate_timer = self.set_timer(VALIDATE_DELAY_S, self._validate_edits)

    def _validate_edits(self) -> None:
        """The debounce's end: validate, unless this very text was validated already (a busy loop can
        run the timer between two edit messages of one burst, whose text was already whole)."""
        if self.path is not None and (self.path, self.editor.text) != self._validated_text:
            self.validate_now()

    def validate_now(self) -> None:
        if self.path is not None:
            self._validated_text = (self.path, self.editor.text)
            self._validate(self.path, self.editor.text)

    def current_validation(self) -> Validation | None:
        """The validation of the text the editor holds now: the last answer if it is for this text, else one
        worked out here and now (a run must not start from text typed since; it is shown as usual)."""
        if self.path is None:
            return None
        if self.validation is not None and self._validation_of == (self.path, self.editor.text):
            return self.validation
        from workbench.app.model import validate_text

        text = self.editor.text
        result = validate_text(self.path, text)
        self._validated_text = (self.path, text)
        self._validated(self.path, text, result)
        return result

    @work(thread=True, exclusive=True, group="validate")
    def _validate(self, path: Path, text: str) -> None:
        from workbench.app.model import validate_text

        result = validate_text(path, text)
        self.app.call_from_thread(self._validated, path, text, result)

    def _validated(self, path: Path, text: str, result: Validation) -> None:
        with contextlib.suppress(
            NoMatches
        ):  # the app is closing: its children go one by one (under load too)
            if not self.is_attached or path != self.path or text != self.editor.text:
                return  # the app is closing, or stale: the buffer changed since
            self.validation = result
            self._validation_of = (path, text)
            self.show_problems(result.diagnostics)
            self.post_message(self.Validated(result))

    def show_problems(self, diagnostics: list[Diagnostic]) -> None:
        """What the validator found: listed under the text, marked in it, the first error in the border."""
        self.diagnostics.show(diagnostics)
        self.diagnostics.point_at(self.editor.cursor_location[0] + 1)
        self.editor.show_problems(diagnostics)
        errors = [d for d in diagnostics if d.severity == Severity.ERROR]
        self.editor.border_subtitle = (
            f"line {errors[0].pos.line}: {errors[0].message.splitlines()[0]}" if errors else ""
        )

    @on(TextArea.SelectionChanged, "#editor")
    def _editor_cursor(self, event: TextArea.SelectionChanged) -> None:
        """The editor cursor's line shows its whole message below, and selects the first step written at or
        after it."""
        if not self.editor.has_focus:
            return
        self.diagnostics.point_at(event.selection.end[0] + 1)
        if self.validation is None or self.validation.schedule is None:
            return
        step = self.validation.schedule.step_at_line(event.selection.end[0] + 1)
        if step is not None:
            self.post_message(self.StepChosen(step.index, step.pos.line))

    # ------------------------------------------------------------------ finding

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
        if not self.editor.find(event.needle, backwards=event.backwards):
            self.notify(f"not found: {event.needle!r}", severity="warning", timeout=2)

    @on(DiagnosticsList.Jump)
    def _jump(self, event: DiagnosticsList.Jump) -> None:
        event.stop()
        self.editor.jump_to(event.diagnostic.pos.line, event.diagnostic.pos.col)
