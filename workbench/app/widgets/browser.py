"""The scenario browser: every scenario file under the app's folder, as a tree, with its last verdict.

The list follows the folder (watchfiles): a file written while the app runs
appears, a deleted one goes. Typing while the list has focus filters it (the
filter shows in the border; Backspace edits it, Esc clears it). Names never
wrap: a long one ends in an ellipsis.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.app.model import scenario_name
from workbench.app.widgets.option_list import SafeOptionList
from workbench.names import DEFAULT_SCENARIOS_DIR, SCENARIO_SUFFIXES

VERDICT_STYLES = {"passed": "success", "failed": "error", "error": "error", "skipped": "warning",
                  "cancelled": "warning"}  # fmt: skip
VERDICT_GLYPHS = {
    "passed": "✓",
    "failed": "✗",
    "error": "!",
    "skipped": "-",
    "running": "…",
    "cancelled": "■",
}
SUFFIXES = SCENARIO_SUFFIXES


def simplest(paths: list[Path]) -> Path | None:
    """The example to open first: the shortest top-level file that shows both kinds of check (a screenshot
    and an assert), else the shortest top-level file. A folder's reference files are long; start small."""
    if not paths:
        return None
    top = min(len(p.parts) for p in paths)

    def rank(path: Path) -> tuple[bool, int, str]:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return True, 1 << 62, path.name
        checks_both = (
            re.search(r"\bscreenshot\b", text) is not None and re.search(r"\bassert\b", text) is not None
        )
        return not checks_both, len(text), path.name

    return min((p for p in paths if len(p.parts) == top), key=rank)


@dataclass
class Entry:
    path: Path
    name: str
    verdict: str | None = None


class ScenarioBrowser(SafeOptionList):
    """Scenario files grouped by folder, with a verdict glyph; see the module docstring."""

    DEFAULT_CSS = """
    ScenarioBrowser {
        text-wrap: nowrap;
        text-overflow: ellipsis;
        width: 28;
        height: 1fr;  /* the whole column, as the editor beside it: a short list is no shorter box */
        max-height: 100%;
        border: round $foreground 30%;
        border-title-color: $text;
        border-subtitle-color: $text;
    }
    ScenarioBrowser:focus {
        border: round $primary;
    }
    """
    BORDER_TITLE = "Scenarios"
    VIEW: ClassVar[str] = "browser"  # its number key and tab (workbench.app.actions.VIEWS)

    class Opened(Message):
        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    def __init__(self, root: Path | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.root = root
        self.entries: list[Entry] = []
        self.filter = ""
        self._rows: list[int | None] = []  # option index -> entry index (None: a folder row)

    # ------------------------------------------------------------------ data

    def load(self, files: list[Path], verdicts: dict[str, str], root: Path | None = None) -> None:
        self.root = root
        old = {e.path.resolve(): e.verdict for e in self.entries}
        self.entries = []
        for p in sorted(files, key=self._sort_key):
            name = scenario_name(p)
            self.entries.append(Entry(p, name, old.get(p.resolve()) or verdicts.get(name)))
        self._redraw()

    def list_folder(self, folder: Path, verdicts: dict[str, str]) -> None:
        """List the scenarios under ``folder`` with their last ``verdicts``, and follow the folder."""
        from workbench.scenario.loader import discover

        self.load(list(discover([folder])) if folder.is_dir() else [], verdicts, folder)
        if folder.is_dir():
            self.follow_folder(folder)

    def simplest(self) -> Path | None:
        """The listed file to open first (see :func:`simplest`)."""
        return simplest([e.path for e in self.entries])

    def action_new_scenario(self) -> None:
        """A new scenario file in this folder from a template; it is listed and opened once written."""
        from workbench.app.screens.new import NewScenarioScreen

        def made(path: Path | None) -> None:
            if path is not None:
                self.add_file(path)
                # made on this widget's own turn: a message made in the dialog's callback has an ancestor as
                # its sender, and Textual stops a message's bubbling at its sender
                self.call_later(self._announce, path)

        self.app.push_screen(NewScenarioScreen(self.root or DEFAULT_SCENARIOS_DIR), made)

    def offer_folder(self, folder: Path) -> None:
        """No scenario folder yet: offer to make it, with a first scenario from a template (the first minute)."""
        from workbench.app.screens.confirm import ConfirmScreen

        def answered(choice: str | None) -> None:
            if choice != "create":
                self.notify(f"no {folder}/ folder: ctrl+n makes a scenario when you are ready", timeout=6)
                return
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                self.notify(f"cannot make {folder}: {exc}", severity="error")
                return
            self.list_folder(folder, {})
            self.action_new_scenario()

        self.app.push_screen(
            ConfirmScreen(f"There is no {folder}/ folder here. Make it, with a first scenario from a template?",
                          [("create", f"Make {folder}/ and a scenario"), ("cancel", "Not now")]),
            answered,
        )  # fmt: skip

    def _announce(self, path: Path) -> None:
        self.post_message(self.Opened(path))

    def _sort_key(self, path: Path) -> tuple[bool, tuple[str, ...]]:
        """Files of the folder itself first, then each subfolder's (a tree keeps them together)."""
        parts = self._relative(path).parts
        return len(parts) > 1, parts

    def _relative(self, path: Path) -> Path:
        if self.root is not None:
            try:
                return path.relative_to(self.root)
            except ValueError:
                pass
        return Path(path.name)

    def add_file(self, path: Path) -> None:
        """A file the app made or saved: listed at once (the watcher would list it a moment later)."""
        if path.suffix in SUFFIXES and all(e.path.resolve() != path.resolve() for e in self.entries):
            self.load([*(e.path for e in self.entries), path], {}, self.root)
            self.select_path(path)

    def set_verdict(self, path: Path, name: str, verdict: str) -> None:
        for entry in self.entries:
            if entry.path.resolve() == path.resolve():
                entry.name = name
                entry.verdict = verdict
        self._redraw()

    def verdict_of(self, path: Path) -> str | None:
        for entry in self.entries:
            if entry.path.resolve() == path.resolve():
                return entry.verdict
        return None

    # ------------------------------------------------------------------ following the folder

    def follow_folder(self, folder: Path) -> None:
        self.call_after_refresh(
            self._watch_folder, folder
        )  # after the frame: watchfiles takes ~30 ms to load

    @work(exclusive=True, group="watch-folder", exit_on_error=False)
    async def _watch_folder(self, folder: Path) -> None:
        from watchfiles import awatch  # imported here: not needed for the first frame

        from workbench.scenario.loader import discover

        async for _changes in awatch(folder, watch_filter=lambda _c, p: p.endswith(SUFFIXES),
                                     debounce=300, step=50):  # fmt: skip
            files = list(discover([folder])) if folder.is_dir() else []
            self.load(files, {}, self.root)

    # ------------------------------------------------------------------ filter

    def on_key(self, event: events.Key) -> None:
        character = event.character
        starts_nothing = (
            not self.filter and character is not None and (character == "?" or character.isdigit())
        )
        if starts_nothing:
            return  # ? is help and 1-6 switch panes, unless a filter is being typed (names have digits)
        if character and len(character) == 1 and character.isprintable() and not character.isspace():
            self.filter += character
        elif event.key == "backspace" and self.filter:
            self.filter = self.filter[:-1]
        elif event.key == "escape" and self.filter:
            self.filter = ""
        else:
            return
        event.stop()
        event.prevent_default()
        self._redraw()
        self.highlighted = next((i for i, row in enumerate(self._rows) if row is not None), None)

    def _matches(self, entry: Entry) -> bool:
        needle = self.filter.lower()
        return not needle or needle in str(self._relative(entry.path)).lower() or needle in entry.name.lower()

    # ------------------------------------------------------------------ drawing

    def refresh_labels(self) -> None:
        self._redraw()

    def _verdict_style(self, verdict: str | None) -> str:
        """The verdict's colour from the theme (success, error, warning), so every theme keeps its contrast."""
        role = VERDICT_STYLES.get(verdict or "")
        if role is None or not self.is_attached:
            return ""
        theme = self.app.current_theme
        colour = {"success": theme.success, "error": theme.error, "warning": theme.warning}.get(role)
        return f"bold {colour}" if colour else ""

    def _label(self, entry: Entry, depth: int) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("  " * depth)
        verdict = entry.verdict
        text.append(f"{VERDICT_GLYPHS.get(verdict or '', ' ')} ", style=self._verdict_style(verdict))
        text.append(entry.path.name)
        return text

    def _redraw(self) -> None:
        highlighted = self.highlighted
        current = (
            self._rows[highlighted] if highlighted is not None and highlighted < len(self._rows) else None
        )
        options: list[Option] = []
        rows: list[int | None] = []
        shown_folders: set[Path] = set()
        for i, entry in enumerate(self.entries):
            if not self._matches(entry):
                continue
            parent = self._relative(entry.path).parent
            folders = [*reversed([*parent.parents][:-1]), parent] if parent != Path() else []
            for depth, folder in enumerate(folders):
                if folder not in shown_folders:
                    shown_folders.add(folder)
                    label = Text(no_wrap=True, overflow="ellipsis")
                    label.append("  " * depth + f"▾ {folder.name}/", style="bold")
                    options.append(Option(label, disabled=True))
                    rows.append(None)
            depth = len(parent.parts)
            options.append(Option(self._label(entry, depth), id=f"entry-{i}"))
            rows.append(i)
        self._rows = rows
        self.clear_options()
        self.add_options(options)
        self.border_subtitle = f"filter: {self.filter}" if self.filter else ""
        if current is not None and current in rows:
            self.highlighted = rows.index(current)

    def select_path(self, path: Path) -> None:
        for option_index, entry_index in enumerate(self._rows):
            if entry_index is not None and self.entries[entry_index].path.resolve() == path.resolve():
                self.highlighted = option_index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index
        if 0 <= index < len(self._rows) and self._rows[index] is not None:
            entry_index = self._rows[index]
            assert entry_index is not None
            path = self.entries[entry_index].path
            if self.filter:  # it found the file: the whole list is back, on that file
                self.filter = ""
                self._redraw()
                self.select_path(path)
            self.post_message(self.Opened(path))
