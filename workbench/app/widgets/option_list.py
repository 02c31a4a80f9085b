"""Textual's ``OptionList`` that a window too small for it never crashes.

Why: Textual (8.x) measures an option list's height by wrapping each option at the
width left after the options' padding; in a small window (50x16, or a pane squeezed
by a resize) that width is 0 or less and Rich's line wrapping raises ``ValueError:
range() arg 3 must not be zero``, which ended the app with a traceback. This list
measures at a width of at least one cell instead: it is drawn clipped, as any pane
too small for its text.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widgets import OptionList


class SafeOptionList(OptionList):
    """An ``OptionList`` whose height is measured at a width of at least one cell of text."""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        padding = self.get_component_styles("option-list--option").padding.width
        return super().get_content_height(container, viewport, max(width, padding + 1))
