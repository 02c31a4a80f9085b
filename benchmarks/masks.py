"""Benchmark: masks on a screenshot, matched by ``regex`` with its time limit against :mod:`re` without one.

Run: ``python benchmarks/masks.py``

User patterns run through the ``regex`` package so that one that backtracks without end is stopped
(``workbench/scenario/user_regex.py``); :mod:`re` has no time limit. This measures what that costs where it
is paid most often: :func:`workbench.terminal.masks.mask_shot` on every screenshot. The screen is a 120x40
Claude Code session (banner, turns, tool calls, the idle line), the masks are the Claude Code preset's and
then the same with a mask of a scenario's own per row kind, eleven in all. Both ways run in the same process,
interleaved, the fastest of seven rounds kept; the masked screens must be the same.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable
from typing import Any

from workbench.llm.agents import AGENTS
from workbench.scenario import user_regex
from workbench.scenario.user_regex import UserRegex
from workbench.terminal.masks import mask_shot

ROWS = [
    "╭─── Claude Code v2.1.197 ──────────────────────────────────────────────────────────────╮",
    "│  cwd: /tmp/wb-3k2/wb-ws-p0001234s000000000042-abcd1234                                  │",
    "╰─────────────────────────────────────────────────────────────────────────────────────────╯",
    "> Create notes.txt, fix its last line and show it",
    "⏺ Writing notes.txt.",
    "⏺ Write(notes.txt)",
    "  ⎿  Wrote 2 lines to notes.txt",
    "✻ Thought for 3s",
    "⏺ Bash(cat notes.txt)",
    "  ⎿  one",
    "     three",
    "⏺ Done: notes.txt ends with three.",
    "✻ Cooked for 12s",
]
OWN = (
    r"\d+ lines?",
    r"\b[0-9a-f]{8}\b",
    r"PGID: \d+",
    r"\d+ tokens",
    r"(?<=at )\d\d:\d\d",
    r"#\d+",
    r"\bv\d+\b",
)


@dataclasses.dataclass(frozen=True)
class Shot:
    rows: tuple[str, ...]
    width: int


def screen(width: int = 120, height: int = 40) -> Shot:
    rows = [ROWS[i % len(ROWS)] if i < 3 * len(ROWS) else "" for i in range(height)]
    return Shot(tuple(r[:width].ljust(width) for r in rows), width)


def fastest(run: Callable[[], Any], rounds: int = 7, repeat: int = 200) -> float:
    """The fastest of ``rounds`` rounds, per call, in milliseconds."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            run()
        best = min(best, (time.perf_counter() - start) / repeat * 1000)
    return best


def main() -> None:
    shot = screen()
    patterns = [*AGENTS["claude-code"].masks, *OWN]
    masks = tuple(UserRegex(p, "`masks` item") for p in patterns)
    limited = mask_shot(shot, masks)
    compiled = user_regex._compiled  # the two ways differ only in what compiles the pattern
    user_regex._compiled = lambda pattern, flags: re.compile(pattern, flags)  # type: ignore[assignment]
    try:
        plain = mask_shot(shot, masks)
        re_ms = fastest(lambda: mask_shot(shot, masks))
    finally:
        user_regex._compiled = compiled
    assert plain == limited, "regex and re masked the screen differently"
    regex_ms = fastest(lambda: mask_shot(shot, masks))
    print(
        f"masks on a 120x40 screenshot, {len(masks)} masks ({len(AGENTS['claude-code'].masks)} of the preset):"
    )
    print(f"  re (no time limit):        {re_ms:.2f} ms")
    print(f"  regex (1 s limit a match): {regex_ms:.2f} ms ({regex_ms / re_ms:.1f}x)")


if __name__ == "__main__":
    main()
