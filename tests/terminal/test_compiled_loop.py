"""The optional mypyc build of the parse loop: the same screens as its source, and never stale.

With ``WORKBENCH_MYPYC=1`` at install time the screen runs the compiled
:mod:`workbench.terminal.fastpath` (every other test then runs on it) and the
property here plays random agent-TUI streams through both the compiled loop
and the source loaded beside it. Without the build every test runs on the
source and the property has nothing to compare: it is skipped.
"""

from __future__ import annotations

import os
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.terminal.test_against_pyte import sizes, streams
from workbench.terminal import Screen, loop, vt


def _state(stream: str, size: tuple[int, int], reads: int) -> object:
    screen = Screen(*size)
    step = max(1, len(stream) // reads)
    for start in range(0, len(stream), step):
        screen.feed(stream[start : start + step])
    shot = screen.snapshot()
    return shot, shot.cells, [list(row) for row in screen.vt.style_rows], screen.history_rows()


@pytest.mark.skipif(
    not loop.COMPILED, reason="the loop is not compiled here (WORKBENCH_MYPYC=1 pip install ...)"
)
@settings(database=None, max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stream=streams, size=sizes, reads=st.integers(1, 7))
def test_the_compiled_loop_gives_the_source_s_screens(stream: str, size: tuple[int, int], reads: int) -> None:
    compiled = _state(stream, size, reads)
    with mock.patch.object(vt, "feed_tokens", loop.source_module().feed_tokens):
        assert _state(stream, size, reads) == compiled


def test_a_build_older_than_its_source_is_set_aside(tmp_path: Path) -> None:
    built, source = tmp_path / "fastpath.so", tmp_path / "fastpath.py"
    built.write_bytes(b"")
    source.write_text("")
    os.utime(built, (1_000_000, 1_000_000))
    os.utime(source, (1_000_001, 1_000_001))  # the same install: files written a moment apart
    assert loop.is_current(built, source)
    os.utime(source, (1_000_600, 1_000_600))  # edited ten minutes after the build
    assert not loop.is_current(built, source)
    source.unlink()
    assert loop.is_current(built, source)  # nothing beside it to be stale against


def test_the_source_loop_is_the_module_s_own_code() -> None:
    module = loop.source_module()
    assert module.__file__ == str(loop.SOURCE) and module.__name__ == "workbench.terminal.fastpath"
    screen = Screen(10, 2)
    with mock.patch.object(vt, "feed_tokens", module.feed_tokens):
        screen.feed("\x1b[31mab\x1b[0mc\r\nd")
    assert screen.text_rows() == ["abc       ", "d         "] and screen.cursor_position() == (1, 1)
