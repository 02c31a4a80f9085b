"""Benchmark: terminal emulation throughput and pty start-up.

Three 4 MiB streams (as in ``reference/performance-baselines.md`` section 2), fed
in 4 KiB chunks at 120x40 through stock pyte 0.8.2 (``pyte.Screen`` +
``pyte.Stream``), through our :class:`workbench.terminal.Screen`, and through tmux
(``cat FILE`` in a detached session, timed until ``tmux wait-for``, minus an
empty-file session), all in the same run:

* plain: random ASCII lines of 20-119 characters;
* colored: SGR-heavy lines (256-colour, truecolor, bold) like `ls --color` and
  syntax-highlighted code;
* tui: full-screen 120x40 redraws, runs of 4-20 characters each with its own
  cursor position and colours, then a status line.

Stock pyte is measured on 1 MiB of each stream (its rate is linear in bytes).
The final screens of ours and stock pyte are compared on the same 1 MiB.
Target: ours at least 10x stock pyte on every stream.

Spawn-to-first-output: ``PtySession.spawn`` of ``printf x`` until the first byte
is on our screen, against raw ``PtyProcess.spawn`` + ``read``; target within 10 ms.

Run: python benchmarks/terminal.py
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pyte
from ptyprocess import PtyProcess

from workbench.terminal import PtySession, Screen

WIDTH, HEIGHT = 120, 40
SIZE = 4 * 1024 * 1024
PYTE_SIZE = 1024 * 1024
CHUNK = 4096


def plain(rng: random.Random) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:-_/()"
    out, size = [], 0
    while size < SIZE:
        line = "".join(rng.choice(letters) for _ in range(rng.randint(20, 119))) + "\r\n"
        out.append(line)
        size += len(line)
    return "".join(out)[:SIZE]


def colored(rng: random.Random) -> str:
    words = ["def", "return", "self", "import", "class", "value", "screen", "cursor", "if", "else", "for"]
    out, size = [], 0
    while size < SIZE:
        parts = []
        for _ in range(rng.randint(3, 10)):
            kind = rng.random()
            word = rng.choice(words)
            if kind < 0.4:
                parts.append(f"\x1b[38;5;{rng.randint(16, 231)}m{word}\x1b[39m")
            elif kind < 0.6:
                parts.append(
                    f"\x1b[1;38;2;{rng.randint(0, 255)};{rng.randint(0, 255)};{rng.randint(0, 255)}m{word}\x1b[0m"
                )
            elif kind < 0.8:
                parts.append(f"\x1b[0{rng.choice('1234')};3{rng.randint(0, 7)}m{word}\x1b[0m")
            else:
                parts.append(word)
        line = " ".join(parts) + "\r\n"
        out.append(line)
        size += len(line)
    return "".join(out)[:SIZE]


def tui(rng: random.Random) -> str:
    frames = []
    for f in range(50):
        parts = ["\x1b[?25l\x1b[H"]
        for row in range(1, HEIGHT):
            parts.append(f"\x1b[{row};1H")
            col = 0
            while col < WIDTH:
                n = min(rng.randint(4, 20), WIDTH - col)
                text = "".join(rng.choice("abcdefghij klmnop") for _ in range(n))
                parts.append(f"\x1b[1;38;5;{rng.randint(0, 255)};48;5;{rng.randint(0, 255)}m{text}")
                col += n
        parts.append(f"\x1b[{HEIGHT};1H\x1b[0m\x1b[7m frame {f} status line \x1b[0m\x1b[K")
        frames.append("".join(parts))
    out, size, i = [], 0, 0
    while size < SIZE:
        out.append(frames[i % 50])
        size += len(frames[i % 50])
        i += 1
    return "".join(out)[:SIZE]


def feed_pyte(data: str) -> tuple[float, list[str]]:
    screen = pyte.Screen(WIDTH, HEIGHT)
    stream = pyte.Stream(screen)
    started = time.perf_counter()
    for i in range(0, len(data), CHUNK):
        stream.feed(data[i : i + CHUNK])
    return time.perf_counter() - started, screen.display


def feed_ours(data: str) -> tuple[float, list[str]]:
    screen = Screen(WIDTH, HEIGHT)
    started = time.perf_counter()
    for i in range(0, len(data), CHUNK):
        screen.feed(data[i : i + CHUNK])
    return time.perf_counter() - started, screen.text_rows()


def tmux_seconds(path: Path) -> float | None:
    if shutil.which("tmux") is None:
        return None

    counter = iter(range(1000))

    def once(file: Path) -> float:
        sock = f"wb-bench-{os.getpid()}-{next(counter)}"  # a fresh server each time: no shutdown races
        started = time.perf_counter()
        subprocess.run(["tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-x", str(WIDTH), "-y",
                        str(HEIGHT), f"cat {file}; tmux -L {sock} wait-for -S done; sleep 30"], check=True)  # fmt: skip
        subprocess.run(["tmux", "-L", sock, "wait-for", "done"], check=True)
        elapsed = time.perf_counter() - started
        subprocess.run(["tmux", "-L", sock, "kill-server"], check=False, capture_output=True)
        return elapsed

    empty = path.with_name("empty")
    empty.write_text("")
    base = statistics.median(once(empty) for _ in range(3))
    return max(1e-6, min(once(path) for _ in range(3)) - base)


def best(fn: Callable[[], tuple[float, list[str]]], rounds: int) -> tuple[float, list[str]]:
    results = [fn() for _ in range(rounds)]
    return min(results, key=lambda r: r[0])


async def spawn_to_first_output(rounds: int = 30) -> tuple[float, float]:
    env = dict(os.environ)
    raw, ours = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        proc = PtyProcess.spawn(["printf", "x"], env=env)
        proc.read(1)
        raw.append(time.perf_counter() - started)
        proc.close(force=True)

        started = time.perf_counter()
        session = await PtySession.spawn(["printf", "x"], env=env, cwd=os.getcwd())
        await session.wait_bytes_read(1, timeout=10)
        ours.append(time.perf_counter() - started)
        await session.terminate()
    return statistics.median(raw), statistics.median(ours)


def main() -> int:
    rng = random.Random(1234)
    streams = {"plain": plain(rng), "colored": colored(rng), "tui": tui(rng)}
    print(
        f"{'stream':9} {'pyte MB/s':>10} {'ours MB/s':>10} {'tmux MB/s':>10} {'ours/pyte':>10} {'same screen':>12}"
    )
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in streams.items():
            pyte_s, pyte_rows = best(lambda d=data: feed_pyte(d[:PYTE_SIZE]), 2)  # type: ignore[misc]
            _, ours_small = feed_ours(data[:PYTE_SIZE])
            ours_s, _ = best(lambda d=data: feed_ours(d), 3)  # type: ignore[misc]
            path = Path(tmp) / name
            path.write_bytes(data.replace("\r\n", "\n").encode())
            tmux_s = tmux_seconds(path)
            pyte_rate = PYTE_SIZE / pyte_s / 1e6
            ours_rate = len(data) / ours_s / 1e6
            tmux_rate = f"{len(data) / tmux_s / 1e6:10.1f}" if tmux_s else f"{'n/a':>10}"
            same = [r.rstrip() for r in pyte_rows] == [r.rstrip() for r in ours_small]
            ratio = ours_rate / pyte_rate
            ok &= ratio >= 10 and same
            print(f"{name:9} {pyte_rate:10.2f} {ours_rate:10.2f} {tmux_rate} {ratio:9.1f}x {same!s:>12}")
    raw, ours = asyncio.run(spawn_to_first_output())
    print(f"spawn to first output: raw ptyprocess {raw * 1000:.1f} ms, PtySession {ours * 1000:.1f} ms "
          f"(+{(ours - raw) * 1000:.1f} ms; target within 10 ms)")  # fmt: skip
    ok &= ours - raw <= 0.010
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
