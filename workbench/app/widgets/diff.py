"""The screenshot diff pane: golden and actual side by side, changed cells highlighted.

The list shows every screenshot label of the scenario with its status (match,
mismatch, missing golden, no capture). Accepting one, or all, asks for a
confirmation and then writes the golden through ``GoldenStore.accept``: the app
never writes a golden any other way.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self

from rich.style import Style as RichStyle
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, ScrollableContainer, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from workbench.app.actions import MAIN_ACTIONS, bindings
from workbench.app.model import ShotPair, actual_shot, shot_pairs
from workbench.app.screens.confirm import ConfirmScreen
from workbench.app.widgets.option_list import SafeOptionList
from workbench.scenario.diagnostics import count

if TYPE_CHECKING:  # the screen model loads with the first screenshots shown, after the first frame
    from workbench.terminal import GoldenStore, Shot
    from workbench.terminal.screen_diff import Row

STATUS_STYLES = {"match": "green", "mismatch": "bold red", "missing": "yellow", "no capture": "dim"}


def marked_text(rows: tuple[Row, ...], changed: RichStyle) -> Text:
    """Rows of a :class:`~workbench.terminal.screen_diff.ScreenDiff` side as Text, changed cells styled."""
    out = Text(no_wrap=True)
    for y, row in enumerate(rows):
        if y:
            out.append("\n")
        for span in row:
            out.append(span.text, changed if span.changed else None)
    return out


class ScreenshotDiff(Vertical, can_focus=False):
    """The list of screenshots and the golden/actual view of the highlighted one.

    Golden and actual sit side by side when both fit; in a narrower pane
    (:attr:`stacked`) one is shown at a time, its changed cells marked, and ``v``
    toggles golden and actual (``v`` also cycles side by side, golden, actual where
    both fit). A screenshot is always drawn at its full size: the view scrolls
    rather than cutting rows. The keys live on the list, so they act on the
    screenshot the list highlights, and the hint names them only while the list has focus.
    """

    DEFAULT_CSS = """
    ScreenshotDiff {
        height: 1fr;
    }
    ScreenshotDiff #shot-list {
        height: auto;
        max-height: 6;
        border: round $foreground 30%;
        border-title-color: $text;
    }
    ScreenshotDiff #shot-list:focus {
        border: round $primary;
    }
    ScreenshotDiff #shot-message {
        height: auto;
        max-height: 6;
        color: $text;
    }
    ScreenshotDiff #shot-sides {
        height: 1fr;
        layout: horizontal;
    }
    ScreenshotDiff.-stacked #shot-sides {
        layout: vertical;
    }
    /* each side scrolls inside its own border, so its title (golden or actual, and its file) stays put */
    ScreenshotDiff #golden-view, ScreenshotDiff #actual-view {
        width: auto;
        height: auto;
        max-height: 100%;
        border: round $foreground 30%;
        border-title-color: $text;
        overflow: auto auto;
        scrollbar-size: 1 1;
    }
    ScreenshotDiff #golden-view:focus, ScreenshotDiff #actual-view:focus {
        border: round $primary;
    }
    ScreenshotDiff #golden-text, ScreenshotDiff #actual-text {
        width: auto;
        height: auto;
    }
    ScreenshotDiff #shot-sides > .-one {
        max-width: 100%;
    }
    ScreenshotDiff #shot-sides > .-two {
        max-width: 50%;
    }
    """
    BORDER_TITLE = "Screenshots"
    VIEW: ClassVar[str] = "shots"  # its number key and tab (workbench.app.actions.VIEWS)
    ALLOW_MAXIMIZE = True
    BINDINGS: ClassVar[
        list[BindingType]
    ] = [  # its own actions, from the one table; compare needs the terminal
        *bindings(MAIN_ACTIONS, "ScreenshotDiff"),
        Binding("c", "screen.compare_now", "Compare", id="compare-now"),
    ]
    SIDES = ("both", "actual", "golden")

    stacked: reactive[bool] = reactive(True)  # no room for two screens across (see _fit)
    sides: reactive[str] = reactive("both")  # what the view shows: both, actual or golden

    def watch_stacked(self, stacked: bool) -> None:
        self.set_class(stacked, "-stacked")
        self.sides = "actual" if stacked and self.sides == "both" else "both" if not stacked else self.sides
        self._apply_sides()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """Side by side only where two screens and their borders fit across the pane (a maximized pane at 200
        columns, a wide window one pane at a time); else one at a time."""
        self.stacked = self.size.width < 2 * (self.size_cells[0] + 2)

    def watch_sides(self) -> None:
        self._apply_sides()

    def _apply_sides(self) -> None:
        if not self.children:  # not composed yet: on_mount applies them
            return
        for view, shown in (("golden", ("both", "golden")), ("actual", ("both", "actual"))):
            widget = self.views[view]
            widget.display = self.sides in shown
            widget.set_class(self.sides == "both", "-two")
            widget.set_class(self.sides != "both", "-one")
        self._hint()

    def action_toggle_sides(self) -> None:
        """Golden and actual, one at a time when narrow; side by side, actual, golden when both fit."""
        order = ("actual", "golden") if self.stacked else self.SIDES
        self.sides = order[(order.index(self.sides) + 1) % len(order)] if self.sides in order else order[0]

    def on_mount(self) -> None:
        if (
            not self.children
        ):  # the app closed before it was mounted (the run panes mount it after the first frame)
            return
        self.query_one("#shot-list").border_title = "Screenshots"
        self._apply_sides()
        if (
            self._told is not None
        ):  # told before it was mounted (the run panes mount it after the first frame)
            self.show_pairs(self.pairs, *self.size_cells, select=self._told)

    _told: str | None = None  # what show_pairs selected before the mount ("" for nothing)

    def focus(self, scroll_visible: bool = True) -> Self:
        """The pane's keyboard is its list's: a, A, v and c work at once."""
        self.query_one("#shot-list", OptionList).focus(scroll_visible)
        return self

    def on_descendant_focus(self) -> None:
        self._hint()

    def on_descendant_blur(self) -> None:
        self._hint()

    class Selected(Message):
        def __init__(self, pair: ShotPair) -> None:
            super().__init__()
            self.pair = pair

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pairs: list[ShotPair] = []
        self.size_cells = (80, 24)
        self.store: GoldenStore | None = None  # None: read-only (a recorded run), nothing to accept into
        # made here, not found by a query: a container's children are mounted a moment after the pane's
        self.views = {side: ScrollableContainer(id=f"{side}-view") for side in ("golden", "actual")}
        self.texts = {side: Static(id=f"{side}-text") for side in ("golden", "actual")}

    def load(self, store: GoldenStore, width: int, height: int) -> None:
        """Show the goldens and latest captures of ``store`` (again, after a run or an accept)."""
        self.store = store
        self.show_pairs(shot_pairs(store), width, height)

    # ------------------------------------------------------------------ accepting

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Accepting writes goldens: not for a recorded run (``workbench show``), which has no store."""
        return not (action in ("accept", "accept_all") and self.store is None)

    def action_accept(self) -> None:
        """Write the highlighted actual capture as its golden, after a confirmation."""
        pair = self.current
        if pair is None or pair.actual is None or self.store is None:
            self.notify("no captured screenshot to accept", severity="warning")
            return
        if pair.status == "match":
            self.notify(f"`{pair.label}` already matches its golden")
            return
        self._confirm_accept(f"Write the actual capture of `{pair.label}` as its golden?\n{pair.golden_path}",
                             "Accept", [pair])  # fmt: skip

    def action_accept_all(self) -> None:
        """Accept every mismatched or missing screenshot, after one confirmation."""
        todo = [p for p in self.pairs if p.actual is not None and p.status in ("mismatch", "missing")]
        if not todo or self.store is None:
            self.notify("nothing to accept")
            return
        self._confirm_accept(f"Accept {len(todo)} screenshots as goldens?", "Accept all", todo)

    def _confirm_accept(self, question: str, label: str, pairs: list[ShotPair]) -> None:
        def answered(choice: str | None) -> None:
            if choice == "accept":
                self._accept(pairs)

        self.app.push_screen(ConfirmScreen(question, [("accept", label), ("cancel", "Cancel")]), answered)

    def _accept(self, pairs: list[ShotPair]) -> None:
        """The only place the app writes goldens: through ``GoldenStore.accept``."""
        assert self.store is not None
        width, height = self.size_cells
        for pair in pairs:
            try:
                written = self.store.accept(pair.label, actual_shot(pair, width, height))
            except OSError as exc:
                self.notify(f"could not write the golden of `{pair.label}`: {exc}", severity="error")
                break
            self.notify(f"accepted `{pair.label}`: {written}", timeout=4)
        self.load(self.store, width, height)

    def compose(self) -> ComposeResult:
        yield SafeOptionList(id="shot-list")
        yield Static(id="shot-message")
        with Container(id="shot-sides"):
            for side in ("golden", "actual"):  # each scrolls under its title (arrows, once tabbed to)
                with self.views[side]:
                    yield self.texts[side]

    @property
    def current(self) -> ShotPair | None:
        if not self.children:
            return None
        index = self.query_one("#shot-list", OptionList).highlighted
        if index is None or not (0 <= index < len(self.pairs)):
            return None
        return self.pairs[index]

    def show_pairs(self, pairs: list[ShotPair], width: int, height: int, select: str | None = None) -> None:
        current = self.current
        keep = select or (current.label if current else None)
        self.pairs = pairs
        self.size_cells = (width, height)
        self._fit()
        if not self.children:
            self._told = keep or ""  # drawn when mounted
            return
        options = self.query_one("#shot-list", OptionList)
        options.clear_options()
        for pair in pairs:
            label = Text(no_wrap=True)
            label.append(f"{pair.status:<11}", style=STATUS_STYLES.get(pair.status, ""))
            label.append(pair.label)
            options.add_option(Option(label, id=pair.label))
        if not pairs:
            self._show(None)
            return
        index = next((i for i, p in enumerate(pairs) if p.label == keep), None)
        if index is None:
            index = next((i for i, p in enumerate(pairs) if p.status == "mismatch"), 0)
        options.highlighted = index
        self._show(pairs[index])

    def compare_now(self, shot: Shot) -> bool:
        """The highlighted golden against ``shot`` (the screen now, masks applied); writes nothing.

        Shown until another screenshot is highlighted; False (and a warning) without a golden to compare."""
        pair = self.current
        if pair is None or pair.golden is None:
            self.notify("highlight a screenshot that has a golden first", severity="warning")
            return False
        now = ShotPair(
            pair.label, pair.golden_path, Path("(the screen now, not saved)"), pair.golden, shot.text()
        )
        self._show(now, now=True)
        return True

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.pairs):
            self._show(self.pairs[event.option_index])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()

    def _changed_style(self) -> RichStyle:
        from workbench.app.themes import DEFAULT_VARIABLES

        colour = self.app.current_theme.variables.get("diff-changed") or DEFAULT_VARIABLES["diff-changed"]
        return RichStyle(bgcolor=colour, bold=True)

    def _show(self, pair: ShotPair | None, now: bool = False) -> None:
        golden_view, golden_text = self.views["golden"], self.texts["golden"]
        actual_view, actual_text = self.views["actual"], self.texts["actual"]
        message = self.query_one("#shot-message", Static)
        if pair is None:
            golden_text.update("")
            actual_text.update("")
            golden_view.border_title = actual_view.border_title = ""
            self._shown = None  # nothing of another file's screenshots stays (a redraw would bring it back)
            message.update("No screenshots yet: run the scenario to capture them.")
            return
        width, height = self.size_cells
        from workbench.terminal.screen_diff import diff_screens

        diff = diff_screens(pair.golden or "", pair.actual or "", width, height)
        changed = self._changed_style()
        g, a = marked_text(diff.before, changed), marked_text(diff.after, changed)
        self._changed = (diff.changed_cells, len(diff.changed_rows))
        golden_text.update(g if pair.golden is not None else Text("(no golden)", style="dim"))
        actual_text.update(a if pair.actual is not None else Text("(no capture)", style="dim"))
        golden_view.border_title = f"golden: {pair.golden_path}"
        actual_view.border_title = f"actual: {pair.actual_path}"
        self._shown = (pair, now)
        self._hint()
        self.post_message(self.Selected(pair))

    _shown: tuple[ShotPair, bool] | None = None
    _changed = (0, 0)  # cells and rows that differ in the shown pair

    def redraw(self) -> None:
        """Draw the shown pair again (the theme's highlight colour changed)."""
        if self._shown is not None:
            self._show(*self._shown)

    def _hint(self) -> None:
        """The line under the view: the status, and only keys that work here and now."""
        if self._shown is None or not self.is_mounted:
            return
        pair, now = self._shown
        focused = self.query_one("#shot-list", OptionList).has_focus
        if now:
            hint = "  (the screen now; nothing is written: accept works on captures of a run)"
        elif self.store is None:
            hint = "  (a recorded run: open the scenario to accept)" if pair.status != "match" else ""
        elif pair.status in ("mismatch", "missing"):
            hint = (
                "  a: accept as golden · A: accept all" if focused else "  (tab to the list, then a accepts)"
            )
        else:
            hint = ""
        cells, rows = self._changed
        changed = (f"{count(cells, 'cell')} in {count(rows, 'row')} differ (marked)"
                   if cells and pair.golden is not None and pair.actual is not None else "")  # fmt: skip
        sides = {"both": "golden | actual", "actual": "the actual", "golden": "the golden"}[self.sides]
        self.query_one("#shot-message", Static).update(
            Text(f"{pair.label}: {pair.status}{hint}\n" + " · ".join(
                part for part in (changed, f"showing {sides} · v: " + ("golden/actual" if self.stacked
                                  else "both/actual/golden")) if part
            ))
        )  # fmt: skip
