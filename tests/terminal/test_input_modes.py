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


def test_ansi_mode_numbers_that_shadow_private_modes_are_ignored() -> None:
    """`CSI 96 h` is no mode at all; to pyte it looked like DECCOLM (3 << 5) and resized the screen."""
    for number in (96, 160, 1, 3, 5, 25):
        for final in "hl":
            screen = Screen(10, 3)
            screen.feed(f"abc\x1b[{number}{final}def")
            assert (screen.width, screen.height) == (10, 3)
            assert screen.text_rows()[0] == "abcdef    "
    screen = Screen(10, 3)
    screen.feed("abc\r\x1b[4hX")  # IRM, an ANSI mode pyte does handle: insert
    assert screen.text_rows()[0] == "Xabc      "
