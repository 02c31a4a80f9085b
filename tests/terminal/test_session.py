"""PtySession with real programs in real pseudo-terminals."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from workbench.terminal import AsciicastRecorder, WaitTimeout
from workbench.terminal.screen import attrs_of

from .helpers import PYTHON, TIMEOUT, rows, run, session


def test_printf_output_reaches_the_screen() -> None:
    async def body() -> None:
        async with session(["printf", r"hello\n\033[31mred\033[0m world\n"]) as s:
            assert await s.wait_exit(TIMEOUT) == 0
            assert rows(s)[:2] == ["hello", "red world"]
            assert attrs_of(s.screen.buffer[1][0]).fg == "red"
            assert attrs_of(s.screen.buffer[1][4]).fg == "default"
            assert s.bytes_read > 0

    run(body)


def test_wait_for_text_with_str_and_regex() -> None:
    async def body() -> None:
        async with session(["sh", "-c", "sleep 0.2; echo 'answer: 42'; sleep 30"]) as s:
            assert await s.wait_for_text("answer", TIMEOUT) == "answer"
            assert await s.wait_for_text(re.compile(r"answer: (\d+)"), TIMEOUT) == "answer: 42"
            assert s.alive

    run(body)


def test_wait_for_text_timeout_shows_the_screen() -> None:
    async def body() -> None:
        async with session(["sh", "-c", "echo visible-thing; sleep 30"]) as s:
            await s.wait_for_text("visible-thing", TIMEOUT)
            with pytest.raises(WaitTimeout) as info:
                await s.wait_for_text("never-shown", 0.3)
            message = str(info.value)
            assert "never-shown" in message
            assert "visible-thing" in message
            with pytest.raises(WaitTimeout) as info:
                await s.wait_for_text(re.compile(r"nope\d"), 0.2)
            assert "nope" in str(info.value) and "visible-thing" in str(info.value)

    run(body)


def test_wait_for_text_after_exit_does_not_hang() -> None:
    async def body() -> None:
        async with session(["sh", "-c", "echo done"]) as s:
            await s.wait_exit(TIMEOUT)
            with pytest.raises(WaitTimeout) as info:
                await s.wait_for_text("absent", 600)  # must fail at once, not after 600 s
            assert "done" in str(info.value)
        async with session(["sh", "-c", "echo bye"]) as s:  # exits while we wait
            with pytest.raises(WaitTimeout) as info:
                await s.wait_for_text("absent", 600)
            assert "bye" in str(info.value)

    run(body)


@pytest.mark.parametrize(("script", "code"), [("exit 0", 0), ("exit 3", 3), ("kill -TERM $$", 128 + 15)])
def test_wait_exit_returns_the_exit_code(script: str, code: int) -> None:
    async def body() -> None:
        async with session(["sh", "-c", script]) as s:
            assert await s.wait_exit(TIMEOUT) == code
            assert s.exit_code == code
            assert not s.alive

    run(body)


def test_wait_exit_timeout() -> None:
    async def body() -> None:
        async with session(["sh", "-c", "echo still-running; sleep 30"]) as s:
            await s.wait_for_text("still-running", TIMEOUT)
            with pytest.raises(WaitTimeout) as info:
                await s.wait_exit(0.2)
            assert "still-running" in str(info.value)

    run(body)


def test_typing_into_cat_echoes() -> None:
    async def body() -> None:
        async with session(["cat"]) as s:
            s.write("hello cat<Enter>")
            await s.wait_for_text(re.compile(r"hello cat\n\s*hello cat"), TIMEOUT)
            assert rows(s)[:2] == ["hello cat", "hello cat"]
            s.write("<C-d>")
            assert await s.wait_exit(TIMEOUT) == 0

    run(body)


def test_typing_into_bash_with_keys() -> None:
    async def body() -> None:
        async with session(["bash", "--norc", "--noprofile"]) as s:
            await s.wait_for_text("$", TIMEOUT)
            s.write("echo one<Enter>")
            await s.wait_for_text(re.compile(r"^one$", re.M), TIMEOUT)
            # Up recalls the last command; C-a goes to the start of the line.
            s.write("<Up><C-a>X=1 <Enter>")
            await s.wait_for_text("X=1 echo one", TIMEOUT)
            await s.wait_for_text(re.compile(r"X=1 echo one\none$", re.M), TIMEOUT)
            s.write("exit 7<Enter>")
            assert await s.wait_exit(TIMEOUT) == 7

    run(body)


def test_resize_is_seen_by_the_program() -> None:
    async def body() -> None:
        async with session(["bash", "--norc", "--noprofile"], width=80, height=24) as s:
            await s.wait_for_text("$", TIMEOUT)
            s.write("stty size<Enter>")
            await s.wait_for_text(re.compile(r"^24 80$", re.M), TIMEOUT)
            s.resize(100, 30)
            assert (s.screen.columns, s.screen.lines) == (100, 30)
            assert len(s.screen.text_rows()) == 30
            assert all(len(row) == 100 for row in s.screen.text_rows())
            s.write("stty size<Enter>")
            await s.wait_for_text(re.compile(r"^30 100$", re.M), TIMEOUT)

    run(body)


def test_utf8_split_across_reads() -> None:
    script = textwrap.dedent(
        """
        import os, time
        for b in "中".encode() + "é!".encode():
            os.write(1, bytes([b]))
            time.sleep(0.05)
        """
    )

    async def body() -> None:
        async with session([PYTHON, "-c", script]) as s:
            assert await s.wait_exit(TIMEOUT) == 0
            assert rows(s)[0] == "中é!"
            assert "\ufffd" not in "".join(s.screen.text_rows())

    run(body)


def test_invalid_bytes_become_replacement_characters() -> None:
    async def body() -> None:
        async with session(["printf", r"a\377\376b\300z\n"]) as s:
            assert await s.wait_exit(TIMEOUT) == 0
            assert rows(s)[0] == "a\ufffd\ufffdb\ufffdz"

    run(body)


def test_cursor_position_query_is_answered() -> None:
    script = textwrap.dedent(
        """
        import os, select, sys, termios, tty
        fd = sys.stdin.fileno()
        old = termios.tcgetattr(fd)
        tty.setraw(fd)
        os.write(1, b"\\x1b[4;7H\\x1b[6n")
        got = b""
        while not got.endswith(b"R"):
            ready, _, _ = select.select([fd], [], [], 10)
            if not ready:
                break
            got += os.read(fd, 64)
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
        print("\\r\\nGOT " + repr(got))
        """
    )

    async def body() -> None:
        async with session([PYTHON, "-c", script]) as s:
            await s.wait_for_text("GOT", TIMEOUT)
            assert "GOT b'\\x1b[4;7R'" in "\n".join(rows(s))
            assert await s.wait_exit(TIMEOUT) == 0

    run(body)


def test_asciicast_recording(tmp_path: Path) -> None:
    cast = tmp_path / "rec" / "session.cast"

    async def body() -> None:
        recorder = AsciicastRecorder(cast, 80, 24, title="demo")
        async with session(
            ["sh", "-c", "printf 'one\\n'; sleep 0.1; printf '中 two\\n'"], recorder=recorder
        ) as s:
            await s.wait_for_text("one", TIMEOUT)
            recorder.marker("after-one")
            assert await s.wait_exit(TIMEOUT) == 0
            s.resize(90, 20)
            recorder.marker("end")
        recorder.close()
        recorder.output("ignored after close")

    run(body)
    lines = cast.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]  # every line is valid JSON
    header = records[0]
    assert header["version"] == 2
    assert (header["width"], header["height"]) == (80, 24)
    assert header["title"] == "demo"
    events = records[1:]
    assert all(isinstance(e, list) and len(e) == 3 and isinstance(e[0], float | int) for e in events)
    times = [e[0] for e in events]
    assert times == sorted(times)
    output = "".join(e[2] for e in events if e[1] == "o")
    assert "one" in output and "中 two" in output
    assert [e[2] for e in events if e[1] == "m"] == ["after-one", "end"]
    assert [e[2] for e in events if e[1] == "r"] == ["90x20"]
    assert "ignored" not in cast.read_text(encoding="utf-8")


def test_wait_stable_returns_after_output_stops() -> None:
    async def body() -> None:
        async with session(
            ["sh", "-c", "for i in 1 2 3 4 5; do echo tick$i; sleep 0.05; done; sleep 30"]
        ) as s:
            await s.wait_stable(300, TIMEOUT)
            assert "tick5" in rows(s)
            assert s.alive

    run(body)


def test_wait_stable_times_out_while_output_continues() -> None:
    async def body() -> None:
        async with session(["yes", "busy"]) as s:
            await s.wait_for_text("busy", TIMEOUT)
            with pytest.raises(WaitTimeout) as info:
                await s.wait_stable(1000, 2.0)
            assert "busy" in str(info.value)

    run(body)


def test_spawn_missing_program() -> None:
    async def body() -> None:
        with pytest.raises(FileNotFoundError, match="no-such-program-xyz"):
            async with session(["no-such-program-xyz"]):
                pass

    run(body)


def test_terminate_is_idempotent_and_writes_after_close_are_ignored() -> None:
    async def body() -> None:
        async with session(["sleep", "30"]) as s:
            await s.terminate()
            assert not s.alive
            assert s.exit_code == 128 + 1 or s.exit_code == 128 + 15 or s.exit_code == 128 + 9
            await s.terminate()
            s.write("ignored<Enter>")

    run(body)
