"""Our screen against a real terminal: the same programs in a PtySession and in tmux, same text grid.

Each test writes a small shell script that sets the environment and runs a
real program, then runs it both in our :class:`PtySession` and in a detached
tmux session (a unique server socket per test, killed afterwards), sends both
the same bytes, waits until both show the expected text and have been quiet a
moment, and compares the rows (trailing spaces stripped) and the cursor.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.terminal import PtySession

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

QUIET = 0.3
TIMEOUT = 20.0


class Tmux:
    """One detached tmux server and session running a script."""

    def __init__(self, folder: Path, width: int, height: int) -> None:
        self.socket = f"wbtest-{os.getpid()}-{uuid.uuid4().hex[:10]}"
        self.width, self.height = width, height
        self.conf = folder / "tmux.conf"
        self.conf.write_text(
            "set -g status off\nset -g default-terminal xterm-256color\nset -g history-limit 1000\n"
        )

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, script: Path) -> None:
        self.tmux("-u", "-f", str(self.conf), "new-session", "-d", "-x", str(self.width), "-y", str(self.height),
                  f"sh {script}; exec sleep 600")  # fmt: skip

    def send(self, data: bytes) -> None:
        if data:
            self.tmux("send-keys", "-H", *(f"{b:02x}" for b in data))

    def rows(self) -> list[str]:
        lines = self.tmux("capture-pane", "-p").split("\n")[: self.height]
        return [line.rstrip() for line in lines] + [""] * (self.height - len(lines))

    def cursor(self) -> tuple[int, int]:
        x, y = self.tmux("display", "-p", "#{cursor_x} #{cursor_y}").split()
        return int(y), min(int(x), self.width - 1)

    def settle(self, expected: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        last: tuple[list[str], tuple[int, int]] | None = None
        while time.monotonic() < deadline:
            now = (self.rows(), self.cursor())
            if now == last and expected.rstrip() in "\n".join(now[0]):  # tmux's rows come trimmed
                return
            last = now
            time.sleep(QUIET)
        raise AssertionError(f"tmux never showed {expected!r}:\n" + "\n".join(self.rows()))

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def tmux_factory(tmp_path: Path) -> Iterator[list[Tmux]]:
    servers: list[Tmux] = []
    yield servers
    for server in servers:
        server.close()


def make_script(folder: Path, body: str) -> Path:
    script = folder / "run.sh"
    script.write_text(
        "export LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color HOME=" + str(folder) + " LESSHISTFILE=-\n"
        "unset LESS LS_COLORS TMUX PROMPT_COMMAND\n" + body + "\n"
    )
    return script


def agree(
    folder: Path,
    servers: list[Tmux],
    body: str,
    steps: list[tuple[bytes, str]],
    width: int = 60,
    height: int = 16,
) -> list[str]:
    """Run ``body`` in both terminals, play ``steps`` (bytes to send, text to wait for), compare after each."""
    script = make_script(folder, body)
    server = Tmux(folder, width, height)
    servers.append(server)
    server.start(script)

    async def ours() -> list[tuple[list[str], tuple[int, int]]]:
        seen = []
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        async with await PtySession.spawn(["sh", str(script)], env=environment, cwd=str(folder), width=width,
                                          height=height) as session:  # fmt: skip
            for data, expected in steps:
                session.write_bytes(data)
                await session.wait_for_text(expected, TIMEOUT)
                await session.wait_stable(int(QUIET * 1000), TIMEOUT)
                seen.append(
                    ([row.rstrip() for row in session.screen.text_rows()], session.screen.cursor_position())
                )
        return seen

    theirs = []
    for data, expected in steps:
        server.send(data)
        server.settle(expected)
        theirs.append((server.rows(), server.cursor()))
    mine = asyncio.run(ours())
    for index, ((rows, cursor), (their_rows, their_cursor)) in enumerate(zip(mine, theirs, strict=True)):
        assert rows == their_rows, (
            f"step {index}: ours\n" + "\n".join(rows) + "\n--- tmux\n" + "\n".join(their_rows)
        )
        assert cursor == their_cursor, f"step {index}: cursor ours {cursor}, tmux {their_cursor}"
    return mine[-1][0]


def test_coloured_ls(tmp_path: Path, tmux_factory: list[Tmux]) -> None:
    files = tmp_path / "files"
    (files / "a_directory").mkdir(parents=True)
    for name in ("alpha.txt", "beta.py", "\u4e2d\u6587.txt", "archive.tar.gz", "README.md"):
        (files / name).write_text("x\n")
    tool = files / "run_me.sh"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    (files / "link").symlink_to("alpha.txt")
    body = f"cd {files}\nls --color=always -C\nls --color=always -1\nprintf 'END\\n'"
    rows = agree(tmp_path, tmux_factory, body, [(b"", "END")], width=50, height=16)
    assert any("a_directory" in row for row in rows)


def test_python_repl(tmp_path: Path, tmux_factory: list[Tmux]) -> None:
    steps = [
        (b"", ">>> "),
        (b"6*7\r", "42"),
        (b"print('\\u4e2d\\u6587 ok', '\\u2764\\ufe0f', 'x' * 70)\r", "\u4e2d\u6587 ok"),
        (b"for i in range(3):\r", "... "),
        (b"    print(i * 11)\r\r", "22"),
    ]
    rows = agree(tmp_path, tmux_factory, f"exec {sys.executable} -q", steps, width=60, height=12)
    assert "42" in rows


@pytest.mark.skipif(shutil.which("less") is None, reason="less is not installed")
def test_less_uses_the_alternate_screen_and_restores_the_shell(
    tmp_path: Path, tmux_factory: list[Tmux]
) -> None:
    page = tmp_path / "page.txt"
    page.write_text("".join(f"line {i} of the file \u4e2d\n" for i in range(1, 200)))
    body = f"printf 'before less\\n'\nless {page}\nprintf 'after less\\n'"
    rows = agree(tmp_path, tmux_factory, body, [(b"", "line 1 of"), (b" ", "line 18 of"), (b"q", "after less")],
                 width=50, height=10)  # fmt: skip
    assert rows[0] == "before less" and rows[1] == "after less"


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
def test_vim_uses_the_alternate_screen_and_restores_the_shell(
    tmp_path: Path, tmux_factory: list[Tmux]
) -> None:
    text = tmp_path / "text.txt"
    text.write_text("".join(f"row {i}: some text\n" for i in range(1, 40)))
    body = f"printf 'before vim\\n'\nvim -u NONE -N -i NONE -n {text}\nprintf 'after vim\\n'"
    steps = [(b"", "row 1:"), (b"Gkk", "row 39:"), (b":q\r", "after vim")]
    rows = agree(tmp_path, tmux_factory, body, steps, width=50, height=10)
    assert rows[0] == "before vim" and rows[1] == "after vim"


def test_emoji_and_cjk_followed_by_text(tmp_path: Path, tmux_factory: list[Tmux]) -> None:
    samples = [
        "A\u2764\ufe0fB after heart",
        "\u2714\ufe0f done | \u26a0\ufe0f warn |",
        "\U0001f468\u200d\U0001f469\u200d\U0001f467 family |",
        "\U0001f9d1\u200d\U0001f4bb coder | \u2764\ufe0f\u200d\U0001f525 fire |",
        "\u4e2d\u6587\u5b57 cjk | \uac00\ub098 hangul |",
        "\U0001f600 grin | \U0001f44d\U0001f3fd thumbs |",
        "e\u0301te\u0301 accents |",
        "\U0001f1eb\U0001f1f7 flag |",
    ]
    printf = "".join(f"printf '%s\\n' '{line}'\n" for line in samples)
    edges = (
        "printf '%s\\n' 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\u4e2dafter wrap'\n"  # 39 x: the wide char wraps
        # Overwrite halves of wide characters. (Not at column 0: there tmux 3.3a keeps the wide character
        # when its second half is overwritten, a row wider than the screen; elsewhere it blanks it, as we do.)
        "printf 'ab\u4e2d\u6587\u5b57\\r\\033[3Cx\\033[3Cy\\n'\n"
        # A ZWJ before an ASCII letter joins nothing. (tmux 3.3a keeps it pending across ASCII text and
        # newlines and joins the next non-ASCII character onto whatever cell precedes it; we drop it, so
        # this case comes last and nothing non-ASCII follows.)
        "printf '%s\\n' 'a\u200db joiner between letters |'\n"
        "printf 'END'"
    )
    agree(tmp_path, tmux_factory, printf + edges, [(b"", "END")], width=40, height=16)


def test_cursor_movement_with_tput_and_printf(tmp_path: Path, tmux_factory: list[Tmux]) -> None:
    body = "\n".join(
        [
            "tput clear",
            "tput cup 3 5; printf A; tput cuu1; printf B; tput cub 3; printf C; tput cud 2; printf D",
            "tput cup 0 0; printf 'top line that is long'; tput cup 0 8; tput el; printf '|'",
            "tput cup 1 0; printf 'abcdefghij'; tput cup 1 3; tput ich 2; tput cup 1 1; tput dch 1; tput cup 1 6; tput ech 2",
            "tput cup 8 0; printf 'a\\tb\\tc\\td'",
            "tput sc; tput cup 12 2; printf saved; tput rc; printf R",
            "tput cup 9 0; printf 'wrap: %s' 0123456789012345678901234567890123456789",
            "printf '\\033[14;1Hfirst\\r\\nsecond\\033[13;1H\\033[L\\033[14;1H\\033[M'",
            "printf '\\033[5;7r\\033[7;1Hs1\\ns2\\ns3\\ns4\\033[r'",
            "printf '\\033[16;1H\\033[?7lno wrap: 01234567890123456789012345678901234567\\033[?7h'",
            "printf '\\033[15;1H-\\033[9b'",
            "printf '\\033[11;1Hvpa\\033[3dX\\033[12Gcha\\033[2;30Hend'",
        ]
    )
    agree(tmp_path, tmux_factory, body, [(b"", "end")], width=40, height=16)


def test_scrolling_output_and_clear(tmp_path: Path, tmux_factory: list[Tmux]) -> None:
    body = "for i in $(seq 1 60); do echo \"line $i with \u4e2d\"; done\nprintf '\\033[3;1H\\033[J'\nprintf 'END'"
    agree(tmp_path, tmux_factory, body, [(b"", "END")], width=30, height=10)
