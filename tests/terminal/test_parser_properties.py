"""Properties of the parser and screen for any input: split-invariant, never raising, always width x height."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from workbench.terminal import Screen
from workbench.terminal.width import char_width

SEQUENCES = [
    "\x1b[H", "\x1b[2J", "\x1b[K", "\x1b[1K", "\x1b[2K", "\x1b[J", "\x1b[1J", "\x1b[3J", "\x1b[0m", "\x1b[m",
    "\x1b[1;31m", "\x1b[38;5;208m", "\x1b[48;2;1;2;3m", "\x1b[38:2::255:0:0m", "\x1b[4:3m", "\x1b[2m",
    "\x1b[?1049h", "\x1b[?1049l", "\x1b[?47h", "\x1b[?47l", "\x1b[?1047h", "\x1b[?1047l", "\x1b[?1048h",
    "\x1b[?1048l", "\x1b[?25l", "\x1b[?25h", "\x1b[?7l", "\x1b[?7h", "\x1b[4h", "\x1b[4l", "\x1b[20h", "\x1b[20l",
    "\x1b[?6h", "\x1b[?6l", "\x1b[?5h", "\x1b[?5l", "\x1b[?3h", "\x1b[2;3r", "\x1b[r", "\x1b7", "\x1b8",
    "\x1b[s", "\x1b[u", "\x1bD", "\x1bE", "\x1bM", "\x1bc", "\x1b#8", "\x1b(0", "\x1b(B", "\x1b)0", "\x0e", "\x0f",
    "\x1b[6n", "\x1b[c", "\x1b[>c", "\x1b[5n", "\x1b[?6n", "\x1b]0;title\x07", "\x1b]2;t\x1b\\", "\x1b]11;?\x07",
    "\x1bP1$r\x1b\\", "\x1b[3@", "\x1b[2P", "\x1b[4X", "\x1b[2L", "\x1b[3M", "\x1b[2S", "\x1b[3T", "\x1b[5b",
    "\x1b[2I", "\x1b[Z", "\x1b[3g", "\x1bH", "\x1b[!p", "\x1b[2 q", "\x1b[>4;2m", "\x1b[99999;99999H",
    "\x1b[1;2A", "\x1b[0;0f", "\x1b[3d", "\x1b[10G", "\x1b[5`", "\x1b[2E", "\x1b[2F", "\x1b[a", "\x1b[e",
    "\r", "\n", "\r\n", "\t", "\x08", "\x07", "\x0b", "\x0c", "\x00", "\x7f", "\x9b", "\x1b", "\x1b[", "\x1b]",
]  # fmt: skip
UNICODE = ["\u4e2d", "\u6587", "\u2764", "\ufe0f", "\u200d", "\U0001f468", "\U0001f469", "\u0301", "\u00e9",
           "\U0001f1eb", "\u200b", "\u2500", "\u3000", "\U0001f3fd", "\ufffd", "\ud800"]  # fmt: skip

fragment = st.one_of(
    st.sampled_from(SEQUENCES),
    st.sampled_from(UNICODE),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30),
    st.builds(
        lambda a, b, f: f"\x1b[{a};{b}{f}",
        st.integers(0, 40),
        st.integers(0, 200),
        st.sampled_from("HfABCDrJKmhl"),
    ),
    st.text(max_size=5),
)
streams = st.lists(fragment, max_size=40).map("".join)
sizes = st.tuples(st.integers(1, 30), st.integers(1, 8))


def _feed(text: str, size: tuple[int, int], cuts: list[int]) -> Screen:
    screen = Screen(*size, scrollback=20)
    start = 0
    for cut in sorted(c % (len(text) + 1) for c in cuts):
        screen.feed(text[start:cut])
        start = cut
    screen.feed(text[start:])
    return screen


def _state(screen: Screen) -> tuple[object, ...]:
    return (screen.snapshot(), screen.history_rows(), screen.responses, screen.alternate, screen.title)


@settings(max_examples=300)
@given(text=streams, size=sizes, cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_any_split_into_reads_gives_the_same_screen_as_the_whole(
    text: str, size: tuple[int, int], cuts: list[int]
) -> None:
    assert _state(_feed(text, size, cuts)) == _state(_feed(text, size, []))


@settings(max_examples=300)
@given(text=streams, size=sizes)
def test_feeding_character_by_character_gives_the_same_screen(text: str, size: tuple[int, int]) -> None:
    whole = _feed(text, size, [])
    screen = Screen(*size, scrollback=20)
    for ch in text:
        screen.feed(ch)
    assert _state(screen) == _state(whole)


@settings(max_examples=400)
@given(text=streams, size=sizes)
@example(
    text="\u4e2d000\u4e2d\x1b[0;0A\u4e2d", size=(7, 2)
)  # a wrapping wide character cut the one before it
@example(text="\u4e2d000\u4e2d\r\x1b[6C\u4e2d", size=(7, 2))  # the same after any move to the last column
@example(text="ab\u4e2d\x1b[3D\u6587\x1b[1;3H\u4e2d\x1b[2D\u4e2d", size=(4, 2))
def test_the_screen_is_always_width_by_height_with_whole_wide_characters(
    text: str, size: tuple[int, int]
) -> None:
    width, height = size
    screen = _feed(text, size, [])
    shot = screen.snapshot()
    assert len(shot.rows) == height and len(screen.vt.rows) == height
    row, col = screen.cursor_position()
    assert 0 <= row < height and 0 <= col < width
    for cells in screen.vt.rows:
        assert len(cells) == width
        for x, cell in enumerate(cells):
            if cell == "":  # the second column of a wide character
                assert x > 0 and cells[x - 1] != "" and char_width(cells[x - 1][0]) == 2
            elif char_width(cell[0]) == 2:
                assert x + 1 < width and cells[x + 1] == ""
    text_lines = shot.text().split("\n")
    assert len(text_lines) == height
    assert shot.style_json()["height"] == height


@settings(max_examples=200)
@given(data=st.binary(max_size=200), size=sizes)
def test_arbitrary_bytes_never_raise(data: bytes, size: tuple[int, int]) -> None:
    screen = Screen(*size)
    screen.feed(data.decode("utf-8", errors="replace"))
    screen.feed(data.decode("latin-1"))
    screen.snapshot().to_svg()
    screen.snapshot().to_ansi()
