"""Key notation: names in angle brackets become the bytes a terminal sends; anything else stays text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.terminal import KEY_NAMES, encode_keys
from workbench.terminal.keys import split_keys


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ls<Enter>", b"ls\r"),
        ("<Tab><Esc><BS><Backspace>", b"\t\x1b\x7f\x7f"),
        ("<Up><Down><Right><Left>", b"\x1b[A\x1b[B\x1b[C\x1b[D"),
        ("<Home><End><PageUp><PageDown>", b"\x1b[H\x1b[F\x1b[5~\x1b[6~"),
        ("<Delete><Insert>", b"\x1b[3~\x1b[2~"),
        ("<C-a><C-c><C-z>", b"\x01\x03\x1a"),
        ("<M-x><A-b>", b"\x1bx\x1bb"),
        ("<M-Enter>", b"\x1b\r"),
        ("<F1><F4><F5><F12>", b"\x1bOP\x1bOS\x1b[15~\x1b[24~"),
        ("a<Space>b", b"a b"),
        ("<lt>Enter>", b"<Enter>"),
        ("<enter><c-C>", b"\r\x03"),
        ("é<Enter>", "é\r".encode()),
    ],
)
def test_key_names_become_terminal_bytes(text: str, expected: bytes) -> None:
    assert encode_keys(text) == expected


@pytest.mark.parametrize(
    "text", ["if a <b> c", "<Foo>", "<>", "< Enter>", "a < b", "<C-1>", "<F13>", "<Enter"]
)
def test_anything_that_is_not_a_key_name_stays_literal(text: str) -> None:
    assert encode_keys(text) == text.encode()


def test_every_listed_key_name_encodes_to_a_key() -> None:
    for name in KEY_NAMES:
        assert encode_keys(f"<{name}>") != f"<{name}>".encode(), name
    assert {"Enter", "Tab", "Esc", "BS", "Space", "C-c", "F1", "F12", "Up", "PageDown", "lt"} <= set(
        KEY_NAMES
    )


def test_split_keys_is_the_keys_a_person_presses() -> None:
    assert split_keys("a<Enter>é<C-c><nope>") == [
        b"a",
        b"\r",
        "é".encode(),
        b"\x03",
        *(c.encode() for c in "<nope>"),
    ]
    assert b"".join(split_keys("x <Up> y<Tab>")) == encode_keys("x <Up> y<Tab>")
    assert split_keys("") == []
    # a key that sends several bytes is one key: ctrl+up, Alt+x, a lone ESC before another key
    assert split_keys("<Up>\x1b[1;5Ax<M-x><Esc><Esc>") == [
        b"\x1b[A",
        b"\x1b[1;5A",
        b"x",
        b"\x1bx",
        b"\x1b",
        b"\x1b",
    ]


@given(
    st.lists(
        st.sampled_from(
            ["<", ">", "Enter", "C-c", "Up", "x", " ", "é", "\n", "nope", "\x1b", "[", "O", "1;5"]
        )
    ).map("".join)
)
def test_the_keys_typed_one_by_one_are_the_bytes_written_at_once(text: str) -> None:
    assert b"".join(split_keys(text)) == encode_keys(text)
