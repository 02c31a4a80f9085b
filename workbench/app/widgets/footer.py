"""A footer whose keys stay in one order whatever has the focus.

Textual's footer lists keys in the order of the focus chain, so they move when
the focus does (a widget that binds F6 pulls the screen's F6 forward). Here Help
and Quit come first, so they are visible at any width, then the run keys in a
fixed order; a key that does not work in the current state is not listed.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

ORDER = ("help", "quit", "play", "pause", "step-back", "step", "run-to-cursor", "stop", "save",
         "accept-screenshot", "accept-all-screenshots", "compare-now", "find-close", "terminal-leave-focus-mode",
         "terminal-record-screenshot")  # fmt: skip


class StableFooter(Footer):
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
        self.styles.grid_size_columns = len(rows) + 1
        for _rank, _index, binding, enabled, tooltip in rows:
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip).data_bind(compact=Footer.compact)  # fmt: skip
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                _node, binding, enabled, tooltip = palette
                yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description,
                                binding.action, classes="-command-palette", disabled=not enabled,
                                tooltip=binding.tooltip or binding.description)  # fmt: skip
