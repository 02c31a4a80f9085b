"""Key notation: text, named keys, modifiers, and what stays literal."""

from __future__ import annotations

import pytest

from workbench.terminal import encode_keys, expand_keys


def test_plain_text_is_typed_as_it_is() -> None:
    assert expand_keys("hello world") == "hello world"
    assert encode_keys("héllo 中") == "héllo 中".encode()


@pytest.mark.parametrize(
    ("notation", "sent"),
    [
        ("<Enter>", "\r"),
        ("<Tab>", "\t"),
        ("<Esc>", "\x1b"),
        ("<Up>", "\x1b[A"),
        ("<Down>", "\x1b[B"),
        ("<Right>", "\x1b[C"),
        ("<Left>", "\x1b[D"),
        ("<Home>", "\x1b[H"),
        ("<End>", "\x1b[F"),
        ("<PageUp>", "\x1b[5~"),
        ("<PageDown>", "\x1b[6~"),
        ("<BS>", "\x7f"),
        ("<Delete>", "\x1b[3~"),
        ("<S-Tab>", "\x1b[Z"),
        ("<F1>", "\x1bOP"),
        ("<F5>", "\x1b[15~"),
        ("<F12>", "\x1b[24~"),
        ("<C-c>", "\x03"),
        ("<C-a>", "\x01"),
        ("<C-z>", "\x1a"),
        ("<C-[>", "\x1b"),
        ("<M-x>", "\x1bx"),
        ("<A-x>", "\x1bx"),
        ("<M-Enter>", "\x1b\r"),
        ("<lt>", "<"),
    ],
)
def test_named_keys(notation: str, sent: str) -> None:
    assert expand_keys(notation) == sent
    assert encode_keys(notation) == sent.encode()


@pytest.mark.parametrize(("notation", "sent"), [("<enter>", "\r"), ("<ENTER>", "\r"), ("<c-C>", "\x03"),
                                                 ("<C-C>", "\x03"), ("<up>", "\x1b[A"), ("<f5>", "\x1b[15~"),
                                                 ("<LT>", "<")])  # fmt: skip
def test_names_are_case_insensitive(notation: str, sent: str) -> None:
    assert expand_keys(notation) == sent


def test_keys_mixed_with_text() -> None:
    assert expand_keys("ls -la<Enter>") == "ls -la\r"
    assert expand_keys("a<Tab>b<C-c>") == "a\tb\x03"
    assert expand_keys("<lt>Enter>") == "<Enter>"  # an escaped bracket is not a key name
    assert encode_keys("1+2<Enter>") == b"1+2\r"


@pytest.mark.parametrize(
    "text", ["<Foo>", "a <b> c", "if a <b> c", "<C-1>", "<M->", "< Enter>", "<>", "x < y > z"]
)
def test_unknown_names_stay_literal(text: str) -> None:
    assert expand_keys(text) == text


def test_unknown_and_known_together() -> None:
    assert expand_keys("<Foo><Enter>") == "<Foo>\r"
    assert expand_keys("a <b> c<Enter>") == "a <b> c\r"
