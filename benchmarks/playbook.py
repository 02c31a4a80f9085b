"""Benchmark: serving a playbook against serving the same conversation from a scenario's timeline,
and what the pytest plugin costs a project's own test collection.

1. One conversation of TURNS turns, each a tool call and an answer, played by the
   mock LLM server to a client in this process (aiohttp, non-streaming JSON, so the
   client measures the server, not an SDK): once from a YAML timeline (the
   baseline: TimelineResponder), once from the equivalent Python playbook
   (PlaybookResponder, with a `.then` callback and a late-bound call each turn).
   Medians of ROUNDS, interleaved; the ratio is playbook / timeline per request.
2. What the pytest plugin adds to every pytest run in an environment with the
   workbench installed: importing it (in a fresh interpreter that has imported
   pytest; the baseline is importing pytest itself), and its collection hook
   on every file of this repository's `tests/` (it collects none of them).
   A whole `pytest --collect-only` with and without `-p no:workbench` is too
   noisy on a shared 2-core machine to show a difference this small.

Run: python benchmarks/playbook.py
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from workbench.llm import LlmServer
from workbench.playbook import Playbook, call, say, when
from workbench.playbook.server import PlaybookServer
from workbench.scenario.loader import load_scenario

TURNS = 50
ROUNDS = 7
REPO = Path(__file__).resolve().parents[1]


def timeline_yaml() -> str:
    lines = ["name: bench", "timeline:"]
    for n in range(TURNS):
        lines += [f'  - userInputs: [[0, "turn {n}"]]', "  - llmResponse:", f'      - assistant: [[0, "calling {n}"]]',
                  f"  - agentToolUse: {{toolName: runCmd, args: {{cmd: echo {n}}}}}",
                  "  - llmResponse:", f'      - assistant: [[0, "done {n}"]]', "  - advanceMs: 1"]  # fmt: skip
    return "\n".join(lines) + "\n"


def playbook() -> Playbook:
    seen: list[str] = []
    turns = [when(f"turn {n}", [say(f"calling {n}"), call("runCmd", {"cmd": f"echo {n}"}).then(
        lambda r: seen.append(r.text)), say(f"done {n}")]) for n in range(TURNS)]  # fmt: skip
    return Playbook(turns, name="bench")


async def converse(base_url: str) -> float:
    """The whole conversation; returns seconds per request."""
    headers = {"x-api-key": "bench", "anthropic-version": "2023-06-01"}
    tools = [
        {"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
    ]
    messages: list[dict[str, Any]] = []
    requests = 0
    start = time.perf_counter()
    async with aiohttp.ClientSession() as client:
        for n in range(TURNS):
            messages.append({"role": "user", "content": f"turn {n}"})
            while True:
                body = {"model": "m", "max_tokens": 1000, "messages": messages, "tools": tools}
                async with client.post(base_url + "/v1/messages", json=body, headers=headers) as response:
                    reply = await response.json()
                requests += 1
                messages.append({"role": "assistant", "content": reply["content"]})
                uses = [b for b in reply["content"] if b["type"] == "tool_use"]
                if not uses:
                    break
                messages.append({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": u["id"], "content": f"{n}\n"} for u in uses]})  # fmt: skip
    return (time.perf_counter() - start) / requests


async def one(kind: str) -> float:
    if kind == "timeline":
        server: LlmServer = LlmServer([load_scenario(Path("bench.yaml"), text=timeline_yaml())])
    else:
        server = PlaybookServer(playbook())
    base_url = await server.start()
    try:
        return await converse(base_url)
    finally:
        await server.stop()


def import_seconds(module: str) -> float:
    code = ("import time, pytest; t = time.perf_counter(); import " + module +
            "; print(time.perf_counter() - t)") if module != "pytest" else (
            "import time; t = time.perf_counter(); import pytest; print(time.perf_counter() - t)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    return float(done.stdout)


def hook_seconds_per_file() -> tuple[int, float]:
    """The plugin's `_wanted` check on every file under tests/ (a project's own test paths)."""
    from types import SimpleNamespace

    from workbench.playbook.pytest_plugin import _wanted

    config = SimpleNamespace(args=["tests"], getini=lambda name: [REPO / "scenarios"])
    files = [p for p in (REPO / "tests").rglob("*") if p.is_file()]
    start = time.perf_counter()
    collected = sum(_wanted(p, config) for p in files)  # type: ignore[arg-type]
    assert collected == 0
    return len(files), (time.perf_counter() - start) / len(files)


def main() -> None:
    times: dict[str, list[float]] = {"timeline": [], "playbook": []}
    for _ in range(ROUNDS):
        for kind in times:
            times[kind].append(asyncio.run(one(kind)))
    base, play = statistics.median(times["timeline"]), statistics.median(times["playbook"])
    print(f"per request, {TURNS} turns x 2 requests: timeline {base * 1000:.2f} ms, playbook {play * 1000:.2f} ms, "
          f"ratio {play / base:.2f}")  # fmt: skip
    pytest_import = statistics.median(import_seconds("pytest") for _ in range(5))
    plugin_import = statistics.median(import_seconds("workbench.playbook.pytest_plugin") for _ in range(5))
    print(f"importing pytest {pytest_import * 1000:.1f} ms; then the plugin {plugin_import * 1000:.1f} ms "
          f"(ratio {plugin_import / pytest_import:.3f})")  # fmt: skip
    count, per_file = hook_seconds_per_file()
    print(
        f"collection hook: {per_file * 1e6:.1f} us per file over the {count} files of tests/, none collected"
    )


if __name__ == "__main__":
    main()
