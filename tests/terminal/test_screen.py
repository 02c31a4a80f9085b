"""The screen model: what stock pyte 0.8.2 gets wrong, shown wrong there and right here, and the basics."""

from __future__ import annotations

from workbench.terminal import Screen, Style
from workbench.terminal.style import DEFAULT

from .helpers import ours, rows, stock, stock_rows

# ---------------------------------------------------------------- emoji, joiners, wide characters


def test_text_after_an_emoji_with_variation_selector_is_kept() -> None:
    text = "A\u2764\ufe0fB hello"
    assert stock_rows(stock(text))[0] == "A\u2764"  # stock pyte drops everything after U+FE0F
    screen = ours(text)
    assert rows(screen)[0] == "A\u2764\ufe0fB hello"
    assert screen.cursor_position() == (0, 9)  # ❤️ takes one column, as in tmux 3.3a


def test_an_emoji_zwj_sequence_is_one_cell_and_text_after_it_lands_right() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert stock_rows(stock(family + " family"))[0] == "\U0001f468"  # the rest is lost
    screen = ours(family + " family")
    cells = screen.vt.rows[0]
    assert cells[0] == family and cells[1] == "" and cells[2] == " " and cells[3] == "f"
    assert rows(screen)[0] == family + " family"
    assert screen.cursor_position() == (0, 9)


def test_a_zwj_before_ascii_is_dropped_and_joins_nothing() -> None:
    screen = ours("a\u200db|")
    assert rows(screen)[0] == "ab|"
    assert screen.cursor_position() == (0, 3)


def test_combining_marks_join_the_previous_cell_even_across_reads() -> None:
    screen = Screen(10, 2)
    screen.feed("e")
    screen.feed("\u0301t")
    assert screen.vt.rows[0][:2] == ["e\u0301", "t"]
    assert screen.cursor_position() == (0, 2)


def test_a_wide_character_that_does_not_fit_wraps_instead_of_being_cut() -> None:
    text = "x" * 19 + "\u4e2d"
    wrong = stock(text)
    assert wrong.display[0] == "x" * 19 + "\u4e2d"  # 21 columns wide in a 20-column row
    screen = ours(text)
    assert rows(screen)[:2] == ["x" * 19, "\u4e2d"]
    assert screen.cursor_position() == (1, 2)


def test_overwriting_half_of_a_wide_character_blanks_the_other_half() -> None:
    text = "\u4e2d\u6587\x1b[1;2Hx"
    assert stock_rows(stock(text))[0] == "\u4e2d\u6587"  # the x is hidden behind the stub
    assert rows(ours(text))[0] == " x\u6587"
    assert rows(ours("\u4e2d\u6587\x1b[1;3Hx"))[0] == "\u4e2dx"  # the right half of 文 is blank now
    assert rows(ours("\u4e2d\u6587\x1b[1;3Hxy"))[0] == "\u4e2dxy"


def test_every_row_is_exactly_width_cells() -> None:
    screen = ours("\u4e2d\u6587 ok \u2764\ufe0f \U0001f468\u200d\U0001f469 \u00e9\u0301", width=12, height=2)
    for cells in screen.vt.rows:
        assert len(cells) == 12
    assert rows(screen)[0] == "\u4e2d\u6587 ok \u2764\ufe0f \U0001f468\u200d\U0001f469"


# ---------------------------------------------------------------- alternate screen


def test_the_alternate_screen_is_left_with_the_primary_screen_and_cursor_restored() -> None:
    text = "primary\r\n$ \x1b[?1049h\x1b[2J\x1b[Hfull screen\x1b[5;5Hx\x1b[?1049l"
    assert stock_rows(stock(text))[0] == "full screen"  # stock pyte overwrote the primary screen
    screen = ours(text)
    assert rows(screen)[:2] == ["primary", "$"]
    assert screen.cursor_position() == (1, 2)
    assert not screen.alternate


def test_the_alternate_screen_starts_blank_and_does_not_feed_the_scrollback() -> None:
    screen = ours("one\r\ntwo\x1b[?1049h", width=10, height=2, scrollback=10)
    assert screen.alternate and rows(screen) == ["", ""]
    screen.feed("\r\n".join(str(i) for i in range(10)))
    assert screen.history_rows() == []
    screen.feed("\x1b[?1049l")
    assert rows(screen) == ["one", "two"]


def test_modes_47_and_1047_switch_buffers_without_moving_the_cursor_back() -> None:
    for mode in (47, 1047):
        screen = ours(f"keep\x1b[?{mode}hother\x1b[?{mode}l", width=10, height=2)
        assert rows(screen)[0] == "keep"
        assert screen.cursor_position() == (0, 9)


def test_mode_1048_saves_and_restores_the_cursor() -> None:
    screen = ours("ab\x1b[?1048h\x1b[2;5Hx\x1b[?1048ly", width=10, height=3)
    assert rows(screen)[:2] == ["aby", "    x"]


# ---------------------------------------------------------------- SGR


def test_colon_separated_truecolor_and_256_colour() -> None:
    text = "\x1b[38:2::255:0:128mA\x1b[48:5:208mB\x1b[38:2:1:2:3mC"
    assert stock_rows(stock(text))[0].startswith("2::255")  # stock pyte prints the parameters
    screen = ours(text)
    assert rows(screen)[0] == "ABC"
    assert screen.style_at(0, 0).fg == "ff0080"
    assert screen.style_at(0, 1).bg == "ff8700"
    assert screen.style_at(0, 2).fg == "010203"


def test_underline_styles_with_colon_sub_parameters() -> None:
    assert stock_rows(stock("\x1b[4:3mcurly"))[0] == "3mcurly"
    screen = ours("\x1b[4:3mcurly\x1b[4:0m plain\x1b[21md\x1b[24mu")
    assert rows(screen)[0] == "curly plaindu"
    assert screen.style_at(0, 0).underscore
    assert not screen.style_at(0, 6).underscore
    assert screen.style_at(0, 11).underscore
    assert not screen.style_at(0, 12).underscore


def test_dim_is_an_attribute_and_22_clears_bold_and_dim() -> None:
    assert not hasattr(stock("\x1b[2mdim").buffer[0][0], "dim")
    screen = ours("\x1b[1;2mA\x1b[22mB")
    assert screen.style_at(0, 0).dim and screen.style_at(0, 0).bold
    assert screen.style_at(0, 1) == DEFAULT


def test_semicolon_colours_agree_with_stock_pyte() -> None:
    text = "\x1b[31mr\x1b[1;92mg\x1b[38;5;33mb\x1b[48;2;1;2;3mt\x1b[7;3;9;5mx\x1b[0mn"
    theirs, mine = stock(text), ours(text)
    for x in range(6):
        char = theirs.buffer[0][x]
        style = mine.style_at(0, x)
        assert (
            style.fg,
            style.bg,
            style.bold,
            style.italics,
            style.reverse,
            style.strikethrough,
            style.blink,
        ) == (char.fg, char.bg, char.bold, char.italics, char.reverse, char.strikethrough, char.blink), x


def test_a_malformed_extended_colour_does_not_disturb_later_text() -> None:
    screen = ours("\x1b[38;5mA\x1b[38;2;1mB\x1b[38;9;1;31mC")
    assert rows(screen)[0] == "ABC"


# ---------------------------------------------------------------- queries


def test_cursor_position_and_device_attribute_queries_are_answered() -> None:
    screen = Screen(20, 5)
    answers: list[str] = []
    screen.on_answer = answers.append
    screen.feed("ab\x1b[3;4H\x1b[6n\x1b[c\x1b[>c\x1b[5n\x1b[?6n\x1b]11;?\x07")
    assert answers == ["\x1b[3;4R", "\x1b[?62;22c", "\x1b[>1;10;0c", "\x1b[0n", "\x1b[?3;4R",
                       "\x1b]11;rgb:1e1e/1e1e/1e1e\x07"]  # fmt: skip
    assert screen.responses == answers


def test_a_query_split_across_reads_is_answered_once() -> None:
    screen = Screen(20, 5)
    answers: list[str] = []
    screen.on_answer = answers.append
    for ch in "\x1b[6n":
        screen.feed(ch)
    assert answers == ["\x1b[1;1R"]


# ---------------------------------------------------------------- scrollback and scrolling


def test_scrollback_is_bounded() -> None:
    screen = ours("".join(f"line {i}\r\n" for i in range(100)), width=10, height=3, scrollback=5)
    assert screen.history_rows() == [f"line {i}".ljust(10) for i in range(93, 98)]
    assert rows(screen) == ["line 98", "line 99", ""]


def test_a_scroll_region_scrolls_alone_and_keeps_the_scrollback_clean() -> None:
    screen = ours("\x1b[1;1Htitle\x1b[3;1Hstatus\x1b[1;2r\x1b[2;1Ha\r\nb\r\nc", width=10, height=3)
    assert rows(screen) == ["b", "c", "status"]
    assert screen.history_rows() == []


def test_scroll_up_and_down_sequences() -> None:
    screen = ours("1\r\n2\r\n3\x1b[S", width=5, height=3)
    assert rows(screen) == ["2", "3", ""]
    screen.feed("\x1b[2T")
    assert rows(screen) == ["", "", "2"]


def test_erase_in_display_3_clears_the_scrollback() -> None:
    screen = ours("a\r\nb\r\nc\r\nd", width=5, height=2)
    assert screen.history_rows()
    screen.feed("\x1b[3J")
    assert screen.history_rows() == [] and rows(screen) == ["", ""]


# ---------------------------------------------------------------- editing and cursor


def test_insert_delete_and_erase_characters() -> None:
    screen = ours("abcdef\x1b[1;3H\x1b[2@", width=10, height=1)
    assert rows(screen) == ["ab  cdef"]
    screen.feed("\x1b[3P")
    assert rows(screen) == ["abdef"]
    screen.feed("\x1b[2X")
    assert rows(screen) == ["ab  f"]
    screen.feed("\x1b[1K")
    assert rows(screen) == ["    f"]


def test_erasing_takes_the_background_colour_only() -> None:
    screen = ours("\x1b[1;7;44m\x1b[K", width=4, height=1)
    assert screen.style_at(0, 0) == Style(
        ("default", "blue", False, False, False, False, False, False, False)
    )


def test_repeat_the_previous_character() -> None:
    assert rows(ours("-\x1b[9b", width=20, height=1)) == ["-" * 10]


def test_a_pending_wrap_survives_a_line_feed_but_not_cursor_up() -> None:
    # Both checked against tmux 3.3a: LF keeps the wrap pending, CUU puts the cursor in the last column.
    assert rows(ours("abcde\nX", width=5, height=4)) == ["abcde", "", "X", ""]
    assert rows(ours("\r\nabcde\x1b[AX", width=5, height=4)) == ["    X", "abcde", "", ""]


def test_next_line_returns_the_carriage() -> None:
    assert rows(ours("ab\x1bEc", width=5, height=2)) == ["ab", "c"]


def test_dec_line_drawing_charset() -> None:
    assert rows(ours("\x1b(0lqqk\x1b(B x", width=10, height=1)) == ["┌──┐ x"]


def test_titles_from_osc() -> None:
    screen = ours("\x1b]0;my title\x07text\x1b]2;other\x1b\\")
    assert screen.title == "other" and rows(screen)[0] == "text"


def test_sequences_split_anywhere_give_the_same_screen() -> None:
    text = "a\x1b[1;31mb\x1b]0;t\x07c\x1b[2;3Hd\x1bPq#0;1\x1b\\e\u4e2d\r\n\x1b[?1049hf\x1b[?1049lg"
    whole = ours(text)
    for cut in range(len(text) + 1):
        screen = Screen(20, 4)
        screen.feed(text[:cut])
        screen.feed(text[cut:])
        assert screen.snapshot() == whole.snapshot(), cut


def test_malformed_sequences_are_dropped_not_shown() -> None:
    screen = ours("a\x1b]0;broken\x1b[1mb\x1bPdcs\x1b[31mc")
    assert rows(screen)[0] == "abc"


def test_resize_keeps_text_and_moves_rows_to_the_scrollback() -> None:
    screen = ours("one\r\ntwo\r\nthree\r\nfour", width=10, height=4)
    screen.resize(6, 2)
    assert rows(screen) == ["three", "four"]
    assert screen.history_rows() == ["one   ", "two   "]
    assert screen.cursor_position() == (1, 4)
    screen.resize(8, 3)
    assert rows(screen) == ["three", "four", ""]
    assert all(len(cells) == 8 for cells in screen.vt.rows)


def test_shrinking_drops_blank_rows_below_the_cursor_first() -> None:
    screen = ours("one\r\ntwo", width=10, height=5)
    screen.resize(10, 3)
    assert rows(screen) == ["one", "two", ""]
    assert screen.history_rows() == []


def test_an_unterminated_string_is_not_buffered_forever() -> None:
    screen = Screen(20, 2)
    screen.feed("\x1b]0;" + "t" * 70_000)
    assert screen.vt._pending == "" and screen.vt._skipping == "]"  # skipped, not kept
    screen.feed("x" * 1000)  # still inside the OSC: nothing shows, nothing grows without bound
    screen.feed("\x07after")
    assert rows(screen)[0] == "after"
    endless = Screen(20, 2)
    for _ in range(200):
        endless.feed("\x1bP" + "d" * 1000)
    assert len(endless.vt._pending) <= 70_000


def test_no_scrollback_keeps_nothing() -> None:
    screen = ours("".join(f"{i}\r\n" for i in range(50)), width=5, height=2, scrollback=0)
    assert screen.history_rows() == []


def test_equal_to_stock_pyte_where_stock_pyte_is_right() -> None:
    text = "".join(
        f"\x1b[{i % 7 + 31}m{i:04d}\x1b[0m plain \x1b[1;4mbold under\x1b[22;24m \x1b[38;5;{i}mc{i}\x1b[39m\r\n"
        + ("\x1b[3;5H\x1b[K\x1b[2@ins\x1b[1P\x1b[5X" if i % 5 == 0 else "")
        + ("\x1b[2J\x1b[H" if i % 37 == 0 else "")
        for i in range(120)
    )
    theirs, mine = stock(text, 40, 10), ours(text, 40, 10)
    assert stock_rows(theirs) == rows(mine)
    assert (theirs.cursor.y, theirs.cursor.x) == mine.cursor_position()
    for y in range(10):
        for x in range(40):
            char, style = theirs.buffer[y][x], mine.style_at(y, x)
            if char.data.strip():
                assert (style.fg, style.bg, style.bold, style.underscore) == (
                    char.fg,
                    char.bg,
                    char.bold,
                    char.underscore,
                )


def test_endless_new_colours_keep_memory_bounded() -> None:
    import gc
    import random

    from workbench.terminal import style as style_module

    rng = random.Random(7)
    screen = Screen(80, 24, scrollback=0)  # the scrollback would keep its rows' styles, as it should
    for _ in range(40):
        screen.feed(
            "".join(
                f"\x1b[38;2;{rng.randrange(256)};{rng.randrange(256)};{rng.randrange(256)}mx"
                for _ in range(5000)
            )
        )
    gc.collect()
    alive = sum(1 for o in gc.get_objects() if isinstance(o, Style))
    assert len(style_module._INTERNED) <= style_module._INTERN_LIMIT
    assert alive < 2 * style_module._INTERN_LIMIT + 80 * 24 * 2
