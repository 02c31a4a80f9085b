"""The screen model: where stock pyte is wrong ours is right, and where pyte is right we agree with it."""

from __future__ import annotations

from typing import Any

import pyte
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.terminal import Screen
from workbench.terminal.screen import Cell, attrs_of


def stock(data: str, columns: int = 20, lines: int = 4) -> pyte.Screen:
    screen = pyte.Screen(columns, lines)
    pyte.Stream(screen).feed(data)
    return screen


def ours(data: str, columns: int = 20, lines: int = 4, scrollback: int = 1000) -> Screen:
    screen = Screen(columns, lines, scrollback=scrollback)
    screen.feed(data)
    return screen


def cell(screen: Screen, row: int, col: int) -> tuple[str, Cell]:
    stored = screen.buffer[row][col]
    return stored[0], attrs_of(stored)


# ---------------------------------------------------------------- where stock pyte is wrong


def test_text_after_emoji_with_vs16_is_kept() -> None:
    data = "A\u2764\ufe0fB hello"
    assert "B hello" not in stock(data).display[0]  # pyte drops everything after the variation selector
    screen = ours(data)
    row = screen.text_rows()[0]
    assert row.startswith("A\u2764\ufe0fB hello")
    # VS16 does not widen (tmux 3.3): A at 0, the heart at 1, B at 2.
    assert cell(screen, 0, 1)[0] == "\u2764\ufe0f"
    assert cell(screen, 0, 2)[0] == "B"
    assert cell(screen, 0, 8)[0] == "o"
    assert screen.cursor_at() == (0, 9)


def test_zwj_family_takes_two_columns() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    data = family + "x"
    assert stock(data).display[0].rstrip() != family + "x"  # pyte breaks the sequence apart
    screen = ours(data)
    assert cell(screen, 0, 0)[0] == family
    assert cell(screen, 0, 1)[0] == ""
    assert cell(screen, 0, 2)[0] == "x"
    assert screen.cursor_at() == (0, 3)
    assert screen.text_rows()[0] == family + "x" + " " * 17


def test_cjk_wide_characters() -> None:
    screen = ours("中文ab")
    assert [cell(screen, 0, x)[0] for x in range(6)] == ["中", "", "文", "", "a", "b"]
    assert screen.cursor_at() == (0, 6)
    assert screen.text_rows()[0] == "中文ab" + " " * 14


def test_overwriting_half_of_a_wide_character_blanks_the_other_half() -> None:
    # Overwrite the second half of 中: its first half becomes a blank.
    screen = ours("ab中cd\x1b[1;4Hx")
    assert screen.text_rows()[0].rstrip() == "ab xcd"
    # Overwrite the first half: the orphaned second half becomes a blank.
    screen = ours("ab中cd\x1b[1;3Hy")
    assert screen.text_rows()[0].rstrip() == "aby cd"
    # The same through the slow (non-ASCII) path.
    screen = ours("ab中cd\x1b[1;4Hé")
    assert screen.text_rows()[0].rstrip() == "ab écd"


def test_wide_character_in_the_last_column_wraps() -> None:
    screen = ours("x" * 19 + "中", columns=20)
    rows = screen.text_rows()
    assert rows[0] == "x" * 19 + " "
    assert rows[1].startswith("中")


def test_colon_truecolor_sgr() -> None:
    data = "\x1b[38:2::255:0:128mHi"
    assert "2::255" in stock(data).display[0]  # pyte leaks the parameters as text
    screen = ours(data)
    assert screen.text_rows()[0].rstrip() == "Hi"
    assert cell(screen, 0, 0)[1].fg == "ff0080"
    assert cell(screen, 0, 1)[1].fg == "ff0080"
    # Without the (empty) colour-space field too.
    assert cell(ours("\x1b[48:2:1:2:3mX"), 0, 0)[1].bg == "010203"


def test_colon_256_colour_and_underline_style() -> None:
    screen = ours("\x1b[38:5:196mR\x1b[4:3mU\x1b[4:0mN")
    assert screen.text_rows()[0].rstrip() == "RUN"
    assert cell(screen, 0, 0)[1].fg == "ff0000"
    assert not cell(screen, 0, 0)[1].underscore
    assert cell(screen, 0, 1)[1].underscore
    assert cell(screen, 0, 1)[1].fg == "ff0000"
    assert not cell(screen, 0, 2)[1].underscore


def test_dim_set_by_2_and_cleared_by_22() -> None:
    screen = ours("a\x1b[2mb\x1b[1mc\x1b[22md")
    attrs = [cell(screen, 0, x)[1] for x in range(4)]
    assert [a.dim for a in attrs] == [False, True, True, False]
    assert [a.bold for a in attrs] == [False, False, True, False]
    assert screen.style_runs()[0][0].style["dim"] is True


def test_alternate_screen_1049_restores_primary_and_cursor() -> None:
    screen = ours("primary\r\nline2", lines=5)
    assert screen.cursor_at() == (1, 5)
    screen.feed("\x1b[?1049h")
    assert screen.alternate
    assert all(not row.strip() for row in screen.text_rows())
    screen.feed("\x1b[3;2Halt text")
    assert screen.text_rows()[2].rstrip() == " alt text"
    screen.feed("\x1b[?1049l")
    assert not screen.alternate
    assert [r.rstrip() for r in screen.text_rows()] == ["primary", "line2", "", "", ""]
    assert screen.cursor_at() == (1, 5)


def test_alternate_screen_47_and_1047() -> None:
    for mode in (47, 1047):
        screen = ours(f"keep\x1b[?{mode}h", lines=3)
        assert screen.alternate
        screen.feed("ALT")
        assert "ALT" in screen.text_rows()[0]
        assert "keep" not in screen.text_rows()[0]
        screen.feed(f"\x1b[?{mode}l")
        assert not screen.alternate
        assert screen.text_rows()[0].rstrip() == "keep"


def test_stock_pyte_has_no_alternate_screen() -> None:
    assert stock("keep\x1b[?1049h\x1b[2J\x1b[HALT\x1b[?1049l").display[0].rstrip() == "ALT"
    assert ours("keep\x1b[?1049h\x1b[2J\x1b[HALT\x1b[?1049l").text_rows()[0].rstrip() == "keep"


def test_cursor_position_report_is_answered() -> None:
    screen = Screen(20, 5)
    answers: list[str] = []
    screen.on_answer = answers.append
    screen.feed("\x1b[3;5H\x1b[6n")
    assert answers == ["\x1b[3;5R"]
    screen.feed("\x1b[H\x1b[6n")
    assert answers[-1] == "\x1b[1;1R"


def test_device_attributes_are_answered() -> None:
    screen = Screen(20, 5)
    answers: list[str] = []
    screen.on_answer = answers.append
    screen.feed("\x1b[c")
    assert len(answers) == 1
    assert answers[0].startswith("\x1b[?") and answers[0].endswith("c")
    screen.feed("\x1b[>c")
    assert len(answers) == 2
    assert answers[1].startswith("\x1b[>") and answers[1].endswith("c")
    assert screen.answers == answers


def test_scrollback_is_bounded() -> None:
    screen = Screen(10, 3, scrollback=5)
    for i in range(100):
        screen.feed(f"line{i}\r\n")
    assert 0 < len(screen.history) <= 5
    last = screen.history[-1]
    assert "".join(last[x][0] for x in range(6)) == "line97"
    assert [r.rstrip() for r in screen.text_rows()] == ["line98", "line99", ""]


def test_scrollback_zero_keeps_nothing_and_alternate_keeps_nothing() -> None:
    screen = Screen(10, 3, scrollback=0)
    for i in range(20):
        screen.feed(f"{i}\r\n")
    assert len(screen.history) == 0
    screen = Screen(10, 3, scrollback=50)
    screen.feed("\x1b[?1049h")
    for i in range(20):
        screen.feed(f"{i}\r\n")
    assert len(screen.history) == 0


def test_osc_title() -> None:
    screen = ours("\x1b]2;My Title\x07text")
    assert screen.title == "My Title"
    assert screen.text_rows()[0].rstrip() == "text"
    screen = ours("\x1b]0;Both\x1b\\")
    assert screen.title == "Both"
    assert screen.icon_name == "Both"


def test_split_sequences() -> None:
    screen = Screen(20, 4)
    for piece in [
        "\x1b",
        "[",
        "3",
        "1",
        ";",
        "1m",
        "red",
        "\x1b[",
        "0m",
        "\x1b]2;ti",
        "tle\x07",
        "中"[0],
        "x",
    ]:
        screen.feed(piece)
    assert screen.text_rows()[0].rstrip() == "red中x"
    assert cell(screen, 0, 0)[1].fg == "red"
    assert cell(screen, 0, 0)[1].bold
    assert cell(screen, 0, 3)[1].fg == "default"
    assert screen.title == "title"
    # A truecolor sequence split inside its parameters.
    screen = Screen(20, 4)
    screen.feed("\x1b[38:2::25")
    assert screen.text_rows()[0].strip() == ""
    screen.feed("5:0:128mZ")
    assert screen.text_rows()[0].rstrip() == "Z"
    assert cell(screen, 0, 0)[1].fg == "ff0080"


def test_unterminated_osc_is_not_buffered_forever() -> None:
    screen = Screen(20, 4)
    screen.feed("\x1b]2;" + "x" * 70000)
    screen.feed("visible")
    assert "visible" in screen.text_rows()[0]


# ---------------------------------------------------------------- where stock pyte is right, we agree


PLAIN_AND_COLOURED = [
    "hello world\r\nsecond line\r\n\tthird",
    "\x1b[31mred\x1b[0m plain \x1b[1;32mbold green\x1b[0m\r\n\x1b[44mblue bg\x1b[0m",
    "\x1b[38;5;196mx256\x1b[48;2;10;20;30mtrue\x1b[0m \x1b[92mbright\x1b[0m",
    "abcdefghij" * 5 + "\r\nwrapped",
    "\x1b[2J\x1b[3;4Hat 3,4\x1b[1;1Htop\x1b[2;1Hxxxx\x1b[2;2H\x1b[K",
    "".join(f"line {i}\r\n" for i in range(12)),
    "\x1b[7mrev\x1b[27m \x1b[3mit\x1b[23m \x1b[4mul\x1b[24m \x1b[9mst\x1b[29m",
    "中文 text\r\nmore 字",
]


def _fields(c: Any) -> tuple[str, str, bool, bool, bool, bool]:
    return (c.fg, c.bg, c.bold, c.italics, c.underscore, c.reverse)


def test_equal_to_stock_pyte_where_it_is_right() -> None:
    for data in PLAIN_AND_COLOURED:
        theirs = stock(data, columns=30, lines=6)
        mine = ours(data, columns=30, lines=6)
        assert mine.text_rows() == theirs.display, data
        assert (mine.cursor.y, mine.cursor.x) == (theirs.cursor.y, theirs.cursor.x), data
        for y in range(6):
            for x in range(30):
                theirs_cell = theirs.buffer[y][x]
                mine_cell = attrs_of(mine.buffer[y][x])
                assert _fields(mine_cell) == _fields(theirs_cell), (data, y, x)


def test_coloured_cells_have_the_right_colours() -> None:
    mine = ours("\x1b[31mred\x1b[0m \x1b[1;44mB\x1b[0m")
    assert _fields(cell(mine, 0, 0)[1])[:3] == ("red", "default", False)
    assert _fields(cell(mine, 0, 4)[1])[:3] == ("default", "blue", True)
    assert _fields(cell(mine, 0, 3)[1])[:3] == ("default", "default", False)


# ---------------------------------------------------------------- chunking never matters

ALPHABET = ["\x1b", "[", "]", ";", ":", *"0123456789", "m", "H", "J", "K", "\r", "\n", "\x07",
            *"abcdefxyzABCXYZ", " ", "中", "\u200d", "\ufe0f", "😀", "?", "1049h", "1049l", "38:2::"]  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.sampled_from(ALPHABET), max_size=80),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12),
)
def test_chunked_feed_equals_whole_feed(pieces: list[str], cuts: list[int]) -> None:
    text = "".join(pieces)
    whole = Screen(12, 5)
    whole.feed(text)
    chunked = Screen(12, 5)
    bounds = sorted({min(c, len(text)) for c in cuts})
    start = 0
    for end in [*bounds, len(text)]:
        chunked.feed(text[start:end])
        start = end
    assert chunked.text_rows() == whole.text_rows()
    assert chunked.cursor_at() == whole.cursor_at()
    assert chunked.alternate == whole.alternate
    for rows in (whole.text_rows(), chunked.text_rows()):
        assert len(rows) == 5


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200), columns=st.integers(min_value=2, max_value=12))
def test_any_text_never_raises(text: str, columns: int) -> None:
    screen = Screen(columns, 3)
    screen.feed(text)
    rows = screen.text_rows()
    assert len(rows) == 3
    y, x = screen.cursor_at()
    assert 0 <= y < 3
    assert 0 <= x <= columns
