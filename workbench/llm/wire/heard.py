"""A reply as the upstream sent it, read back: what `workbench record` makes of a recorded response.

Each wire reads its own style's events and bodies into a :class:`ReplyReader`
(:meth:`~workbench.llm.wire.common.Wire.read_event`, :meth:`~workbench.llm.wire.common.Wire.read_body`), so a
style registered from outside this package is recorded as fully as the built-in ones.
The model's answer is thinking, text and tool calls in the order it sent them; each
piece keeps the time its bytes arrived, so a scenario can give every chunk its real delay.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

PieceKind = Literal["think", "text", "tool"]


@dataclass
class Piece:
    """A run of thinking or text, or one tool call, in the order the model sent them."""

    kind: PieceKind
    chunks: list[tuple[float, str]] = field(default_factory=list)  # (arrival, text) for think/text
    call_id: str = ""
    name: str = ""
    arguments: str = ""  # the tool call's JSON arguments as streamed
    at: float = 0.0  # arrival of the tool call's start

    @property
    def text(self) -> str:
        return "".join(t for _, t in self.chunks)

    def args(self) -> dict[str, Any]:
        try:
            value = json.loads(self.arguments) if self.arguments.strip() else {}
        except ValueError:
            return {"_raw": self.arguments}
        return value if isinstance(value, dict) else {"_value": value}


@dataclass
class RecordedError:
    status: int
    type: str
    message: str
    retry_after: int | None = None


@dataclass
class RecordedReply:
    pieces: list[Piece] = field(default_factory=list)
    error: RecordedError | None = None
    cut: bool = False  # the stream broke before its end
    malformed: str | None = None  # a 2xx answer that is not the API's (a web page): the body as it came

    @property
    def tool_calls(self) -> list[Piece]:
        return [p for p in self.pieces if p.kind == "tool"]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.pieces if p.kind == "text")


class ReplyReader:
    """Collects a reply's pieces as a wire reads them. ``key`` says which block a delta belongs to
    (an index in the stream); without one, text continues the last piece of its kind."""

    def __init__(self) -> None:
        self.reply = RecordedReply()
        self._by_key: dict[tuple[PieceKind, Any], Piece] = {}

    def add_text(self, kind: Literal["think", "text"], at: float, text: str, key: Any = None) -> None:
        if not text:
            return
        last = self.reply.pieces[-1] if self.reply.pieces else None
        piece = self._by_key.get((kind, key)) if key is not None else None
        if piece is None:
            if last is not None and last.kind == kind and key is None:
                piece = last
            else:
                piece = Piece(kind)
                self.reply.pieces.append(piece)
                if key is not None:
                    self._by_key[(kind, key)] = piece
        if piece.chunks and piece.chunks[-1][0] == at:
            piece.chunks[-1] = (at, piece.chunks[-1][1] + text)  # one read of the upstream, one chunk
        else:
            piece.chunks.append((at, text))

    def tool(self, key: Any, at: float, call_id: str = "", name: str = "") -> Piece:
        """The tool call ``key`` (made here at its first mention); its arguments are the caller's to add."""
        piece = self._by_key.get(("tool", key))
        if piece is None:
            piece = Piece("tool", call_id=call_id, name=name, at=at)
            self._by_key[("tool", key)] = piece
            self.reply.pieces.append(piece)
        piece.call_id = piece.call_id or call_id
        piece.name = piece.name or name
        return piece

    def fail(self, error: RecordedError) -> None:
        """The stream ended in an error event."""
        self.reply.error = error
