"""The scenario editor (TextArea with highlighting when tree-sitter has the language) and its diagnostics.

The editor owns its file: it follows it on disk (watchfiles), taking a change
when there are no unsaved edits and asking which to keep when there are.
The language comes from the suffix (YAML, JSON, TOML); without a grammar the
editor falls back to plain text rather than failing. Diagnostics are shown at
their line, as editors with "error lens" do: the line number turns red (errors)
or yellow (warnings) and the first line of the message follows the text. They
are also listed under the editor; choosing one moves the cursor to its line and
column.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import Reactive, reactive
from textual.strip import Strip
from textual.widgets import Input, OptionList, TextArea
from textual.widgets.option_list import Option
from textual.widgets.text_area import Selection

from workbench.app.screens.confirm import ConfirmScreen
from workbench.app.widgets.option_list import SafeOptionList
from workbench.app.widgets.parsed_document import ChunkReadDocument
from workbench.scenario.diagnostics import Diagnostic, Severity, count

# JSON is highlighted with the YAML grammar (JSON is YAML 1.2 flow syntax): with tree-sitter 0.26 the
# `json` (and `javascript`) grammars that textual[syntax] installs crash the interpreter (a segfault in
# the highlight query), which no fallback could catch.
LANGUAGES = {".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "yaml"}


def yaml_indent(before_cursor: str) -> int:
    """The indentation of a new line after ``before_cursor``: kept, one level more after ``key:`` (two
    inside a ``- key:`` item, where the value's list goes under the key)."""
    stripped = before_cursor.rstrip()
    indent = len(before_cursor) - len(before_cursor.lstrip())
    if stripped.endswith(":") or stripped.endswith(("[", "{")):
        return indent + 2 + (2 if stripped.lstrip().startswith("- ") else 0)
    return indent if stripped else len(before_cursor)


def _index(text: str, location: tuple[int, int]) -> int:
    """The offset in ``text`` of a (row, column) location."""
    row, column = location
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:row]) + column


def _location(text: str, index: int) -> tuple[int, int]:
    """The (row, column) of an offset in ``text``."""
    before = text[:index]
    row = before.count("\n")
    return row, index - (before.rfind("\n") + 1)


def language_for(path: Path | None) -> str | None:
    """The TextArea language of a file if a grammar for it is installed, else None (plain text)."""
    if path is None:
        return None
    language = LANGUAGES.get(path.suffix.lower())
    if language is None:
        return None
    try:
        available = TextArea().available_languages
    except Exception:
        return None
    return language if language in available else None


class ScenarioEditor(TextArea):
    """The scenario text. ``saved_text`` is what is on disk; ``dirty`` compares against it.

    Enter keeps the line's indentation (one level more after a ``key:`` or a ``- `` item);
    the step the timeline is at is drawn as a highlighted line.
    """

    DEFAULT_CSS = """
    ScenarioEditor {
        height: 1fr;
        border: round $foreground 30%;
        border-title-color: $text;
        border-subtitle-color: $text;
        scrollbar-size: 1 1;
    }
    ScenarioEditor:focus {
        border: round $primary;
    }
    """
    BORDER_TITLE = "Editor"

    ERROR_STYLE = Style(color="red", bold=True)
    WARNING_STYLE = Style(color="yellow", bold=True)

    def __init__(self, **kwargs: Any) -> None:
        self._rendered_rows: dict[int, tuple[object, ...]] = {}  # row -> _row_signature when rendered
        super().__init__("", soft_wrap=False, tab_behavior="indent", show_line_numbers=True, **kwargs)
        self.path: Path | None = None
        self.saved_text = ""
        self.problems: dict[int, tuple[str, bool]] = {}  # 0-based row -> (first message line, is an error)
        self._step_row: int | None = None

    # Textual repaints the whole view whenever the selection changes, which is at every keystroke;
    # the rows it can change are repainted instead (see _watch_selection and _forget_changed_rows).
    selection: Reactive[Selection] = reactive(Selection(), init=False, always_update=True, repaint=False)

    def _watch_selection(self, previous_selection: Selection, selection: Selection) -> None:
        bracket_before = self._matching_bracket_location
        super()._watch_selection(previous_selection, selection)
        rows = [*previous_selection, *selection]
        rows += [location for location in (bracket_before, self._matching_bracket_location) if location]
        first, last = min(row for row, _ in rows), max(row for row, _ in rows)
        self.refresh_lines(first, last - first + 1)

    def _set_document(self, text: str, language: str | None) -> None:
        super()._set_document(text, language)
        ChunkReadDocument.adopt(self.document)

    @property
    def current_step_line(self) -> int | None:
        """The 0-based row of the step the timeline is at (highlighted), or None."""
        return self._step_row

    @current_step_line.setter
    def current_step_line(self, row: int | None) -> None:
        if row != self._step_row:
            old, self._step_row = self._step_row, row
            for changed in (old, row):  # only the two rows change, not the whole view
                if changed is not None:
                    self.refresh_line(changed)  # a document row: ScrollView takes the scroll off

    def show_step_line(self, line: int, *, move_cursor: bool) -> None:
        """Highlight 1-based ``line`` as the step the timeline is at (0: none) and bring it into view: with the
        cursor when the user chose the step, else (a live run going on) by scrolling only, the cursor staying
        where the user left it."""
        self.current_step_line = line - 1 if line > 0 else None
        if line <= 0:
            return
        row = min(line - 1, self.document.line_count - 1)
        top, height = int(self.scroll_offset.y), self.scrollable_content_region.height
        visible = top <= row < top + height
        if move_cursor:
            self.move_cursor((row, 0), center=not visible)  # no scroll (a full repaint) if shown
        elif not visible:
            self.scroll_to(y=max(0, row - height // 3), animate=False)

    # ------------------------------------------------------------------ typing

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+home", "document_start", "Start of file", show=False, id="editor-document-start"),
        Binding("ctrl+end", "document_end", "End of file", show=False, id="editor-document-end"),
        Binding("ctrl+shift+home", "document_start(True)", "Select to start", show=False,
                id="editor-select-document-start"),
        Binding("ctrl+shift+end", "document_end(True)", "Select to end", show=False, id="editor-select-document-end"),
    ]  # fmt: skip

    def action_document_start(self, select: bool = False) -> None:
        self.move_cursor((0, 0), select=select)

    def action_document_end(self, select: bool = False) -> None:
        last = self.document.line_count - 1
        self.move_cursor((last, len(self.document.get_line(last))), select=select)

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "escape":  # TextArea would move the focus away, and the next keys with it
            event.stop()
            event.prevent_default()
            if not self.selection.is_empty:
                self.selection = Selection.cursor(self.cursor_location)
            return
        if event.key == "enter" and not self.read_only and self.selection.is_empty:
            event.stop()
            event.prevent_default()
            row, column = self.cursor_location
            line = self.document.get_line(row)
            self.insert("\n" + " " * yaml_indent(line[:column]))
            return
        await super()._on_key(event)

    def step_indent(self, row: int) -> int:
        """The indentation of the step list around ``row``: that of the first item under the nearest
        ``timeline:`` at or above it (a step's own entries, ``- [0, "keys"]``, are indented deeper), else of
        the nearest ``- `` item at or above it."""
        lines = self.document.lines
        row = min(row, len(lines) - 1)
        for r in range(row, -1, -1):
            if lines[r].strip() in ("timeline:", "- timeline:"):
                for line in lines[r + 1 : row + 1]:
                    if line.lstrip().startswith("- "):
                        return len(line) - len(line.lstrip())
                break
        for r in range(row, -1, -1):
            if lines[r].lstrip().startswith("- "):
                return len(lines[r]) - len(lines[r].lstrip())
        return 2

    def step_start(self, row: int) -> int:
        """The row of the step whose block holds ``row`` (its ``- `` line at the step list's indentation)."""
        indent = self.step_indent(row)
        for r in range(min(row, self.document.line_count - 1), -1, -1):
            line = self.document.get_line(r)
            if line.lstrip().startswith("- ") and len(line) - len(line.lstrip()) == indent:
                return r
        return row

    def move_to_block_end(self, row: int) -> None:
        """Put the cursor at the end of the YAML block that starts at ``row`` (a step and its children)."""
        lines = self.document.lines
        if not 0 <= row < len(lines):
            return
        indent = len(lines[row]) - len(lines[row].lstrip())
        end = row
        for r in range(row + 1, len(lines)):
            line = lines[r]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            if line.strip():
                end = r
        self.move_cursor((end, len(lines[end])))

    def insert_steps(self, yaml: str) -> None:
        """Insert whole lines after the cursor's line (recorded steps), as one undoable edit."""
        row = self.cursor_location[0]
        end = (row, len(self.document.get_line(row)))
        self.insert("\n" + yaml.rstrip("\n"), end)
        self.call_after_refresh(self._show_cursor_from_the_left)

    def _show_cursor_from_the_left(self) -> None:
        """Steps inserted while the editor was hidden (a narrow window shows the terminal while recording) were
        scrolled to with no width: start again from the left edge, then bring the steps into view."""
        self.scroll_to(x=0, animate=False, immediate=True)
        self.scroll_cursor_visible(center=True)  # the steps end at the cursor: centred, they show above it

    def find(self, needle: str, *, backwards: bool = False) -> bool:
        """Select the next (or previous) match of ``needle`` from the cursor, wrapping; False if none."""
        if not needle:
            return False
        text = self.text
        start = _index(text, self.selection.start if backwards else self.selection.end)
        if backwards:
            index = text.rfind(needle, 0, max(0, start))
            if index < 0:
                index = text.rfind(needle)
        else:
            index = text.find(needle, start)
            if index < 0:
                index = text.find(needle)
        if index < 0:
            return False
        begin, finish = _location(text, index), _location(text, index + len(needle))
        self.selection = Selection(begin, finish)
        self.scroll_cursor_visible(center=True)
        return True

    def show_problems(self, diagnostics: list[Diagnostic]) -> None:
        """Mark the lines of ``diagnostics`` (an error outranks a warning on the same line)."""
        problems: dict[int, tuple[str, bool]] = {}
        for d in diagnostics:
            row = d.pos.line - 1
            error = d.severity == Severity.ERROR
            if row >= 0 and (row not in problems or (error and not problems[row][1])):
                problems[row] = ((d.message.splitlines() or [""])[0], error)
        if problems != self.problems:
            self.problems = problems
            self.refresh()

    # ------------------------------------------------------------------ highlighting near the view

    HIGHLIGHT_MARGIN = 100  # lines highlighted above and below the view, so scrolling rarely rebuilds

    def _build_highlight_map(self) -> None:
        """Textual's highlighting, for the lines around the view only.

        Textual rebuilds the highlights of the whole document at every edit: on a 1,000-line
        scenario that is about a third of a keystroke. Scrolling out of the highlighted window
        rebuilds it there (see ``_watch_scroll_y``).
        """
        self._highlights.clear()
        if self._highlight_query:
            self._highlight_window()
        self._forget_changed_rows()  # plain text too: an edit or another document changes rows

    def _highlight_window(self) -> None:
        top = max(0, int(self.scroll_offset.y) - self.HIGHLIGHT_MARGIN)
        bottom = int(self.scroll_offset.y) + self.size.height + self.HIGHLIGHT_MARGIN
        self._highlighted_rows = (top, bottom)
        highlights = self._highlights
        query = self._highlight_query
        assert query is not None
        captures = self.document.query_syntax_tree(query, (top, 0), (bottom, 0))
        rank = {query.capture_name(i): i for i in range(query.capture_count)}
        # In the query's order, as tree-sitter ranks patterns (a later, more specific one wins, such
        # as a key's ``yaml.field`` over ``string``), not in the order names first occur in the window,
        # which changes as the view moves and would redraw unchanged rows; a name's nodes in text order.
        for name, nodes in sorted(captures.items(), key=lambda item: rank.get(item[0], len(rank))):
            for node in sorted(nodes, key=lambda node: (node.start_byte, node.end_byte)):
                (start_row, start_column), (end_row, end_column) = node.start_point, node.end_point
                if start_row == end_row:
                    highlights[start_row].append((start_column, end_column, name))
                    continue
                highlights[start_row].append((start_column, None, name))
                for row in range(start_row + 1, end_row):
                    highlights[row].append((0, None, name))
                highlights[end_row].append((0, end_column, name))

    # ------------------------------------------------------------------ re-rendering only what changed

    def _row_signature(self, row: int) -> tuple[object, ...]:
        """What a rendered row depends on besides Textual's cache key: its text, highlights, gutter."""
        document = self.document
        text = document.get_line(row) if row < document.line_count else None
        return text, tuple(self._highlights.get(row, ())), self.gutter_width

    def _forget_changed_rows(self) -> None:
        """Drop the cached strips of rows whose text or highlights changed, and keep the others.

        Textual clears every cached row at each edit, so a keystroke re-renders the whole view (on
        a 1,000-line scenario, most of the keystroke's time). Its cache key names the row, not the
        row's text, so each row's :meth:`_row_signature` is kept from when it was rendered.
        """
        stale = {row for row, seen in self._rendered_rows.items() if seen != self._row_signature(row)}
        if not stale:
            return
        for key in [key for key in self._line_cache.keys() if key[2] in stale]:  # noqa: SIM118 (no __iter__)
            self._line_cache.discard(key)
        for row in stale:
            del self._rendered_rows[row]
            self.refresh_line(row)

    def _watch__cursor_visible(self) -> None:
        """Drop the cursor row's cached strips when the cursor shows or hides (focus came or went).

        Textual's cache key tells the cursor row's strips apart by visibility only while the cursor
        blinks: with blinking off (the app's snapshots) a row cached before the editor got focus was
        shown again without its cursor, until something else changed the row."""
        _, cursor_y = self._cursor_offset
        for key in [key for key in self._line_cache.keys() if key[2] == cursor_y]:  # noqa: SIM118 (no __iter__)
            self._line_cache.discard(key)
        super()._watch__cursor_visible()

    _highlighted_rows = (0, 0)

    def _watch_scroll_y(self) -> None:
        super()._watch_scroll_y()
        self._highlight_view()

    def on_resize(self) -> None:
        self._highlight_view()
        if (
            self.has_focus
        ):  # the pane got shorter (the diagnostics list grew under it): keep the typed line seen
            self.call_after_refresh(self.scroll_cursor_visible)

    def _highlight_view(self) -> None:
        """Rebuild the highlights if the view has left the highlighted window."""
        top, bottom = self._highlighted_rows
        view_top = int(self.scroll_offset.y)
        if self._highlight_query and (view_top < top or view_top + self.size.height > bottom):
            self._build_highlight_map()
            self.refresh()

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        scroll_x, scroll_y = self.scroll_offset
        if len(self._rendered_rows) > 4096:  # Textual's cache holds 1,024 strips; these follow it
            self._line_cache.clear()
            self._rendered_rows.clear()
        self._rendered_rows[scroll_y + y] = self._row_signature(scroll_y + y)
        if self._step_row is not None and scroll_y + y == self._step_row:
            strip = Strip(Segment.apply_style(list(strip), post_style=self._step_style()), strip.cell_length)
        if not self.problems:
            return strip
        problem = self.problems.get(scroll_y + y)  # no soft wrap: one screen line per document line
        if problem is None or scroll_y + y >= self.document.line_count:
            return strip
        message, error = problem
        style = self.ERROR_STYLE if error else self.WARNING_STYLE
        gutter = self.gutter_width
        width = strip.cell_length
        room_shown = self.scrollable_content_region.width  # the strip can be wider than what is shown
        marked = Strip(Segment.apply_style(list(strip.crop(0, gutter)), post_style=style), gutter)
        text_end = (
            gutter + cell_len(self.document.get_line(scroll_y + y).expandtabs(self.indent_width)) - scroll_x
        )
        start = max(gutter, text_end + 3)
        room = min(width, room_shown) - start
        if room < 8:
            return Strip.join([marked, strip.crop(gutter, width)])
        note_text = f"◀ {message}"
        if (
            cell_len(note_text) > room
        ):  # a preview: the whole message is in the diagnostics, at the cursor's line
            note_text = note_text[: room - 1] + "…"
        note = Segment(note_text, style + Style(bold=False, italic=True, dim=True))
        tail = strip.crop(start + cell_len(note.text), width)
        return Strip.join([marked, strip.crop(gutter, start), Strip([note]), tail])

    def _step_style(self) -> Style:
        colour = self.app.current_theme.variables.get("step-line") if self.is_attached else None
        return Style(bgcolor=colour or "#2A3A4F")

    def open_text(self, path: Path | None, text: str) -> None:
        self.path = path
        self.saved_text = text
        # One document for the new text and language: setting ``language`` first would parse the old text
        # and compile the highlight query once more (~10 ms at start, before the first frame).
        self.set_reactive(ScenarioEditor.language, language_for(path))
        try:
            self.load_text(text)
        except Exception:  # an unexpected grammar problem: plain text, never a crash
            self.set_reactive(ScenarioEditor.language, None)
            self.load_text(text)
        self.move_cursor((0, 0))

    def take_disk_text(self, text: str) -> None:
        """Replace the buffer with what is on disk now, as one undoable edit; the cursor stays put."""
        self.saved_text = text
        if text == self.text:
            return
        row, column = self.cursor_location
        self.replace(text, (0, 0), self.document.end, maintain_selection_offset=False)
        row = min(row, self.document.line_count - 1)
        self.move_cursor((row, min(column, len(self.document.get_line(row)))))

    # ------------------------------------------------------------------ the file on disk

    def follow_on_disk(self) -> None:
        """Watch the open file until another one opens: take changes, or ask when there are unsaved edits."""
        if self.path is not None:
            # After the first frame: watchfiles takes ~30 ms to load.
            self.call_after_refresh(self._watch, self.path)

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def _watch(self, path: Path) -> None:
        from watchfiles import awatch  # imported here: not needed for the first frame

        target = path.resolve()
        folder = target.parent
        while not folder.is_dir():  # a new file in a folder that does not exist yet
            folder = folder.parent
        async for _changes in awatch(folder, watch_filter=lambda _c, p: Path(p) == target, recursive=False,
                                     debounce=400, step=30):  # fmt: skip
            self.disk_changed(path)

    def disk_changed(self, path: Path) -> None:
        """``path`` changed on disk: take it if there are no unsaved edits, else ask which to keep."""
        if path != self.path:
            return
        try:
            disk: str | None = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            disk = None
        except (OSError, UnicodeDecodeError):
            return
        if disk == self.saved_text:
            return  # our own save, or a write of the same text
        if disk is None:
            self.saved_text = ""
            self.border_title = f"{path} ● (deleted on disk: ctrl+s writes it again)"
            self.notify(f"{path} was deleted on disk; your text is still here", severity="warning", timeout=6)
            return
        if not self.dirty:
            self.take_disk_text(disk)
            self.notify(f"reloaded {path}: it changed on disk", timeout=3)
            return
        self._newest_on_disk = disk
        if self._asking:
            return  # the open prompt will use the newest disk text

        def answered(choice: str | None) -> None:
            self._asking = False
            newest = self._newest_on_disk
            if path != self.path or newest is None:
                return
            if choice == "reload":
                self.take_disk_text(newest)  # one undoable edit: ctrl+z brings the edits back
                self.notify("loaded the disk version; ctrl+z brings your edits back", timeout=5)
            else:
                self.saved_text = newest  # keep the edits; saving overwrites the disk version
                self.border_title = f"{path} ●"

        self._asking = True
        self.app.push_screen(
            ConfirmScreen(
                f"{path} changed on disk while you have unsaved edits.",
                [("keep", "Keep my edits"), ("reload", "Load the disk version")],
            ),
            answered,
        )

    _newest_on_disk: str | None = None
    _asking = False

    @property
    def dirty(self) -> bool:
        return self.text != self.saved_text

    def jump_to(self, line: int, col: int = 1) -> None:
        """Move the cursor to a 1-based line and column and show it."""
        row = max(0, min(line - 1, self.document.line_count - 1))
        column = max(0, min(col - 1, len(self.document.get_line(row))))
        self.move_cursor((row, column), center=True)
        self.focus()


class DiagnosticsList(SafeOptionList):
    """The validator's messages for the buffer; choosing one jumps the editor there.

    It takes the rows its messages need (wrapped, whole, up to a third of the editor pane, then it
    scrolls: the text stays the pane's main part however many warnings a file has) and none when there
    are none: "no problems" is said in its title, not in empty rows. The
    message of the editor cursor's line is highlighted and scrolled to (:meth:`point_at`): the
    editor's inline note is a preview that may end in "…", this is the whole message.
    """

    DEFAULT_CSS = """
    DiagnosticsList {
        height: auto;
        max-height: 33%;
        border: round $foreground 30%;
        border-title-color: $text;
    }
    DiagnosticsList.-empty {
        height: 1;
        border: none;
        border-top: round $foreground 30%;
    }
    DiagnosticsList:focus {
        border: round $primary;
    }
    """
    BORDER_TITLE = "Diagnostics"

    class Jump(Message):
        def __init__(self, diagnostic: Diagnostic) -> None:
            super().__init__()
            self.diagnostic = diagnostic

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.diagnostics: list[Diagnostic] = []

    def show(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.pos.line, d.pos.col))
        self.clear_options()
        self.set_class(not self.diagnostics, "-empty")
        for i, d in enumerate(self.diagnostics):
            text = Text()  # wrapped: a did-you-mean at the end of a long message is never cut off
            error = d.severity == Severity.ERROR
            text.append("✗ " if error else "▲ ", style="bold red" if error else "yellow")
            text.append(f"{d.pos.line}:{d.pos.col} ", style="bold")
            text.append(d.message)
            self.add_option(Option(text, id=str(i)))
        errors = sum(1 for d in self.diagnostics if d.severity == Severity.ERROR)
        if not self.diagnostics:
            self.border_title = "Diagnostics: ✓ no problems"
        else:
            warnings = len(self.diagnostics) - errors
            self.border_title = f"Diagnostics: {count(errors, 'error')}, {count(warnings, 'warning')}"

    def point_at(self, line: int) -> None:
        """Highlight (and scroll to) the first message of 1-based ``line``, if it has one."""
        index = next((i for i, d in enumerate(self.diagnostics) if d.pos.line == line), None)
        if index is not None and index != self.highlighted:
            self.highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None and event.option.id.isdigit():
            self.post_message(self.Jump(self.diagnostics[int(event.option.id)]))


class FindBar(Input):
    """Find in the editor (ctrl+f): Enter finds the next match, ``:N`` goes to line N, Esc closes.

    Going to a line and closing act on the editor beside it while the key is handled, not by a message
    to the pane: the app hands the next key on once this one is done (``keys_in_order``), and a message
    hop later the focus was still here, so a character typed right after ``:31`` Enter went to the bar."""

    DEFAULT_CSS = """
    FindBar {
        display: none;
        height: 3;
        border: round $primary;
    }
    FindBar.-open {
        display: block;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close find", id="find-close"),
        Binding("shift+enter", "previous", "Previous match", show=False, id="find-previous"),
    ]

    class Find(Message):
        def __init__(self, needle: str, backwards: bool) -> None:
            super().__init__()
            self.needle = needle
            self.backwards = backwards

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(placeholder="find text, or :line", **kwargs)

    @property
    def editor(self) -> ScenarioEditor:
        """The editor this bar finds in (its sibling in the editor pane)."""
        assert self.parent is not None
        return self.parent.query_one(ScenarioEditor)

    def open(self) -> None:
        self.add_class("-open")
        self.focus()

    def action_close(self) -> None:
        self.remove_class("-open")
        self.editor.focus()

    def action_previous(self) -> None:
        self.post_message(self.Find(self.value, True))

    async def action_submit(self) -> None:
        needle = self.value.strip()
        if needle.startswith(":") and needle[1:].isdigit():
            self.editor.jump_to(int(needle[1:]))
            self.action_close()
        else:
            self.post_message(self.Find(self.value, False))
