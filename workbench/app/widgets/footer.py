"""A footer whose keys stay in one order whatever has the focus, and never cut a label.

Textual's footer lists keys in the order of the focus chain, so they move when
the focus does (a widget that binds F6 pulls the screen's F6 forward). Here Help
and Quit come first, so they are visible at any width, then the run keys in a
fixed order (Stop, shown only while a run goes on, before the stepping keys); a key that does not work in the current state is not listed. Keys
that do not fit the width whole are left out, from the end of that order (the
palette and the help screen list every key): a label is never cut.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

ORDER = ("help", "quit", "play", "pause", "stop", "step-back", "step", "run-to-cursor", "save",
         "accept-screenshot", "accept-all-screenshots", "compare-now", "find-close", "terminal-leave-focus-mode",
         "terminal-record-screenshot")  # fmt: skip


def key_width(key_display: str, description: str) -> int:
    """The cells a (not compact) footer key takes: the key padded by one on each side, then its label and one."""
    return cell_len(key_display) + 2 + (cell_len(description) + 1 if description else 0)


PALETTE_CHROME = 2  # the palette key's left border and right padding


class StableFooter(Footer):
    def on_resize(self) -> None:
        self.call_after_refresh(self.recompose)  # what fits changes with the width

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        active = self.screen.active_bindings
        seen: set[str] = set()
        rows: list[tuple[int, int, Binding, bool, str]] = []
        for _node, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            rank = ORDER.index(binding.id) if binding.id in ORDER else len(ORDER)
            rows.append((rank, len(rows), binding, enabled, tooltip))
        rows.sort(key=lambda row: (row[0], row[1]))
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            palette = None
        room = self.size.width or self.screen.size.width or self.app.size.width
        if palette is not None:
            binding = palette[1]
            room -= key_width(self.app.get_key_display(binding), binding.description) + PALETTE_CHROME
        shown = []
        for row in rows:
            width = key_width(self.app.get_key_display(row[2]), row[2].description)
            if width > room:
                break  # this key and the ones after it are in the palette and the help screen
            room -= width
            shown.append(row)
        self.styles.grid_size_columns = len(shown) + 1
        for _rank, _index, binding, enabled, tooltip in shown:
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip).data_bind(compact=Footer.compact)  # fmt: skip
        if palette is not None:
            _node, binding, enabled, tooltip = palette
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description,
                            binding.action, classes="-command-palette", disabled=not enabled,
                            tooltip=binding.tooltip or binding.description)  # fmt: skip
