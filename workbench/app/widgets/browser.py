"""The scenario browser: every scenario file under the app's path (all formats) with its last verdict."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from workbench.app.model import scenario_name

VERDICT_STYLES = {"passed": "green", "failed": "bold red", "error": "bold red", "skipped": "yellow"}
VERDICT_GLYPHS = {"passed": "✓", "failed": "✗", "error": "!", "skipped": "-", "running": "…"}


@dataclass
class Entry:
    path: Path
    name: str
    verdict: str | None = None


class ScenarioBrowser(OptionList):
    """A flat list of scenario files (relative to the root) with a verdict glyph."""

    BORDER_TITLE = "Scenarios"

    class Opened(Message):
        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    def __init__(self, root: Path | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.root = root
        self.entries: list[Entry] = []

    def load(self, files: list[Path], verdicts: dict[str, str], root: Path | None = None) -> None:
        self.root = root
        self.entries = [Entry(p, scenario_name(p), verdicts.get(scenario_name(p))) for p in files]
        self._redraw()

    def set_verdict(self, path: Path, name: str, verdict: str) -> None:
        for entry in self.entries:
            if entry.path.resolve() == path.resolve() or entry.name == name:
                entry.name = name
                entry.verdict = verdict
        self._redraw()

    def verdict_of(self, path: Path) -> str | None:
        for entry in self.entries:
            if entry.path.resolve() == path.resolve():
                return entry.verdict
        return None

    def _label(self, entry: Entry) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        verdict = entry.verdict
        text.append(
            f"{VERDICT_GLYPHS.get(verdict or '', ' ')} ", style=VERDICT_STYLES.get(verdict or "", "dim")
        )
        try:
            shown = str(entry.path.relative_to(self.root)) if self.root else entry.path.name
        except ValueError:
            shown = entry.path.name
        text.append(shown)
        return text

    def _redraw(self) -> None:
        highlighted = self.highlighted
        self.clear_options()
        self.add_options([Option(self._label(e), id=str(i)) for i, e in enumerate(self.entries)])
        if highlighted is not None and highlighted < len(self.entries):
            self.highlighted = highlighted

    def select_path(self, path: Path) -> None:
        for i, entry in enumerate(self.entries):
            if entry.path.resolve() == path.resolve():
                self.highlighted = i

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index
        if 0 <= index < len(self.entries):
            self.post_message(self.Opened(self.entries[index].path))
