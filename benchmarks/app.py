"""Benchmark: how quickly the Workbench app answers, headless at 200x50, against stock Textual.

Measured in one run, each against a baseline from the same run:

* cold start to first frame (target: at most 1.6x the baseline): a ``python -c`` child imports the app, opens
  a copy of ``scenarios/hello-agent.yaml`` and runs headless; timed from spawning it to its ``frame`` line,
  printed at Textual's first frame with the CPU time the child had used (which a loaded machine inflates
  less than the wall time). Baseline: an empty Textual ``App``. Medians of 9, alternating, after a warm-up;
* keystroke to frame in a 1,000-line YAML scenario, highlighting on (target under 20 ms): ``x`` typed in
  a quoted string at 50 places spread over the file, about 0.1 s apart (the 0.3 s debounced validation
  does not run in between), each at a random moment between two of Textual's frame ticks (a screen is
  composed on a fixed 60 Hz grid, so a fixed rhythm of keys would always wait the same part of a tick). Baseline: a stock ``TextArea`` with the same text, options and size alone in
  an app. Also the work alone: ``insert("x")`` and a forced compositor update, no queues, no frame pacing;
* jump to a step of a 1,000-step recorded run opened as ``workbench show`` does (target under 50 ms):
  ``timeline.move_cursor(i)`` (what a click does) until a frame shows step i's recorded screen; median
  and max of 100 random jumps. Baseline: ``refresh()`` of an unchanged widget to the next frame, the
  floor for any visible change;
* a key answered while the program under test prints 1 MB/s of varied text (target under 50 ms):
  ``left``/``right`` on the focused timeline until a frame shows the cursor moved; median and p95 of 30
  presses, with the rate the pty delivered meanwhile. Baseline: the same presses once the run is over.

"Until a frame shows it": the headless driver writes nothing, so ``App._display`` is wrapped to serialise
each frame as a terminal driver would (``render_segments``) and to check the change at that moment. Keys
enter through the driver like terminal input, not with ``Pilot.press``, which sleeps at least 2 x 20 ms
waiting for idle. The slowest full (generation 2) garbage collection in each measure is printed too:
it explains most of the tail.

Run: python benchmarks/app.py
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events
from textual._compositor import CompositorUpdate
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.widgets import TextArea

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.app.app import WorkbenchApp
from workbench.engine.runner import RunOptions, run_scenario


async def validated(app: App[Any]) -> None:
    """Wait for the validation workers (not the file watcher, which runs as long as the file is open)."""
    pending = [w for w in app.workers if not w.group.startswith("watch") and not w.is_finished]
    if pending:
        await app.workers.wait_for_complete(pending)


ROOT = Path(__file__).resolve().parents[1]
SIZE = (200, 50)
TIMEOUT_S = 10.0

CHILD_WORKBENCH = """import gc
gc.disable()  # as workbench.app.main does while the app starts
from pathlib import Path
from workbench.app.app import WorkbenchApp
app = WorkbenchApp(Path("scenarios/hello-agent.yaml"), goldens_dir=Path("goldens"), out_dir=Path("runs"))
"""
CHILD_EMPTY = "from textual.app import App\napp = App()\n"
CHILD_RUN = """import time
show = app._display
def first_frame(screen, update):
    show(screen, update)
    if update is not None and app._display is first_frame:
        print("frame", time.process_time(), flush=True)  # and the CPU time it took, which load inflates less
        app._display = show
        app.exit()
app._display = first_frame
app.run(headless=True, size=(200, 50))
"""

FLOOD = """import random, sys, time
rng, words = random.Random(7), "alpha beta gamma delta zeta theta kappa sigma omega build test pass fail".split()
lines = [f"\\x1b[3{i % 8}m{i:6}\\x1b[0m {' '.join(rng.choices(words, k=rng.randint(3, 14)))}\\n".encode()
         for i in range(4000)]
sent, i, start = 0, 0, time.monotonic()
while (now := time.monotonic() - start) < SECONDS:
    if sent > RATE * now:
        time.sleep(0.002)
        continue
    chunk, i = b"".join(lines[(i + k) % len(lines)] for k in range(200)), i + 200
    sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
    sent += len(chunk)
"""


def ms(values: list[float], q: float = 0.5) -> float:
    """The median (or the ``q`` quantile, nearest rank) in milliseconds."""
    return (statistics.median(values) if q == 0.5 else sorted(values)[round(q * (len(values) - 1))]) * 1000


async def until(condition: Callable[[], bool], timeout: float = TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {condition}")
        await asyncio.sleep(0.02)


class FullGcWatch:
    """The longest full (generation 2) garbage collection while entered."""

    longest = _started = 0.0

    def __enter__(self) -> FullGcWatch:
        gc.collect()  # start clean: no garbage left by the measure before
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif info["generation"] == 2:
            self.longest = max(self.longest, time.perf_counter() - self._started)


def first_frame_s(code: str, cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from spawning the child to its first frame, and the CPU seconds it had used by then."""
    started = time.perf_counter()
    with subprocess.Popen([sys.executable, "-c", code], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:  # fmt: skip
        assert proc.stdout is not None and proc.stderr is not None
        try:
            while select.select([proc.stdout], [], [], TIMEOUT_S)[0] and (line := proc.stdout.readline()):
                if line.startswith("frame "):
                    return time.perf_counter() - started, float(line.split()[1])
            proc.kill()
            raise RuntimeError(f"no first frame within {TIMEOUT_S:g} s:\n{proc.stderr.read()[-1000:]}")
        finally:
            try:
                proc.wait(timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()


def cold_start(work: Path, env: dict[str, str], n: int = 9) -> tuple[float, float, float, float]:
    """Medians: our wall time to the first frame, the empty app's, our CPU time, the empty app's."""
    ours, empty = CHILD_WORKBENCH + CHILD_RUN, CHILD_EMPTY + CHILD_RUN
    times: dict[str, list[tuple[float, float]]] = {ours: [], empty: []}
    for code in times:
        first_frame_s(code, work, env)  # warm-up: bytecode, disk cache
    for _ in range(n):
        for code in times:  # interleaved, so a noisy moment hits both
            times[code].append(first_frame_s(code, work, env))
    return (*(statistics.median(t[0] for t in times[code]) for code in (ours, empty)),
            *(statistics.median(t[1] for t in times[code]) for code in (ours, empty)))  # fmt: skip


class FrameProbe:
    """Timestamps every frame the app produces; tells when a frame first satisfies a condition."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._show = app._display
        self._visible: Callable[[], bool] = lambda: False
        self._seen = asyncio.Event()
        app._display = self._display  # type: ignore[method-assign,assignment]

    def _display(self, screen: Any, update: Any) -> None:
        self._show(screen, update)
        if isinstance(update, CompositorUpdate):
            update.render_segments(self.app.console)  # what a real driver pays; headless skips it
            if not self._seen.is_set() and self._visible():
                self._seen.set()

    async def latency(self, change: Callable[[], object], visible: Callable[[], bool]) -> float:
        """Seconds from ``change()`` to the first frame where ``visible()`` holds."""
        self._seen.clear()
        self._visible = visible
        started = time.perf_counter()
        change()
        await asyncio.wait_for(self._seen.wait(), TIMEOUT_S)
        return time.perf_counter() - started


def send_key(app: App[Any], key: str) -> None:
    """A key as terminal input arrives: posted by the driver to the app's queue."""
    assert app._driver is not None
    app._driver.send_message(events.Key(key, key if len(key) == 1 else None))


class PlainEditor(App[None]):
    """A stock TextArea with the scenario editor's options and size, alone on its screen."""

    def __init__(self, text: str, size: tuple[int, int]) -> None:
        super().__init__()
        self.text, self.area_size = text, size

    def compose(self) -> ComposeResult:
        area = TextArea(
            self.text, language="yaml", soft_wrap=False, tab_behavior="indent", show_line_numbers=True
        )
        area.styles.width, area.styles.height = self.area_size
        yield area


async def keystrokes(
    app: App[Any], editor_of: Callable[[], TextArea], n: int = 50
) -> tuple[float, float, Size]:
    """Median seconds from a typed ``x`` to the frame showing it, of the work alone; the editor's size."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        await asyncio.wait_for(validated(app), TIMEOUT_S)
        editor = editor_of()
        if editor.language != "yaml" or editor.document.line_count < 1000:
            raise RuntimeError(f"editor: language {editor.language}, {editor.document.line_count} lines")
        editor.focus()
        probe = FrameProbe(app)
        rows = [r for r in range(editor.document.line_count) if "'" in editor.document.get_line(r)]
        typed, direct = [], []
        jitter = random.Random(5)
        for k in range(n):
            row = rows[k * (len(rows) - 1) // (n - 1)]
            editor.move_cursor((row, editor.document.get_line(row).index("'") + 1), center=True)
            await pilot.pause(0.05)
            await asyncio.sleep(jitter.uniform(0, 1 / 60))  # a key lands anywhere between two frame ticks
            before = editor.document.get_line(row)
            typed.append(await probe.latency(lambda: send_key(app, "x"),
                                             lambda row=row, before=before: editor.document.get_line(row) != before))  # fmt: skip
            await pilot.pause(0.02)
            started = time.perf_counter()
            editor.insert("x")
            editor._repaint_required = False  # what the Update message would do, without the queues
            app.screen._dirty_widgets.add(editor)
            app.screen._on_timer_update()
            direct.append(time.perf_counter() - started)
        return statistics.median(typed), statistics.median(direct), editor.outer_size


async def palette_opens(app: App[Any], n: int = 5) -> float:
    """Median seconds from ctrl+p to a palette that lists its commands (the app's, or a stock app's)."""
    from textual.command import CommandList, CommandPalette

    def listed() -> bool:
        screen = app.screen
        return isinstance(screen, CommandPalette) and any(
            c.option_count > 3 for c in screen.query(CommandList)
        )

    times = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        for _ in range(n):
            started = time.perf_counter()
            send_key(app, "ctrl+p")
            await until(listed)
            times.append(time.perf_counter() - started)
            await pilot.press("escape")
            await pilot.pause(0.2)
    return statistics.median(times)


async def jumps(
    run_dir: Path, work: Path, backs: list[float], n: int = 100
) -> tuple[list[float], list[float]]:
    app = WorkbenchApp(None, run_dir=run_dir, goldens_dir=work / "goldens", out_dir=work / "runs")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        main = app.main_screen
        marks = main.timeline.marks
        if len(marks) < 1000:
            raise RuntimeError(f"the trace has {len(marks)} steps")
        probe = FrameProbe(app)
        rng = random.Random(3)
        jumped, refreshed = [], []
        for _ in range(n):
            i = rng.choice([m.index for m in marks if m.index != main.timeline.cursor])
            want = "\n".join(row.rstrip() for row in main.records[i].screen)
            jumped.append(await probe.latency(lambda i=i: main.timeline.move_cursor(i),
                                              lambda i=i, want=want: main.timeline.cursor == i and main.terminal.text() == want))  # fmt: skip
            await pilot.pause(0.02)
            refreshed.append(await probe.latency(main.timeline.refresh, lambda: True))
            await pilot.pause(0.02)
        main.timeline.move_cursor(len(marks) - 1)
        await pilot.pause(0.05)
        for _ in range(n):  # F7 from the end: each press shows the step before, from its record
            i = main.timeline.cursor - 1
            want = "\n".join(row.rstrip() for row in main.records[i].screen)
            backs.append(await probe.latency(lambda: send_key(app, "f7"),
                                             lambda i=i, want=want: main.timeline.cursor == i and main.terminal.text() == want))  # fmt: skip
            await pilot.pause(0.02)
        return jumped, refreshed


async def keys_while_flooding(path: Path, work: Path, n: int = 30) -> tuple[list[float], list[float], float]:
    """Key-to-frame latencies during the flood and once idle, and the MB/s the pty delivered meanwhile."""
    app = WorkbenchApp(path, goldens_dir=work / "goldens", out_dir=work / "runs")
    rng = random.Random(5)

    async def presses(probe: FrameProbe) -> list[float]:
        timeline, out = app.main_screen.timeline, []
        for k in range(n):
            key, target = ("left", timeline.cursor - 1) if k % 2 == 0 else ("right", timeline.cursor + 1)
            out.append(await probe.latency(lambda key=key: send_key(app, key),
                                           lambda target=target: timeline.cursor == target))  # fmt: skip
            await asyncio.sleep(rng.uniform(0.02, 0.08))
        return out

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        await asyncio.wait_for(validated(app), TIMEOUT_S)
        main = app.main_screen
        await pilot.press("f3", "f3", "f3", "f3", "f5")  # speed max, play
        await until(lambda: main.live and len(main.records) == len(main.timeline.marks) > 1)
        session = main.run._session  # type: ignore[union-attr]
        assert session is not None
        await until(lambda: session.bytes_read > 500_000)
        main.timeline.focus()
        await pilot.pause(0.05)
        probe = FrameProbe(app)
        bytes_before, started = session.bytes_read, time.perf_counter()
        busy = await presses(probe)
        rate = (session.bytes_read - bytes_before) / (time.perf_counter() - started) / 1e6
        if not main.live:
            raise RuntimeError("the program stopped printing before the presses were done")
        await until(lambda: main.result is not None, timeout=30)
        if main.result is None or main.result.status != "passed":
            raise RuntimeError(f"the flood run did not pass: {main.result}")
        await pilot.pause(0.1)
        idle = await presses(probe)
    return busy, idle, rate


def scenario(name: str, steps: int) -> str:
    """``steps`` one-line agent replies: three YAML lines and one schedule step each."""
    lines = [f"name: {name}", "timeline:"]
    for i in range(steps):
        lines += ["  - llmResponse:", "      - assistant:", f"          - [10, 'reply {i} says something']"]
    return "\n".join(lines) + "\n"


def recorded_run(work: Path, steps: int = 1000) -> Path:
    path = work / "steps.yaml"
    path.write_text(scenario("thousand-steps", steps))
    result = asyncio.run(run_scenario(path, RunOptions(goldens_dir=work / "goldens", out_dir=work / "runs")))
    if result.status != "passed" or not result.run_dir:
        raise RuntimeError(f"the {steps}-step run did not pass: {result.status} {result.failures[:1]}")
    return Path(result.run_dir)


def flood_scenario(work: Path, seconds: float = 10.0, rate: float = 1e6) -> Path:
    program, path = work / "flood.py", work / "flood.yaml"
    program.write_text(f"SECONDS, RATE = {seconds}, {rate}\n{FLOOD}")
    steps = "  - advanceMs: 100\n" * 4
    path.write_text(f"name: flood\ncommand: [{sys.executable}, {program}]\ntimeline:\n{steps}"
                    "expect:\n  exitCode: 0\n")  # fmt: skip
    return path


# --------------------------------------------------------------------------- in a real terminal (tmux)


TMUX_SERVER = f"wb-bench-{os.getpid()}"  # a private server: no other tmux user's kill-server ends our panes


def tmux(*args: str) -> str:
    return subprocess.run(
        ["tmux", "-L", TMUX_SERVER, *args], capture_output=True, text=True, check=False
    ).stdout


def kill_session(session: str) -> None:
    """End a session and wait until its program has exited: a start measured next must not share the CPU
    with the last one's teardown (it would favour whichever app starts after the cheaper one)."""
    pid = tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip()
    tmux("kill-session", "-t", session)
    deadline = time.monotonic() + TIMEOUT_S
    while pid.isdigit() and Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.005)


def pane_until(session: str, condition: Callable[[str], bool], timeout: float = TIMEOUT_S) -> float:
    """Poll ``tmux capture-pane`` until ``condition(screen)``; the time it took (each poll costs ~2-5 ms)."""
    started = time.perf_counter()
    while not condition(tmux("capture-pane", "-p", "-t", session)):
        if time.perf_counter() - started > timeout:
            raise TimeoutError(f"tmux pane never showed it:\n{tmux('capture-pane', '-p', '-t', session)}")
    return time.perf_counter() - started


def in_tmux(work: Path, n: int = 10, starts: int = 7, rounds: int = 3) -> dict[str, list[float]]:
    """Start to first frame, key echo in the editor and F7, in the app running in a tmux pane at 120x40.

    Starts alternate with the baseline's (``starts`` each, after a warm-up); the echo is measured in
    ``rounds`` of 20 keys into the app and 20 into the stock editor, open side by side and typed into in
    turn, so that a busy moment of the machine falls on both."""
    out: dict[str, list[float]] = {"start": [], "empty": [], "echo": [], "echo_stock": [], "f7": []}
    env = (f"XDG_CONFIG_HOME={work / 'config'} WORKBENCH_KEYMAP={work / 'no-keymap.toml'} "
           f"PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX={work / 'pycache'}")  # fmt: skip
    app_cmd = f"{env} {sys.executable} -m workbench scenarios/hello-agent.yaml --goldens goldens --out runs"
    (work / "ready_app.py").write_text(
        "from textual.app import App\nfrom textual.widgets import Static\n\n\nclass Ready(App):\n"
        "    def compose(self):\n        yield Static('ready')\n\n\nReady().run()\n"
    )
    ready_cmd = f"{sys.executable} ready_app.py"
    (work / "stock_editor.py").write_text(
        "from pathlib import Path\nfrom textual.app import App\nfrom textual.widgets import TextArea\n\n\n"
        "class Stock(App):\n    def compose(self):\n"
        "        yield TextArea(Path('scenarios/hello-agent.yaml').read_text(), language='yaml',\n"
        "                       soft_wrap=False, tab_behavior='indent', show_line_numbers=True)\n\n\n"
        "Stock().run()\n"
    )
    for k in range(starts + 1):  # the first of each is a warm-up
        for key, cmd, needle in (("start", app_cmd, "Timeline"), ("empty", ready_cmd, "ready")):
            name = f"wb-bench-{os.getpid()}-{key}-{k}"
            started = time.perf_counter()
            tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", str(work), cmd)
            pane_until(
                name, lambda s, needle=needle: needle in s, timeout=TIMEOUT_S if k else 60
            )  # 0: compiles
            if k:
                out[key].append(time.perf_counter() - started)
            kill_session(name)
    jitter = random.Random(3)
    stock_cmd = f"{sys.executable} stock_editor.py"

    def app_ready(screen: str) -> bool:
        return "Timeline" in screen and "# The smallest" in screen

    keys = ""
    for r in range(rounds):  # the stock editor and the app side by side, typed into in turn
        pair = [(f"wb-bench-{os.getpid()}-stock-{r}", stock_cmd, lambda s: "# The smallest" in s, "echo_stock"),
                (f"wb-bench-{os.getpid()}-keys-{r}", app_cmd, app_ready, "echo")]  # fmt: skip
        for name, cmd, _ready, _key in pair:
            tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", str(work), cmd)
        try:
            for name, _cmd, ready, _key in pair:
                pane_until(name, ready, timeout=60)
            time.sleep(0.5)
            for name, *_ in pair:
                tmux("send-keys", "-t", name, "Right", "Right")
            for i in range(1, 21):  # ``x`` typed into the first line's comment, ~0.1 s apart, each at a
                for name, _cmd, _ready, key in pair if i % 2 else pair[::-1]:  # random moment of a frame tick
                    time.sleep(0.1 + jitter.uniform(0, 1 / 60))
                    tmux("send-keys", "-t", name, "x")
                    out[key].append(pane_until(name, lambda s, i=i: "# " + "x" * i + "T" in s))
        finally:
            kill_session(pair[0][0])
            if r < rounds - 1:
                kill_session(pair[1][0])
        keys = pair[1][0]
    try:
        tmux("send-keys", "-t", keys, "C-s")
        for key in ("F3", "F3", "F3", "F3", "F5"):
            tmux("send-keys", "-t", keys, key)
        pane_until(keys, lambda s: "step 11/11" in s and "virtual time" in s, timeout=60)
        for step in range(10, 10 - n, -1):
            tmux("send-keys", "-t", keys, "F7")
            out["f7"].append(pane_until(keys, lambda s, step=step: f"step {step}/11" in s))
    finally:
        kill_session(keys)
    return out


def main() -> int:
    rows: list[tuple[str, str, str, str, str]] = []
    cwd = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="wb-bench-app-") as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "scenarios", work / "scenarios")
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
        os.environ["WORKBENCH_KEYMAP"] = str(work / "no-keymap.toml")
        # Warm means compiled: a user's second start finds the bytecode the first one wrote. Some CI
        # images set PYTHONDONTWRITEBYTECODE, which would make every start compile the app again.
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(work / "pycache")  # and the checkout stays clean
        os.chdir(work)  # the app writes actual screenshots under ./target
        try:
            ours, empty, ours_cpu, empty_cpu = cold_start(work, dict(os.environ))
            rows.append(("cold start to first frame", f"{ours:.2f} s", "< 1.6x",
                         f"empty Textual app {empty:.2f} s", f"{ours / empty:.2f}x"))  # fmt: skip
            rows.append(("  its CPU time", f"{ours_cpu:.3f} s", "", f"empty Textual app {empty_cpu:.3f} s",
                         f"{ours_cpu / empty_cpu:.2f}x"))  # fmt: skip

            big = work / "big.yaml"
            big.write_text(scenario("big-editor", 333))  # 1,001 lines
            app = WorkbenchApp(big, goldens_dir=work / "goldens", out_dir=work / "runs")
            with FullGcWatch() as gc_typed:
                typed, direct, size = asyncio.run(keystrokes(app, lambda: app.main_screen.editor))
            plain = PlainEditor(big.read_text(), (size.width, size.height))
            with FullGcWatch() as gc_plain:
                plain_typed, plain_direct, _ = asyncio.run(
                    keystrokes(plain, lambda: plain.query_one(TextArea))
                )
            rows.append(("keystroke to frame, 1,000 lines YAML", f"{typed * 1000:.1f} ms", "< 20 ms",
                         f"stock TextArea {plain_typed * 1000:.1f} ms", f"{typed / plain_typed:.2f}x"))  # fmt: skip
            rows.append(("  insert + compositor, no pacing", f"{direct * 1000:.1f} ms", "",
                         f"stock TextArea {plain_direct * 1000:.1f} ms", f"{direct / plain_direct:.2f}x"))  # fmt: skip

            opened = asyncio.run(
                palette_opens(
                    WorkbenchApp(
                        work / "scenarios" / "hello-agent.yaml",
                        goldens_dir=work / "goldens",
                        out_dir=work / "runs",
                    )
                )
            )
            stock_opened = asyncio.run(palette_opens(PlainEditor("x", (40, 10))))
            rows.append(("command palette: ctrl+p to its list", f"{opened * 1000:.0f} ms", "< 150 ms",
                         f"stock app {stock_opened * 1000:.0f} ms", f"{opened / stock_opened:.2f}x"))  # fmt: skip

            run_dir = recorded_run(work)
            backs: list[float] = []
            with FullGcWatch() as gc_jumps:
                jumped, refreshed = asyncio.run(jumps(run_dir, work, backs))
            rows.append(("jump to a step, 1,000-step trace", f"{ms(jumped):.1f} ms (max {max(jumped) * 1000:.0f})",
                         "< 50 ms", f"repaint, no change {ms(refreshed):.1f} ms",
                         f"{ms(jumped) / ms(refreshed):.2f}x"))  # fmt: skip
            rows.append(("F7 (step back), 1,000-step trace", f"{ms(backs):.1f} ms (max {max(backs) * 1000:.0f})",
                         "< 50 ms", f"repaint, no change {ms(refreshed):.1f} ms",
                         f"{ms(backs) / ms(refreshed):.2f}x"))  # fmt: skip

            with FullGcWatch() as gc_flood:
                busy, idle, rate = asyncio.run(keys_while_flooding(flood_scenario(work), work))
            rows.append(("key while program prints 1 MB/s", f"{ms(busy):.1f} ms (p95 {ms(busy, 0.95):.0f})",
                         "< 50 ms", f"idle {ms(idle):.1f} ms (p95 {ms(idle, 0.95):.0f})",
                         f"{ms(busy) / ms(idle):.2f}x"))  # fmt: skip
            rows.append(("  pty bytes read during the presses", f"{rate:.2f} MB/s", "~1 MB/s", "", ""))
            if shutil.which("tmux"):
                # one session keeps the private server up: the server a kill-session leaves empty exits,
                # and the next new-session could reach it while it did (a pane that never showed)
                tmux("new-session", "-d", "-s", "keep-alive", "sleep 3600")
                try:
                    real = in_tmux(work)
                finally:
                    tmux("kill-server")
                start, empty_start = statistics.median(real["start"]), statistics.median(real["empty"])
                rows.append(("tmux 120x40: start to first frame", f"{start:.2f} s", "< 1.6x",
                             f"one-Static Textual app {empty_start:.2f} s", f"{start / empty_start:.2f}x"))  # fmt: skip
                echo, stock = ms(real["echo"]), ms(real["echo_stock"])
                rows.append(("tmux 120x40: key echo in the editor", f"{echo:.1f} ms", "< 20 ms",
                             f"stock TextArea {stock:.1f} ms (polling in both)", f"{echo / stock:.2f}x"))  # fmt: skip
                rows.append(("tmux 120x40: F7 (step back)", f"{ms(real['f7']):.1f} ms", "< 50 ms",
                             "(capture-pane polling included)", ""))  # fmt: skip
        finally:
            os.chdir(cwd)

    print(f"{'measure':38} {'value':22} {'target':9} {'baseline (same run)':34} ratio")
    for name, value, target, baseline, ratio in rows:
        print(f"{name:38} {value:22} {target:9} {baseline:34} {ratio}")
    print(f"slowest full GC: keystrokes {gc_typed.longest * 1000:.0f} ms (stock TextArea {gc_plain.longest * 1000:.0f} ms), "
          f"jumps {gc_jumps.longest * 1000:.0f} ms, flood {gc_flood.longest * 1000:.0f} ms")  # fmt: skip
    print(f"(cpus: {os.cpu_count()}, python {sys.version.split()[0]}, headless {SIZE[0]}x{SIZE[1]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
