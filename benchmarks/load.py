"""Benchmark: load, validate and compile a generated 1,000-event scenario.

Baseline, measured in the same run: ruamel.yaml's round-trip load of the same
file (what an editor needs, and what a naive loader would use). Target: our
headless path (libyaml compose + position-aware model + compile) in at most
150 ms, and a whole folder of scenarios validated in under 2 s (the figure in
BENCHMARKS.md is for the 239 files of the compatibility corpus beside the repo).

Run: python benchmarks/load.py [FOLDER]   (FOLDER: scenarios to validate; default ./scenarios)
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from workbench.scenario.diagnostics import ScenarioError
from workbench.scenario.loader import load_scenario, try_load
from workbench.timeline import compile_schedule

REPO = Path(__file__).resolve().parents[1]


def generate(events: int = 1000) -> str:
    """A scenario with a realistic mix of events: responses, tools, inputs, screenshots, advances."""
    lines = ["name: big", "repo: {init: true}", "timeline:"]
    for i in range(events):
        kind = i % 5
        if kind == 0:
            lines += [
                "  - llmResponse:",
                "      - think:",
                "          - relativeTime: 100",
                f"            content: thinking about step {i}",
                "      - assistant:",
                "          - relativeTime: 50",
                f"            content: answer number {i}",
            ]
        elif kind == 1:
            lines += [
                "  - agentToolUse:",
                "      toolName: runCmd",
                "      args:",
                f"        cmd: echo {i}",
                "        cwd: .",
                "      progress:",
                "        - [10, running]",
                f"      result: '{i}'",
                "      status: ok",
            ]
        elif kind == 2:
            lines += ["  - userInputs:", f"      - [0, 'input {i}<Enter>']"]
        elif kind == 3:
            lines += [f"  - screenshot: shot_{i}"]
        else:
            lines += ["  - advanceMs: 1000"]
    return "\n".join(lines) + "\n"


def best_of(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> int:
    from ruamel.yaml import YAML

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.yaml"
        path.write_text(generate())
        text = path.read_text()

        def ours() -> None:
            compile_schedule(load_scenario(path, env={}))

        def ruamel_round_trip() -> None:
            YAML(typ="rt").load(text)

        ours()  # warm imports
        ruamel_round_trip()
        ours_best, ours_median = best_of(ours, 15)
        base_best, base_median = best_of(ruamel_round_trip, 5)
    print("1,000-event scenario (load + validate + compile)")
    print(
        f"  ruamel round-trip load only : {base_median * 1000:7.1f} ms median ({base_best * 1000:.1f} best)"
    )
    print(
        f"  workbench headless path     : {ours_median * 1000:7.1f} ms median ({ours_best * 1000:.1f} best)"
    )
    print(f"  ratio                       : {base_median / ours_median:7.1f}x faster than the baseline")
    print(f"  target <= 150 ms            : {'met' if ours_median <= 0.150 else 'NOT MET'}")

    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "scenarios"
    if folder.is_dir():
        files = [
            p
            for p in folder.rglob("*")
            # (an `agent-wire` folder holds captured API requests, not scenarios)
            if p.suffix in (".yaml", ".yml", ".json", ".toml") and "agent-wire" not in p.parts
        ]
        start = time.perf_counter()
        for f in files:
            result = try_load(f)
            if result.scenario is not None:
                with contextlib.suppress(ScenarioError):
                    compile_schedule(result.scenario)
        elapsed = time.perf_counter() - start
        print(f"{folder}: {len(files)} files validated in {elapsed * 1000:.0f} ms (target < 2000 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
