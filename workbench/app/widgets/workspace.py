"""The panes and how they share the window: the scenario list, the editor pane and the run panes.

It owns the layout (:func:`workbench.app.layout.plan` at every resize or
toggle), the numbered tabs a narrow window shows one pane at a time under, and
the actions that move between panes (1-6, ctrl+b, ctrl+t, z, ctrl+e). The screen
composes it in one line and tells it the program's width; it tells the screen
when one pane at a time is shown (``tabs``), since the header and the timeline
shrink then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Tabs
from textual.widgets._tabs import Tab

from workbench.app.actions import VIEW_LABELS, VIEWS
from workbench.app.layout import Plan, plan
from workbench.app.widgets.browser import ScenarioBrowser
from workbench.app.widgets.editor_pane import EditorPane
from workbench.app.widgets.run_panes import RunPanes

if TYPE_CHECKING:
    from workbench.app.app import WorkbenchApp

TAB_NAMES = {"browser": "List", "shots": "Shots"}  # the tabs' short names for the longest (VIEW_LABELS)


class ViewTabs(Tabs):
    """The numbered tabs of a narrow window. A wide window mounts them right after its first frame; if the
    app closes first, they reach their mount without their tabs, and Textual's ``Tabs`` would raise on activating
    one (``No Tab with id 'view-editor'``): then there is nothing to activate."""

    def _on_mount(self, event: events.Mount) -> None:
        if not self.query(Tab):  # none composed, or removed by the closing app
            event.prevent_default()  # Tabs' own _on_mount does not run


class Workspace(Vertical):
    DEFAULT_CSS = """
    Workspace {
        height: 1fr;
    }
    Workspace #body {
        height: 1fr;
    }
    Workspace #views {
        height: 2;
    }
    Workspace #views Tab {
        padding: 0 0 0 1;
    }
    /* one pane at a time: the numbered tabs switch the run panes too */
    Workspace.-tabs RunPanes > ContentTabs {
        display: none;
    }
    """

    tabs: reactive[bool] = reactive(False)  # one pane at a time (a narrow window)

    class ViewShown(Message):
        """Another pane was brought forward (``view_name``): what the status line says may change."""

    def __init__(self, editor_pane: EditorPane, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.editor_pane = editor_pane
        self.program_width = 80  # the program's screen, which the terminal pane shows whole when it can
        self.browser_mode = "auto"  # auto, shown (ctrl+b asked for it) or hidden
        self.zoomed = False  # the terminal pane has the program's whole width for now (z on the terminal)
        self.view_name = "editor"  # the pane shown when the window is narrow

    def compose(self) -> ComposeResult:
        if self._layout(self.app.size.width).tabs:  # else they come right after the first frame
            yield self._new_views()
        with Horizontal(id="body"):
            yield ScenarioBrowser(id="browser")
            yield self.editor_pane
            yield RunPanes(id="panes")

    @property
    def browser(self) -> ScenarioBrowser:
        return self.query_one("#browser", ScenarioBrowser)

    @property
    def panes(self) -> RunPanes:
        return self.query_one("#panes", RunPanes)

    def _new_views(self) -> Tabs:
        """Each tab names the key that brings its pane forward from any pane (alt+3; the editor types a bare 3),
        as remapped; short names, so the six fit 80 columns whole."""
        keys_of = cast("WorkbenchApp", self.app).keys_of
        return ViewTabs(*(Tab(Content.assemble((keys_of(f"view({name!r})").split(", ")[-1], "bold"), " ",
                                               TAB_NAMES.get(name, label)), id=f"view-{name}")
                          for name, label in zip(VIEWS, VIEW_LABELS, strict=True)),
                        active=f"view-{self.view_name}", id="views")  # fmt: skip

    def views(self) -> Tabs:
        """The numbered tabs; a wide window's first frame has none (eleven widgets it does not show)."""
        try:
            return self.query_one("#views", Tabs)
        except NoMatches:
            tabs = self._new_views()
            tabs.display = self.tabs
            self.mount(tabs, before="#body")
            return tabs

    def on_mount(self) -> None:
        self.apply_layout()  # before the first frame, which shows the panes as they share this window
        self.call_after_refresh(self._views_later)

    def _views_later(self) -> None:
        if self.is_attached:  # not when the app is already closing
            self.views()

    def on_resize(self) -> None:
        self.apply_layout()

    def _layout(self, width: int) -> Plan:
        return plan(width, self.program_width, browser=self.browser_mode, zoom=self.zoomed)

    def apply_layout(self) -> None:
        """Share the width by :func:`workbench.app.layout.plan` (again at every resize or toggle)."""
        width = self.size.width or self.app.size.width
        layout = self._layout(width)
        self.tabs = layout.tabs
        self.set_class(layout.tabs, "-tabs")
        if layout.tabs or self.query("#views"):
            self.views().display = layout.tabs
        browser, editor_pane, panes = self.browser, self.editor_pane, self.panes
        if layout.tabs:
            view = self.view_name
            browser.display = view == "browser" and self.browser_mode != "hidden"
            browser.styles.width = "1fr"
            editor_pane.display = view == "editor"
            panes.display = view in panes.views
            panes.styles.width = "1fr"
        else:
            browser.display = layout.browser
            browser.styles.width = layout.browser_width
            editor_pane.display = True
            panes.display = True
            panes.styles.width = layout.panes_width

    def pane_of(self, view: str) -> Widget:
        """The pane shown as view ``view`` (a number key's)."""
        if view == "browser":
            return self.browser
        return self.editor_pane if view == "editor" else self.panes.views[view]

    def show_view(self, name: str) -> None:
        """Bring a pane forward: its tab when the window is narrow, its tab in the right column else."""
        self.panes.show(name)
        self.view_name = name
        self.post_message(self.ViewShown())
        if self.tabs:
            tabs = self.views()
            if tabs.active != f"view-{name}":
                tabs.active = f"view-{name}"
            self.apply_layout()
            focused = self.screen.focused
            if focused is not None and not all(node.display for node in (focused, *focused.ancestors)):
                self.pane_of(name).focus()  # a hidden pane must not keep the keyboard

    @on(Tabs.TabActivated, "#views")
    def _view_tab(self, event: Tabs.TabActivated) -> None:
        event.stop()
        name = (event.tab.id or "view-editor").removeprefix("view-")
        if name != self.view_name or self.tabs:
            self.view_name = name
            self.panes.show(name)
            self.apply_layout()
            self.post_message(self.ViewShown())

    def action_view(self, name: str) -> None:
        """Bring pane ``name`` forward and give it the keyboard (keys 1-6, as lazygit numbers its panels)."""
        if name == "browser" and not self.tabs and not self.browser.display:
            self.action_toggle_browser()
            return
        self.show_view(name)
        self.pane_of(name).focus()

    def action_focus_editor(self) -> None:
        self.action_view("editor")

    def action_toggle_browser(self) -> None:
        """Show or hide the scenario list (in a narrow window: its tab)."""
        browser = self.browser
        if self.tabs:
            self.show_view("browser")
            browser.focus()
            return
        if browser.display:
            self.browser_mode = "hidden"
            if browser.has_focus_within:
                self.editor_pane.focus()
        else:
            self.browser_mode = "shown"
        self.apply_layout()
        if browser.display:
            browser.focus()
        elif self.browser_mode == "shown":
            self.notify("no room for the scenario list beside the editor and the terminal: widen the window")

    def action_focus_browser(self) -> None:
        self.action_toggle_browser()

    def action_toggle_pane(self) -> None:
        """Terminal <-> screenshots; the screenshot list takes the focus, so its keys (a, c) work at once.

        Back to the terminal, the terminal takes it: a hidden screenshot pane that kept the focus would pass it
        to its next widget, and Textual's TabbedContent brings forward the pane of a focused widget."""
        panes = self.panes
        if panes.active == "tab-shots" and (not self.tabs or self.view_name == "shots"):
            self.show_view("terminal")
            if panes.views["shots"].has_focus_within:
                panes.views["terminal"].focus()
        else:
            self.show_view("shots")
            panes.views["shots"].focus()

    def action_zoom_terminal(self) -> None:
        """The terminal pane takes the program's whole width (the editor narrows); again gives it back.

        One pane at a time (a narrow window), the terminal already has the width: zoom maximizes it."""
        if self.tabs:
            if self.screen.maximized is not None:
                self.screen.minimize()
            else:
                self.show_view("terminal")
                self.screen.maximize(self.panes.views["terminal"], container=False)
            return
        self.zoomed = not self.zoomed
        self.apply_layout()
        if not self.tabs:
            self.show_view("terminal")
        self.notify("terminal zoomed: z again gives the editor its width" if self.zoomed
                    else "terminal back beside the editor", timeout=2)  # fmt: skip
