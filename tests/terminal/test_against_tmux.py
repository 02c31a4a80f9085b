"""Our screen against tmux 3.3: the same command in both gives the same text grid."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
import unicodedata
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from workbench.terminal import PtySession

from .helpers import PYTHON, TIMEOUT, term_env

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

W, H = 80, 24
SETTLE = 0.3  # a grid must stay the same this long (on top of showing its marker) to count as final


@dataclass
class Step:
    """Type ``keys`` (our notation) / ``tmux_keys`` (send-keys arguments), then wait for ``expect``."""

    keys: str
    tmux_keys: list[list[str]]
    expect: str


@dataclass
class Case:
    command: str
    expect: str  # shown once the command's output is complete
    steps: list[Step] = field(default_factory=list)


def normalise(rows: list[str]) -> list[str]:
    """Trailing spaces and empty rows dropped; NFC, as ours joins a combining mark into one character (é)."""
    out = [unicodedata.normalize("NFC", row).rstrip(" ") for row in rows]
    while out and not out[-1]:
        out.pop()
    return out


def full_command(command: str) -> str:
    return f"{command}; sleep 30"


async def ours(case: Case) -> list[str]:
    s = await PtySession.spawn(
        ["sh", "-c", full_command(case.command)], env=term_env(), cwd="/", width=W, height=H
    )
    try:

        async def settle(expect: str) -> None:
            await s.wait_for_text(expect, TIMEOUT)
            await s.wait_stable(int(SETTLE * 1000), TIMEOUT)

        await settle(case.expect)
        for step in case.steps:
            s.write(step.keys)
            await settle(step.expect)
        return normalise(s.screen.text_rows())
    finally:
        await s.terminate()


def theirs(case: Case) -> list[str]:
    socket = f"wbtest-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    env = term_env()
    base = ["tmux", "-u", "-L", socket, "-f", "/dev/null"]

    def tmux(*args: str) -> str:
        done = subprocess.run(
            [*base, *args], env=env, capture_output=True, text=True, timeout=TIMEOUT, check=True
        )
        return done.stdout

    def capture() -> list[str]:
        return tmux("capture-pane", "-p", "-t", "wb").split("\n")[:H]

    def settle(expect: str) -> list[str]:
        deadline = time.monotonic() + TIMEOUT
        last: list[str] | None = None
        since = time.monotonic()
        while True:
            grid = capture()
            shown = "\n".join(grid)
            if grid != last:
                last, since = grid, time.monotonic()
            elif expect in shown and time.monotonic() - since >= SETTLE:
                return grid
            if time.monotonic() > deadline:
                raise AssertionError(f"tmux never showed {expect!r}; the screen:\n{shown}")
            time.sleep(0.05)

    command = f"export TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8; {full_command(case.command)}"
    # "sh -c": the same shell as ours (a single tmux argument would go to the user's shell instead).
    tmux("new-session", "-d", "-s", "wb", "-x", str(W), "-y", str(H), "sh", "-c", command)
    socket_path = tmux("display-message", "-p", "-t", "wb", "#{socket_path}").strip()
    try:
        grid = settle(case.expect)
        for step in case.steps:
            for keys in step.tmux_keys:
                tmux("send-keys", "-t", "wb", *keys)
            grid = settle(step.expect)
        return normalise(grid)
    finally:
        subprocess.run([*base, "kill-server"], env=env, capture_output=True, timeout=TIMEOUT, check=False)
        if socket_path:
            Path(socket_path).unlink(missing_ok=True)


def compare(case: Case) -> list[str]:
    mine = asyncio.run(ours(case))
    reference = theirs(case)
    assert mine == reference, "ours:\n" + "\n".join(mine) + "\n\ntmux:\n" + "\n".join(reference)
    return mine


def test_ls_color(tmp_path: Path) -> None:
    folder = tmp_path / "listing"
    folder.mkdir()
    for name in ["alpha.txt", "beta.py", "gamma with space.md", "中文.txt", "archive.tar.gz"]:
        (folder / name).write_text("x")
    (folder / "subdir").mkdir()
    script = folder / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    (folder / "link").symlink_to("alpha.txt")
    grid = compare(
        Case(
            f"cd {folder} && ls --color=always && ls -l --color=always | tail -n +2 | cut -c 30-; echo END-LS",
            "END-LS",
        )
    )
    assert any("subdir" in row for row in grid)


def test_python_repl() -> None:
    case = Case(
        f"env PYTHON_BASIC_REPL=1 {PYTHON} -q",
        ">>>",
        [Step("1+2<Enter>", [["-l", "1+2"], ["Enter"]], "3\n>>>"),
         Step("'中'*3<Enter>", [["-l", "'中'*3"], ["Enter"]], "中中中'\n>>>")],
    )  # fmt: skip
    grid = compare(case)
    assert grid[:4] == [">>> 1+2", "3", ">>> '中'*3", "'中中中'"]


@pytest.mark.skipif(shutil.which("less") is None, reason="less is not installed")
def test_less_then_quit_restores_primary(tmp_path: Path) -> None:
    text = tmp_path / "text.txt"
    text.write_text("".join(f"file line {i}\n" for i in range(1, 60)))
    case = Case(
        f"echo before-less; less {text}; echo after-less",
        "file line 20",
        [Step("q", [["q"]], "after-less")],
    )
    grid = compare(case)
    assert grid[0] == "before-less"
    assert "file line 20" not in "\n".join(grid)


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
def test_vim_then_quit_restores_primary(tmp_path: Path) -> None:
    text = tmp_path / "vimtext.txt"
    text.write_text("hello from vim\n中文 line\n")
    case = Case(
        f"echo before-vim; vim -u NONE -N -i NONE {text}; echo after-vim",
        "hello from vim",
        [Step(":q<Enter>", [["-l", ":q"], ["Enter"]], "after-vim")],
    )
    grid = compare(case)
    assert grid[0] == "before-vim"
    assert "hello from vim" not in "\n".join(grid)


def test_emoji_and_cjk_widths(tmp_path: Path) -> None:
    lines = [
        "A\u2764\ufe0fB hello",  # VS16 does not widen
        "\U0001f468\u200d\U0001f469\u200d\U0001f467 family then text",  # ZWJ sequence: one 2-column cell
        "\u4e2d\u6587 CJK then ascii",
        "\U0001f600 grin|end",
        "e\u0301 combining|end",
        "x" * 79 + "\u4e2d wraps",  # a wide character that does not fit in the last column
        "\u4e2d\u6587\u4e2d\u6587\u4e2d\u6587\u4e2d\u6587\u4e2d\u6587|",
    ]
    text = tmp_path / "emoji.txt"
    text.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    grid = compare(
        Case(f"cat {text}; printf 'tail \\342\\235\\244\\357\\270\\217 ok\\n'; echo END-EMOJI", "END-EMOJI")
    )
    assert grid[0] == "A\u2764\ufe0fB hello"
    assert grid[1].endswith(" family then text")


def test_cursor_movement_with_tput() -> None:
    grid = compare(
        Case("clear; tput cup 5 10; printf X; tput cup 2 3; printf Y; tput cup 8 0; echo END-CUP", "END-CUP")
    )
    assert grid[5] == " " * 10 + "X"
    assert grid[2] == "   Y"


def test_erase_and_scroll() -> None:
    command = (
        r"seq 1 40; printf '\033[2J\033[Hcleared\n'; printf 'abcdefgh\033[3D\033[K|\n'; "
        r"printf 'keep this\r\033[1Cx\033[0K\n'; seq 100 130; printf 'tail\033[1;1H\033[2Ktop'; "
        r"printf '\033[24;1HEND-ERASE'"
    )
    grid = compare(Case(command, "END-ERASE"))
    assert grid[0] == "top"
    assert grid[-1] == "END-ERASE"


def test_a_wide_character_that_wraps_leaves_one_ending_in_the_last_column_whole() -> None:
    """Hypothesis found it (`中000中\\x1b[0;0A中` at 7x2): the wrap must not blank the last column's cell."""
    wide = r"\344\270\255"
    command = (
        rf"printf '\033[H\033[2J%s{wide}\033[A{wide}\033[6C{wide}{wide}\n' $(printf 'a%.0s' $(seq 78)); "
        "echo END-WIDE"
    )
    grid = compare(Case(command, "END-WIDE"))
    assert grid[0] == "a" * 78 + "\u4e2d"
    assert grid[1].startswith("\u4e2d")


def test_restoring_the_cursor_restores_the_origin_mode_and_leaves_autowrap_alone() -> None:
    """Hypothesis found it against stock pyte (``ESC[0;2H ESC7 ESC[?7l ESC[H ESC8 00`` at 2x2): what ``ESC 8``
    brings back. Autowrap switched off after the save stays off (the third letter overwrites the last
    column); the origin mode comes back as saved, on (the second line's X at the margin's top) or off."""
    command = (
        r"printf '\033[2J\033[1;79H\0337\033[?7l\033[H\0338ABC\033[?7h'; "  # row 1: ...AC
        r"printf '\033[5;10r\033[?6h\0337\033[?6l\0338\033[HX\033[?6l\033[r'; "  # X on row 5
        r"printf '\033[7;10r\0337\033[?6h\0338\033[HY\033[?6l\033[r'; "  # Y on row 1: origin saved off
        r"printf '\033[20;1H'; echo END-DECRC"
    )
    grid = compare(Case(command, "END-DECRC"))
    assert grid[0] == "Y" + " " * 77 + "AC"
    assert grid[4] == "X"
