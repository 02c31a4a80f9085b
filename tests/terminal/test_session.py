"""PtySession with real programs: input and keys, reads, waits, exit codes, queries, resize, recording."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from workbench.terminal import AsciicastRecorder, PtySession, WaitTimeout
from workbench.terminal.keys import split_keys
from workbench.terminal.reading import unread_input

from .helpers import PYTHON, alive, run, term_env

PY = PYTHON


def env() -> dict[str, str]:
    return term_env()


async def spawn(argv: list[str], width: int = 40, height: int = 8, **kw: object) -> PtySession:
    return await PtySession.spawn(argv, env=env(), cwd=os.getcwd(), width=width, height=height, **kw)  # type: ignore[arg-type]


def test_output_reaches_the_screen_and_the_exit_code_is_returned() -> None:
    async def go() -> None:
        async with await spawn(["sh", "-c", "printf 'hello\\033[1;31m red\\033[0m'; exit 3"]) as session:
            assert await session.wait_exit(10) == 3
            assert session.exit_code == 3 and not session.alive
            assert session.screen.text_rows()[0].startswith("hello red")
            assert session.screen.style_at(0, 6).fg == "red"
            assert session.bytes_read == len(b"hello\x1b[1;31m red\x1b[0m")

    run(go)


def test_a_program_killed_by_a_signal_exits_with_128_plus_the_signal() -> None:
    async def go() -> None:
        async with await spawn(["sh", "-c", "kill -9 $$"]) as session:
            assert await session.wait_exit(10) == 128 + signal.SIGKILL

    run(go)


def test_typing_text_and_keys_into_a_shell() -> None:
    async def go() -> None:
        async with await spawn(["sh"], width=60) as session:
            await session.wait_for_text(re.compile(r"^[$#] ", re.M), 10)
            session.write("echo one<Tab>two<Enter>")
            await session.wait_for_text(re.compile(r"^one two$", re.M), 10)
            session.write("cat<Enter>")
            await session.wait_stable(200, 10)
            session.write("abc")
            await session.wait_for_text("abc", 10)
            session.write("<C-c>")
            await session.wait_for_text("^C", 10)
            await session.wait_stable(200, 10)
            session.write("echo $((6*7))<Enter>")
            await session.wait_for_text("42", 10)
            session.write("exit 0<Enter>")
            assert await session.wait_exit(10) == 0

    run(go)


def test_a_utf8_character_split_across_reads_and_invalid_bytes() -> None:
    script = "import os, time\nos.write(1, b'A\\xe4\\xb8')\ntime.sleep(0.2)\nos.write(1, b'\\xadB \\xff C')\n"

    async def go() -> None:
        async with await spawn([PY, "-c", script]) as session:
            await session.wait_exit(10)
            assert session.screen.text_rows()[0].rstrip() == "A\u4e2dB \ufffd C"

    run(go)


def test_terminal_queries_are_answered_so_the_program_does_not_stall() -> None:
    script = (
        "import os, sys, termios, tty\n"
        "tty.setraw(0)\n"
        "os.write(1, b'\\x1b[3;5H\\x1b[6n')\n"
        "answer = b''\n"
        "while not answer.endswith(b'R'):\n"
        "    answer += os.read(0, 1)\n"
        "os.write(1, b'\\x1b[c')\n"
        "da = b''\n"
        "while not da.endswith(b'c'):\n"
        "    da += os.read(0, 1)\n"
        "os.write(1, b'\\r\\n' + answer[1:] + b' ' + da[1:])\n"
    )

    async def go() -> None:
        async with await spawn([PY, "-c", script]) as session:
            await session.wait_for_text("[3;5R [?62;22c", 10)

    run(go)


def test_resize_reaches_the_program() -> None:
    async def go() -> None:
        async with await spawn(["sh"], width=40, height=8) as session:
            session.write("stty size<Enter>")
            await session.wait_for_text("8 40", 10)
            session.resize(50, 10)
            session.write("clear; stty size<Enter>")
            await session.wait_for_text("10 50", 10)
            assert session.screen.width == 50 and session.screen.height == 10

    run(go)


def test_wait_for_text_times_out_with_the_screen_in_the_message() -> None:
    async def go() -> None:
        async with await spawn(["sh", "-c", "echo visible; sleep 30"]) as session:
            await session.wait_for_text("visible", 10)
            started = time.monotonic()
            with pytest.raises(WaitTimeout) as error:
                await session.wait_for_text("never shown", 0.3)
            assert time.monotonic() - started < 5
            assert isinstance(error.value, TimeoutError)
            assert "'never shown' did not appear" in str(error.value) and "visible" in str(error.value)
            with pytest.raises(WaitTimeout, match="did not exit"):
                await session.wait_exit(0.2)

    run(go)


def test_wait_for_text_fails_at_once_when_the_output_has_ended() -> None:
    async def go() -> None:
        async with await spawn(["sh", "-c", "echo done"]) as session:
            await session.wait_exit(10)
            with pytest.raises(WaitTimeout, match="output ended"):
                await session.wait_for_text("never", 30)

    run(go)


def test_wait_stable_waits_for_quiet() -> None:
    script = "import time\nfor i in range(5):\n    print(i, flush=True)\n    time.sleep(0.05)\nprint('last', flush=True)\ntime.sleep(30)\n"

    async def go() -> None:
        async with await spawn([PY, "-c", script]) as session:
            await session.wait_bytes_read(1, 10)
            await session.wait_stable(400, 10)
            assert "last" in session.screen.text()
            with pytest.raises(WaitTimeout, match="did not settle"):
                session.write("x")
                await session.wait_stable(5000, 0.1)

    run(go)


def test_wait_bytes_read_counts_bytes_drawn() -> None:
    async def go() -> None:
        async with await spawn(["sh", "-c", "printf 12345; sleep 30"]) as session:
            await session.wait_bytes_read(5, 10)
            assert session.bytes_read >= 5 and session.screen.text().startswith("12345")
            with pytest.raises(WaitTimeout, match="wrote 5 of 6 bytes"):
                await session.wait_bytes_read(6, 0.2)
            assert session._waiters == []

    run(go)


def test_terminate_is_idempotent_and_cancelling_a_wait_leaks_nothing() -> None:
    async def go() -> None:
        session = await spawn(["sh", "-c", "sleep 60"])
        waiter = asyncio.create_task(session.wait_for_text("never", 60))
        await asyncio.sleep(0.05)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        await session.terminate(grace=0.2)
        await session.terminate()
        assert not alive(session.pid) and session.exit_code == 128 + signal.SIGHUP

    run(go)


def test_cancelling_the_task_that_owns_a_session_ends_its_program() -> None:
    pids: list[int] = []

    async def owner() -> None:
        async with await spawn(["sh", "-c", "sleep 60"]) as session:
            pids.append(session.pid)
            await session.wait_for_text("never", 60)

    async def go() -> None:
        task = asyncio.create_task(owner())
        while not pids:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(go)
    assert not alive(pids[0])


def test_programs_are_killed_at_interpreter_exit(tmp_path: Path) -> None:
    script = tmp_path / "leave.py"
    script.write_text(
        "import asyncio, os, sys\n"
        f"sys.path.insert(0, {str(Path.cwd())!r})\n"
        "from workbench.terminal import PtySession\n"
        "async def main():\n"
        "    s = await PtySession.spawn(['sh', '-c', 'sleep 60 & sleep 60'], env=dict(os.environ), cwd='/')\n"
        "    await s.wait_bytes_read(0, 1)\n"
        "    await asyncio.sleep(0.3)\n"
        "    print(s.pid, flush=True)\n"
        "asyncio.run(main())\n"
    )
    out = subprocess.run([PY, str(script)], capture_output=True, text=True, timeout=60, check=True).stdout
    pgid = int(out.split()[0])
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _group_members(pgid):
        time.sleep(0.05)
    assert _group_members(pgid) == []


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry))
    return members


def test_a_missing_program_is_a_clear_error() -> None:
    async def go() -> None:
        with pytest.raises(FileNotFoundError, match="no-such-program"):
            await spawn(["no-such-program-xyz"])
        with pytest.raises(FileNotFoundError, match="no folder"):
            await PtySession.spawn(["true"], env=env(), cwd="/no/such/folder")

    run(go)


def test_the_session_records_an_asciicast(tmp_path: Path) -> None:
    cast = tmp_path / "run" / "terminal.cast"

    async def go() -> None:
        recorder = AsciicastRecorder(cast, 40, 8)
        async with await spawn(["sh", "-c", "printf 'one \\033[32mgreen\\033[0m\\n'; sleep 0.1; printf '\\344\\270\\255 two\\n'"],
                               recorder=recorder) as session:  # fmt: skip
            await session.wait_exit(10)
            recorder.marker("after output")
            session.resize(50, 10)
        recorder.close()
        recorder.output("ignored after close")

    run(go)
    lines = cast.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["version"] == 2 and header["width"] == 40 and header["height"] == 8
    assert isinstance(header["timestamp"], int) and header["env"]["TERM"]
    events = [json.loads(line) for line in lines[1:]]
    assert all(
        isinstance(t, float | int) and code in "omr" and isinstance(data, str) for t, code, data in events
    )
    times = [t for t, _, _ in events]
    assert times == sorted(times)
    output = "".join(data for _, code, data in events if code == "o")
    assert output == "one \x1b[32mgreen\x1b[0m\r\n\u4e2d two\r\n"
    assert [data for _, code, data in events if code == "m"] == ["after output"]
    assert [data for _, code, data in events if code == "r"] == ["50x10"]
    if shutil.which("asciinema"):
        played = subprocess.run(["asciinema", "cat", str(cast)], capture_output=True, text=True, timeout=30)
        assert played.returncode == 0 and "green" in played.stdout


def test_a_closed_session_ignores_writes_and_releases_its_fd() -> None:
    async def go() -> None:
        session = await spawn(["sh", "-c", "sleep 60"])
        fd = session.fd
        assert str(fd) in os.listdir("/proc/self/fd")
        await session.terminate(grace=0.1)
        session.write("ignored<Enter>")
        session.resize(30, 5)
        assert str(fd) not in os.listdir("/proc/self/fd") or os.readlink(f"/proc/self/fd/{fd}") != "/dev/ptmx"
        assert not session.alive and session.exit_code is not None

    run(go)


def _signal_masks(status: str) -> dict[str, int]:
    return {k: int(v, 16) for k, v in re.findall(r"^(SigIgn|SigBlk):\s*([0-9a-f]+)$", status, re.M)}


def test_the_program_starts_with_every_signal_at_its_default_whatever_its_parent_ignores() -> None:
    # Python ignores SIGPIPE; nohup, background jobs and some CI runners ignore SIGHUP, SIGINT, SIGQUIT.
    # A child Python that ignores and blocks those starts `cat /proc/self/status` in a pty.
    code = f"""
import asyncio, os, signal, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from workbench.terminal import PtySession
for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE, signal.SIGUSR1):
    signal.signal(sig, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, {{signal.SIGUSR2, signal.SIGTERM}})
async def main():
    async with await PtySession.spawn(["cat", "/proc/self/status"], env=dict(os.environ), cwd=os.getcwd(),
                                      width=60, height=80) as session:
        await session.wait_exit(10)
        print(session.screen.text())
asyncio.run(main())
"""
    done = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60, check=True, env=env())
    assert _signal_masks(done.stdout) == {"SigIgn": 0, "SigBlk": 0}, done.stdout


def test_ctrl_c_stops_a_program_even_when_the_engine_was_started_ignoring_sigint() -> None:
    code = f"""
import asyncio, os, signal, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from workbench.terminal import PtySession
signal.signal(signal.SIGINT, signal.SIG_IGN)
async def main():
    async with await PtySession.spawn(["sleep", "60"], env=dict(os.environ), cwd=os.getcwd(),
                                      width=40, height=8) as session:
        await asyncio.sleep(0.3)
        session.write("<C-c>")
        print(await session.wait_exit(10))
asyncio.run(main())
"""
    done = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60, check=True, env=env())
    assert done.stdout.strip() == str(128 + signal.SIGINT), done.stdout


READS = """
import os, sys, time, tty
tty.setraw(0)
print("ready", end="\\r\\n", flush=True)
reads = []
while True:
    time.sleep(0.02)  # slower than the typing: keys written at once would pile up into one read
    data = os.read(0, 100)
    reads.append(data.decode())
    if "\\r" in data.decode():
        break
print("reads=" + "|".join(r.replace("\\r", "<CR>") for r in reads), end="\\r\\n", flush=True)
"""


def test_a_tui_gets_each_typed_key_in_a_read_of_its_own() -> None:
    """What a person's keystrokes are to a program in raw mode: a key per read (a whole line in one read is a
    paste to some TUIs); a named key is one key; a line-mode program gets the line at once."""

    async def go() -> None:
        async with await spawn([PY, "-c", READS], width=80) as session:
            await session.wait_for_text("ready", 10)
            await session.type_keys(split_keys("hi é!<Enter>"), timeout=60)  # a loaded machine: no pile-up
            await session.wait_for_text("reads=", 10)
            assert "reads=h|i| |é|!|<CR>" in session.screen.text(), session.screen.text()
        async with await spawn(["sh", "-c", "read line; echo got=$line"]) as session:
            await session.wait_stable(100, 10)
            await session.type_keys(split_keys("one two<Enter>"))
            await session.wait_for_text("got=one two", 10)

    run(go)


def test_typing_into_a_tui_that_reads_nothing_does_not_hang() -> None:
    """A program busy elsewhere reads no keys: after the timeout the rest are written at once, as a person's
    keystrokes pile up in the terminal's queue."""

    async def go() -> None:
        program = "import time, tty; tty.setraw(0); print('ready', flush=True); time.sleep(600)"
        async with await spawn([PY, "-c", program]) as session:
            await session.wait_for_text("ready", 10)
            await session.type_keys(split_keys("abc<Enter>"), timeout=0.05)
            # all four are on their way: the kernel pushes the last three into the queue a moment later
            deadline = time.monotonic() + 30
            while unread_input(session.fd) != 4 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            assert unread_input(session.fd) == 4 and not session._outbox

    run(go)
