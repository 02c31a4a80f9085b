"""Benchmark: ACP prompt turns per second, and how long `workbench acp-agent` takes to answer.

Measured in the same run:

* baseline: the SDK alone, an echo agent (``PromptAgent``) in process over a socket pair;
* the scenario agent (``ScenarioAgent``) in process, a 100-turn scenario with a thought and a message per turn;
* the same over stdio (``workbench acp-agent`` as a subprocess, the direct runner);
* the time from spawning ``workbench acp-agent`` to its ``initialize`` answer (Python start + the SDK's import).

Run: python benchmarks/acp_turns.py   (not acp.py: a script beside `import acp` would shadow the SDK)
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from workbench.acp.agent import ScenarioAgent
from workbench.acp.mock import PromptAgent
from workbench.acp.scp import DirectRunner, InProcessRunner, TestContext
from workbench.scenario.loader import load_scenario
from workbench.timeline import compile_schedule

TURNS = 100


def scenario(folder: Path) -> Path:
    lines = ["name: bench-acp", "timeline:"]
    for i in range(TURNS):
        lines += ["  - userInputs:", "      - relativeTime: 0", f"        input: 'prompt {i}'",
                  "  - llmResponse:", "      - think:", "          - relativeTime: 0", f"            content: 'thinking {i}'",
                  "      - assistant:", "          - relativeTime: 0", f"            content: 'answer {i}'"]  # fmt: skip
    path = folder / "bench.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


SPENT: list[float] = []  # seconds of each run's turns, from the first prompt to the last answer


async def talk(ctx: TestContext) -> None:
    session = await ctx.start_session()
    start = time.perf_counter()
    for i in range(TURNS):
        turn = await session.say(f"prompt {i}")
        assert turn.stop_reason == "end_turn"
    SPENT.append(time.perf_counter() - start)


async def nothing(ctx: TestContext) -> None:
    return None


def rate(make: object) -> float:
    """Turns per second of one run (the connection's start-up left out)."""
    asyncio.run(make)  # type: ignore[arg-type]
    return TURNS / SPENT[-1]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = scenario(folder)
        schedule = compile_schedule(load_scenario(path))
        argv = [sys.executable, "-m", "workbench", "acp-agent", str(path)]
        base = rate(InProcessRunner(PromptAgent(lambda t: "answer"), folder).run(talk))
        inproc = rate(InProcessRunner(ScenarioAgent(schedule), folder).run(talk))
        stdio = rate(DirectRunner(argv, folder).run(talk))
        start = time.perf_counter()
        asyncio.run(DirectRunner(argv, folder).run(nothing))
        startup = time.perf_counter() - start
    print(f"SDK echo agent, in process:       {base:8.0f} turns/s (baseline)")
    print(f"scenario agent, in process:       {inproc:8.0f} turns/s ({inproc / base:.2f}x the baseline)")
    print(f"scenario agent, stdio subprocess: {stdio:8.0f} turns/s ({stdio / base:.2f}x the baseline)")
    print(f"acp-agent start to initialize:    {startup * 1000:8.0f} ms")


if __name__ == "__main__":
    main()
