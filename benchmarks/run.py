"""Benchmark: how fast `workbench run` plays scenarios.

Measured in one run, each against a baseline from the same run:

* a scenario with 30 s of scripted time at ``--speed max`` (target at most
  300 ms, the whole command; the ratio is the compression: scripted time /
  wall time), with the CPU time it used (the command and its children: what
  a busy machine does not inflate);
* the fixed cost of a trivial scenario (target at most 100 ms), against the cost
  of starting a bare Python interpreter, and against the same run with the
  mock agent started as a new Python (``WORKBENCH_NO_FORK=1``) instead of
  forked from the warm engine;
* with ``--corpus DIR`` (e.g. the Agent Harbor corpus): ``run DIR -j 2``
  (target under 5 s) against ``-j 1`` and against new-Python agents, with
  identical reports and traces (every step's screen, files and checks);
* throughput of ``-j 2`` against ``-j 1`` on 20 scenarios, the whole command
  (target at least 1.7x), and what it would be on two cores nothing else uses,
  from the CPU times (the start-up alone, then the rest of ``-j 2`` shared by
  both cores: what a busy shared machine does not distort);
* the same on 20 scenarios that do work (the 30 s scenario twenty times): where
  start-up weighs little, what the pool itself gives;
* the floor under that start-up: a Python that imports only the libraries the
  start-up of ``run`` imports (found with ``-X importtime``, not named here:
  asyncio, PyYAML, pyte...) and none of our code, and the best ``-j 2`` ratio
  possible at that floor: the part of 1.7x that no change to our code can give;
* ``workbench --help`` start-up (target under 200 ms) against a bare interpreter,
  and a check that it imports neither textual nor the servers.

Every command runs as a user's does: with its bytecode cached (in the
benchmark's temporary folder, so a ``PYTHONDONTWRITEBYTECODE`` in the
environment does not make each start compile the sources again).

Run: python benchmarks/run.py [--corpus DIR]
"""

from __future__ import annotations

import atexit
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEGMENTS = 30  # each segment scripts one second of agent activity


def scripted_30s() -> str:
    lines = ["name: thirty-seconds", "repo: {init: true}", "timeline:"]
    for i in range(SEGMENTS):
        lines += [
            "  - llmResponse:",
            "      - think:",
            f"          - [400, 'thinking about step {i}']",
            "      - assistant:",
            f"          - [300, 'step {i} is next']",
            "  - runCmd:",
            f"      cmd: echo step {i}",
            f"      result: step {i}",
            "      progress:",
            "        - [300, running]",
        ]
        if i % 10 == 9:
            lines.append(f"  - screenshot: after-{i}")
    return "\n".join(lines) + "\n"


TRIVIAL = "name: trivial-{i}\ntimeline:\n  - llmResponse:\n      - assistant:\n          - [10, 'hi {i}']\n"


PYCACHE = Path(tempfile.mkdtemp(prefix="wb-bench-pycache-"))
atexit.register(shutil.rmtree, PYCACHE, ignore_errors=True)


def user_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment with bytecode written and read back, as on a user's machine."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(PYCACHE), **(extra or {})}


def timed(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    wall, _cpu, done = timed_cpu(argv, cwd, env)
    return wall, done


def timed_cpu(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall seconds, CPU seconds of the command and its children, and the finished command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, env=user_env(env))
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done


NO_FORK = {"WORKBENCH_NO_FORK": "1"}


VOLATILE = ("duration_ms", "wall_ms", "run_dir")  # wall-clock facts, and where the run folder went


def library_floor(start_argv: list[str], cwd: Path) -> float:
    """Wall seconds of a Python that imports the libraries ``start_argv``'s start-up imports, none of our
    code: what no change to our code goes below. The libraries are those ``-X importtime`` shows imported
    by our code or at the top (each with what it imports itself), not a list of names."""
    printed = timed([sys.executable, "-X", "importtime", *start_argv[1:]], cwd)[1].stderr
    tree = [  # (depth, module), each module printed after what it imported, one level deeper
        (len(name) - len(name.lstrip()), name.strip())
        for line in printed.splitlines() if line.startswith("import time:") and line.split("|")[1].strip().isdigit()
        for name in [line.rsplit("|", 1)[1][1:]]
    ]  # fmt: skip
    ours = ("workbench", "__editable__")
    names = set()
    for i, (depth, name) in enumerate(tree):
        importer = next((n for d, n in tree[i + 1 :] if d < depth), None)
        if not name.startswith(ours) and (importer is None or importer.startswith(ours)):
            names.add(name)
    argv = [sys.executable, "-c", f"import {', '.join(sorted(names))}"]
    if timed(argv, cwd)[1].returncode != 0:  # (this also writes their bytecode if it is not there yet)
        raise RuntimeError(f"cannot import the start-up's libraries: {argv}")
    return median_of(argv, cwd, 9)


def traces(out: Path) -> dict[str, list[dict[str, object]]]:
    """Every run folder's trace under ``out``, keyed by scenario file and profile, minus wall-clock facts."""
    found: dict[str, list[dict[str, object]]] = {}
    for trace in sorted(out.rglob("trace.jsonl")):
        lines = [json.loads(line) for line in trace.read_text().splitlines()]
        key = f"{lines[0].get('file')} {lines[0].get('profile')}"
        found[key] = [{k: v for k, v in line.items() if k not in VOLATILE} for line in lines]
    return found


def corpus_rows(wb: list[str], corpus: Path, root: Path) -> list[tuple[str, str, str, str, bool]]:
    """`run CORPUS` with -j 2 and -j 1, and -j 2 with new-Python agents, twice each (after a warm-up
    run that writes the goldens); the reports and every step of every trace must be the same."""
    timed([*wb, "run", str(corpus), "-j", "2"], root)
    walls: dict[str, float] = {}
    reports: dict[str, list[dict[str, object]]] = {}
    steps: dict[str, dict[str, list[dict[str, object]]]] = {}
    for label, jobs, env in (("j2", "2", {}), ("j1", "1", {}), ("exec", "2", NO_FORK)):
        runs = []
        for i in range(2):
            out = root / f"out-{label}-{i}"
            argv = [*wb, "run", str(corpus), "-j", jobs, "--report", f"{label}.json", "--out", str(out)]
            wall, _done = timed(argv, root, env)
            runs.append(wall)
        walls[label] = min(runs)
        reports[label] = [
            {k: v for k, v in s.items() if k not in VOLATILE}
            for s in json.loads((root / f"{label}.json").read_text())["scenarios"]
        ]
        steps[label] = traces(root / f"out-{label}-1")
    # the floor: no batch ends before its slowest scenario does
    durations = json.loads((root / "j1.json").read_text())["scenarios"]
    slowest = max(durations, key=lambda s: s["duration_ms"])["name"]
    alone = min(timed([*wb, "run", str(corpus), "-k", slowest], root)[0] for _ in range(2))
    same = reports["j2"] == reports["j1"] == reports["exec"]
    same_steps = bool(steps["j2"]) and steps["j2"] == steps["j1"] == steps["exec"]
    n = len(reports["j2"])
    return [
        (f"corpus ({n} scenarios), -j 2", f"{walls['j2']:.2f} s", f"{walls['j1'] / walls['j2']:.2f}x -j 1 "
         f"({walls['j1']:.2f} s)", "< 5 s", walls["j2"] < 5.0),
        (f"  its slowest scenario alone ({slowest})", f"{alone:.2f} s", f"{walls['j2'] / alone:.2f}x of it", "",
         True),
        ("  same, agents as new Pythons", f"{walls['exec']:.2f} s", f"{walls['exec'] / walls['j2']:.2f}x the forked",
         "", True),
        ("corpus reports, -j 2 / -j 1 / new Python", "identical" if same else "DIFFERENT", "", "identical", same),
        (f"corpus traces ({len(steps['j2'])} runs), same three", "identical" if same_steps else "DIFFERENT", "",
         "identical", same_steps),
    ]  # fmt: skip


def median_of(argv: list[str], cwd: Path, n: int) -> float:
    return statistics.median(timed(argv, cwd)[0] for _ in range(n))


def main() -> int:
    corpus = Path(sys.argv[sys.argv.index("--corpus") + 1]).resolve() if "--corpus" in sys.argv else None
    wb = [sys.executable, "-m", "workbench"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bare = median_of([sys.executable, "-c", "pass"], root, 10)

        long = root / "thirty.yaml"
        long.write_text(scripted_30s())
        timed([*wb, "run", str(long)], root)  # writes the goldens
        runs, cpus = [], []
        for _ in range(5):
            wall, cpu, done = timed_cpu([*wb, "run", "--ci", str(long), "--report", "r.json"], root)
            if done.returncode != 0:
                print(done.stdout, done.stderr)
                return 1
            runs.append(wall)
            cpus.append(cpu)
        virtual_ms = json.loads((root / "r.json").read_text())["scenarios"][0]["virtual_ms"]
        wall30, cpu30 = statistics.median(runs), statistics.median(cpus)

        suite = root / "suite"
        suite.mkdir()
        for i in range(20):
            (suite / f"t{i:02}.yaml").write_text(TRIVIAL.format(i=i))
        timed([*wb, "run", str(suite)], root)  # writes nothing, warms caches
        rounds: dict[str, list[float]] = {"j1": [], "j2": [], "start": []}
        cpu: dict[str, list[float]] = {"j1": [], "j2": [], "start": []}
        commands = {
            "j1": [*wb, "run", "--ci", str(suite)],
            "j2": [*wb, "run", "--ci", "-j", "2", str(suite)],
            # start-up and collection without a run (exit 2: nothing selected)
            "start": [*wb, "run", "--ci", "-k", "no-such-scenario", str(suite)],
        }
        for _ in range(5):  # interleaved, so that other load on the machine weighs on each alike
            for key, argv in commands.items():
                wall, used, _done = timed_cpu(argv, root)
                rounds[key].append(wall)
                cpu[key].append(used)
        j1, j2, start = (statistics.median(rounds[k]) for k in ("j1", "j2", "start"))
        cpu_j1, cpu_j2, cpu_start = (statistics.median(cpu[k]) for k in ("j1", "j2", "start"))
        floor = library_floor(commands["start"], root)
        j1_exec = statistics.median(
            timed([*wb, "run", "--ci", str(suite)], root, NO_FORK)[0] for _ in range(2)
        )

        # the same pool on scenarios that do work: 20 copies of the 30 s scenario (runCmds, screenshots)
        busy = root / "busy"
        busy.mkdir()
        for i in range(20):
            (busy / f"b{i:02}.yaml").write_text(scripted_30s().replace("thirty-seconds", f"thirty-{i}"))
        timed([*wb, "run", str(busy)], root)  # writes the goldens
        busy_walls: dict[str, list[float]] = {"1": [], "2": []}
        for _ in range(3):
            for jobs in busy_walls:
                busy_walls[jobs].append(timed([*wb, "run", "--ci", "-j", jobs, str(busy)], root)[0])
        busy_j1, busy_j2 = (statistics.median(busy_walls[k]) for k in ("1", "2"))

        help_s = median_of([*wb, "--help"], root, 10)
        imports = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "workbench", "--help"],
            capture_output=True, text=True, check=False,
        ).stderr  # fmt: skip
        extra = corpus_rows(wb, corpus, root) if corpus is not None else []
        heavy = sorted(
            {
                name
                for name in ("textual", "aiohttp", "workbench.llm", "workbench.app")
                if f" {name}" in imports
            }
        )

    rows = [
        ("30 s scripted at --speed max", f"{wall30 * 1000:.0f} ms", f"{virtual_ms / 1000 / wall30:.0f}x compression",
         "<= 300 ms", wall30 <= 0.3),
        ("  its CPU (command + children)", f"{cpu30 * 1000:.0f} ms", "", "", True),
        ("trivial scenario, fixed cost", f"{j1 / 20 * 1000:.0f} ms", f"{j1 / 20 / bare:.1f}x a bare python start",
         "<= 100 ms", j1 / 20 <= 0.1),
        ("  same, agent as a new Python", f"{j1_exec / 20 * 1000:.0f} ms", f"{j1_exec / j1:.1f}x the forked agent",
         "", True),
        ("20 scenarios, -j 2 vs -j 1", f"{j2:.2f} s vs {j1:.2f} s", f"{j1 / j2:.2f}x throughput", ">= 1.7x",
         j1 / j2 >= 1.7),
        ("  same, past start-up", f"{j2 - start:.2f} s vs {j1 - start:.2f} s",
         f"{(j1 - start) / (j2 - start):.2f}x (start-up {start * 1000:.0f} ms)", "", True),
        ("  CPU: -j 2, -j 1, start-up", f"{cpu_j2:.2f} / {cpu_j1:.2f} / {cpu_start:.2f} s",
         f"best -j 2 possible: {(j1 / (start + (j1 - start) / 2)):.2f}x", "", True),
        ("  start-up floor: its libraries only", f"{floor * 1000:.0f} ms",
         f"best -j 2 possible there: {((floor + j1 - start) / (floor + (j1 - start) / 2)):.2f}x", "", True),
        ("  same on two idle cores (from CPU)", "", f"{cpu_j1 / (cpu_start + (cpu_j2 - cpu_start) / 2):.2f}x",
         "", True),
        ("20 busy scenarios (30 s each), -j 2", f"{busy_j2:.2f} s vs {busy_j1:.2f} s",
         f"{busy_j1 / busy_j2:.2f}x -j 1", "", True),
        ("workbench --help", f"{help_s * 1000:.0f} ms", f"{help_s / bare:.1f}x a bare python start ({bare * 1000:.0f} ms)",
         "< 200 ms", help_s < 0.2),
        ("--help imports textual/servers", ", ".join(heavy) or "none", "", "none", not heavy),
        *extra,
    ]  # fmt: skip
    print(f"{'measure':34} {'value':22} {'ratio':40} {'target':9} ok")
    for name, value, ratio, target, ok in rows:
        print(f"{name:34} {value:22} {ratio:40} {target:9} {'yes' if ok else 'NO'}")
    print(f"(cpus: {os.cpu_count()}, python {sys.version.split()[0]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
