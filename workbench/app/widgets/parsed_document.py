"""A syntax-aware document that hands tree-sitter its text in large chunks.

Textual's :class:`SyntaxAwareDocument` re-parses after every edit through a
Python callback that returns one line at a time. Tree-sitter reads the whole
text again on each incremental parse, so a keystroke in a 1,000-line scenario
made about 2,000 Python calls, a quarter of the keystroke's time. Here the
callback slices one encoded copy of the text, made once per edit, and returns
up to :data:`CHUNK` bytes at a time: the same bytes, a few calls.
"""

from __future__ import annotations

from textual.document._document import EditResult, Location
from textual.document._syntax_aware_document import SyntaxAwareDocument

CHUNK = 16384


class ChunkReadDocument(SyntaxAwareDocument):
    """:class:`SyntaxAwareDocument` whose parser reads slices of one encoded copy of the text."""

    _encoded: bytes | None = None

    def replace_range(self, start: Location, end: Location, text: str) -> EditResult:
        self._encoded = None  # the parse inside the edit reads the new text
        return super().replace_range(start, end, text)

    def _read_callable(self, byte_offset: int, point: tuple[int, int]) -> bytes:
        """The bytes from ``byte_offset`` on; every line ends with the newline, as Textual's reader has it."""
        if self._encoded is None:
            newline = self.newline
            self._encoded = (newline.join(self._lines) + newline).encode("utf-8")
        return self._encoded[byte_offset : byte_offset + CHUNK]

    @classmethod
    def adopt(cls, document: object) -> None:
        """Make a document Textual built for the editor one of these (same state, another reader)."""
        if type(document) is SyntaxAwareDocument:
            document.__class__ = cls
