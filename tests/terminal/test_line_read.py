"""`line_reader`: a program waiting in read() for a line from its terminal is told apart from one that
printed a line ending in ':' and reads nothing, from one reading keys in raw mode, and from one whose line
was typed but not yet read. Real programs in real ptys; each wait is for a state, never a fixed time."""

from __future__ import annotations

import os
import pty
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from workbench.terminal.line_read import _line_waiting, line_reader

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads Linux's /proc")

ASKS = "print('got', repr(input('Name: ')), flush=True); input('Again: ')"
PRINTS = "import time; print('Working:', flush=True); time.sleep(60)"
RAW = "import os, tty; tty.setraw(0); print('keys?', flush=True); os.read(0, 1)"


def output_until(fd: int, text: str) -> str:
    seen = ""
    while text not in seen:
        seen += os.read(fd, 1024).decode()
    return seen


def eventually(check: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return False


@pytest.fixture
def program() -> Iterator[Callable[[str], tuple[int, int]]]:
    started: list[int] = []

    def start(code: str) -> tuple[int, int]:
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.executable, [sys.executable, "-c", code])
        started.append(pid)
        return pid, fd

    yield start
    for pid in started:
        os.kill(pid, 9)
        os.waitpid(pid, 0)


def test_a_program_waiting_for_a_line_is_found_and_found_again_after_its_answer_is_read(program) -> None:  # type: ignore[no-untyped-def]
    pid, fd = program(ASKS)
    output_until(fd, "Name: ")
    assert eventually(lambda: line_reader(fd) == pid)
    os.write(fd, b"\r")
    output_until(fd, "Again: ")
    assert eventually(lambda: line_reader(fd) == pid), "the next read is a new question"


def test_output_ending_in_a_colon_and_raw_mode_reads_are_not_line_reads(program) -> None:  # type: ignore[no-untyped-def]
    pid, fd = program(PRINTS)
    output_until(fd, "Working:")
    assert line_reader(fd) is None
    pid, fd = program(RAW)
    output_until(fd, "keys?")
    syscall = Path(f"/proc/{pid}/syscall")
    assert eventually(lambda: syscall.read_text().startswith(("0 ", "63 ", "3 "))), "it waits in read()"
    assert line_reader(fd) is None, "a program in raw mode edits its own line: no free-text question here"


def test_a_line_typed_but_not_yet_read_is_waiting_at_once(program) -> None:  # type: ignore[no-untyped-def]
    pid, fd = program(PRINTS)
    output_until(fd, "Working:")
    terminal = f"/proc/{pid}/fd/0"
    assert not _line_waiting(terminal)
    os.write(fd, b"half")
    assert not _line_waiting(terminal), "no whole line yet"
    os.write(fd, b" a line\r")
    assert _line_waiting(terminal), "poll hands the line discipline what is in flight before it answers"
