"""The input modes a program sets, which decide how keys and pastes are sent to it (the app's focus mode)."""

from __future__ import annotations

from workbench.terminal import Screen


def test_cursor_key_mode_and_bracketed_paste_follow_the_program() -> None:
    screen = Screen(20, 5)
    assert not screen.application_cursor_keys and not screen.bracketed_paste
    screen.feed("\x1b[?1h\x1b[?2004h")  # what vim and readline send
    assert screen.application_cursor_keys and screen.bracketed_paste
    screen.feed("\x1b[?1l")
    assert not screen.application_cursor_keys and screen.bracketed_paste
    screen.feed("\x1b[?20")  # split inside the sequence
    screen.feed("04l")
    assert not screen.bracketed_paste
