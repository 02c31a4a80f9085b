"""The terminal core: pty sessions, the screen model, screenshots, goldens and recordings.

Everything the workbench knows about a program's screen comes through here:
:class:`PtySession` runs the program in a real pseudo-terminal, :class:`Screen`
interprets its output (pyte plus the speed and fixes agent output needs),
:class:`Shot` is a screenshot, :class:`GoldenStore` compares it with goldens,
and :class:`AsciicastRecorder` keeps the raw stream.
"""

from .asciicast import AsciicastRecorder
from .golden import GoldenOutcome, GoldenStore, compare_text
from .keys import KEY_NAMES, encode_keys, expand_keys
from .screen import Screen
from .session import PtySession, WaitTimeout
from .shot import Shot, StyleRun
from .style import Style

__all__ = [
    "KEY_NAMES",
    "AsciicastRecorder",
    "GoldenOutcome",
    "GoldenStore",
    "PtySession",
    "Screen",
    "Shot",
    "Style",
    "StyleRun",
    "WaitTimeout",
    "compare_text",
    "encode_keys",
    "expand_keys",
]
