"""The asciicast recording as frames the page plays inline, with no player to download.

The terminal stream of ``terminal.cast`` is replayed into our own screen model
(the one that took the screenshots), and the screen is taken after each burst of
output: events closer together than a frame are one frame. A long recording is
thinned to at most :data:`MAX_FRAMES` frames by widening the frame. Frames are
screens of the shared :class:`ScreenStore`, so a frame equal to a step's screen
costs one number. Markers (screenshot labels) are kept so the page can show them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.digits import is_digits
from workbench.report.screens import ScreenStore
from workbench.terminal.screen import Screen

FRAME_S = 1 / 30
MAX_FRAMES = 400
MAX_SIDE = 1000
MAX_EVENTS = 200_000  # a recording longer than this is cut (the page says so)


def read_cast(path: Path) -> tuple[dict[str, Any], list[tuple[float, str, str]]] | None:
    """The header and ``(seconds, code, data)`` events; None when there is no readable recording."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    lines = text.splitlines()
    try:
        header = json.loads(lines[0]) if lines else None
    except ValueError:
        return None
    if not isinstance(header, dict):
        return None
    events = []
    for line in lines[1 : MAX_EVENTS + 1]:
        try:
            t, code, data = json.loads(line)
            events.append((float(t), str(code), str(data)))
        except (ValueError, TypeError):
            continue  # the last line of a killed run may be half written
    return header, events


def _side(value: Any, default: int) -> int:
    """A terminal's columns or rows as the recording claims them, within what a terminal can be."""
    return min(max(value, 1), MAX_SIDE) if isinstance(value, int) and not isinstance(value, bool) else default


def cast_frames(path: Path, store: ScreenStore) -> dict[str, Any] | None:
    """``{"frames": [[seconds, screen id]...], "markers": [[seconds, label]...], "duration"}`` or None."""
    read = read_cast(path)
    if read is None:
        return None
    header, events = read
    width, height = _side(header.get("width"), 80), _side(header.get("height"), 24)
    outputs = [t for t, code, _ in events if code == "o"]
    span = outputs[-1] - outputs[0] if outputs else 0.0
    step = max(FRAME_S, span / MAX_FRAMES)
    screen = Screen(width, height)
    frames: list[list[float | int]] = []
    markers: list[list[float | str]] = []
    pending: float | None = None  # when the burst of output not yet in a frame began
    last = 0.0  # the time of the last output fed: the frame shows the screen from then on

    def take(at: float) -> None:
        frame = store.add(screen.snapshot())
        if not frames or frames[-1][1] != frame:
            frames.append([round(at, 3), frame])

    blank = store.add(screen.snapshot())
    for t, code, data in events:
        if pending is not None and t - pending >= step:
            take(last)
            pending = None
        if code == "o":
            screen.feed(data)
            pending = t if pending is None else pending
            last = t
        elif code == "m":
            markers.append([round(t, 3), data])
        elif code == "r" and "x" in data:
            w, _, h = data.partition("x")
            if is_digits(w) and is_digits(h):
                screen.resize(_side(int(w), width), _side(int(h), height))
    if pending is not None:
        take(last)
    if frames and frames[0][0] > 0 and frames[0][1] != blank:  # before the first output, a blank terminal
        frames.insert(0, [0.0, blank])
    duration = events[-1][0] if events else 0.0
    return {"frames": frames, "markers": markers, "duration": round(duration, 3),
            "cut": len(events) >= MAX_EVENTS}  # fmt: skip
