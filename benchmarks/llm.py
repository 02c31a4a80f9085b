"""Benchmark: the mock LLM server against a minimal SSE server written for the benchmark.

Baseline, in the same run: an aiohttp handler that writes pre-encoded Anthropic
events in one go (the least a server can do). Targets (issue #5): time to first
event within 2 ms of the baseline, at least 20,000 events/s from the server,
100 concurrent streams without an error, pacing accurate to 5 ms.

Both servers run in a child process (as they would for a real agent, which is
another process); the client is aiohttp reading SSE lines in this one (the
SDKs are slower than either server, see reference/performance-baselines.md, so
they would measure themselves). Medians of several rounds, baseline and server
interleaved.

Run: python benchmarks/llm.py
"""

from __future__ import annotations

import asyncio
import itertools
import json
import multiprocessing
import statistics
import time

import aiohttp
from aiohttp import web

from workbench.llm import LlmServer
from workbench.scenario import model as m
from workbench.scenario.diagnostics import Pos

WORD = "abcdefghijklmno "  # 16 characters: one text delta each
POS = Pos("bench.yaml")


def rules_text(deltas: int) -> m.Scenario:
    rules = m.RuleSet(
        (m.ResponseRule(m.Pattern("any"), m.Reply(WORD * deltas)),), timeouts=m.Timeouts(response_delay_ms=0)
    )
    return m.Scenario(name="bench", file="bench.toml", format="claudeless", rules=rules)


def paced(items: int, every_ms: int) -> m.Scenario:
    texts = tuple(m.TimedText(every_ms, m.Timing.DELTA, f"chunk {i:03d} ", POS) for i in range(items))
    event = m.LlmResponse(POS, (m.Assistant(texts, POS),))
    return m.Scenario(name="paced", file="paced.yaml", format="agent-harbor", timeline=(event,))


def baseline_app(deltas: int) -> web.Application:
    """The minimal SSE server: the same events, pre-encoded, one write."""
    frames = [("message_start", {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
               "model": "m", "content": [], "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}}),
              ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})]  # fmt: skip
    frames += [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": WORD}})] * deltas  # fmt: skip
    frames += [("content_block_stop", {"type": "content_block_stop", "index": 0}),
               ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}}),
               ("message_stop", {"type": "message_stop"})]  # fmt: skip
    payload = "".join(f"event: {n}\ndata: {json.dumps(d)}\n\n" for n, d in frames).encode()

    async def handler(request: web.Request) -> web.StreamResponse:
        await request.read()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        await response.write(payload)
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_post("/v1/messages", handler)
    return app


async def stream(
    session: aiohttp.ClientSession, url: str, key: str = "bench"
) -> tuple[float, float, int, list[float]]:
    """(time to first text delta, total time, events, arrival time of each text delta)."""
    body = {
        "model": "m",
        "max_tokens": 1_000_000,
        "stream": True,
        "messages": [{"role": "user", "content": "go"}],
    }
    start = time.perf_counter()
    first = -1.0
    events = 0
    arrivals: list[float] = []
    async with session.post(url + "/v1/messages", json=body, headers={"x-api-key": key}) as resp:
        assert resp.status == 200, await resp.text()
        async for line in resp.content:
            if line.startswith(b"data:"):
                events += 1
                if b'"text_delta"' in line:
                    now = time.perf_counter() - start
                    arrivals.append(now)
                    if first < 0:
                        first = now
    return first, time.perf_counter() - start, events, arrivals


def _child(queue: multiprocessing.Queue[str], deltas: int) -> None:
    """Serve the baseline and the mock server (text, concurrency, pacing) until killed."""

    async def run() -> None:
        base = web.AppRunner(baseline_app(deltas), access_log=None)
        await base.setup()
        await web.TCPSite(base, "127.0.0.1", 0).start()
        urls = [f"http://127.0.0.1:{base.addresses[0][1]}"]
        for server in (
            LlmServer([rules_text(deltas)]),
            LlmServer([rules_text(50)]),
            LlmServer([paced(20, 50)], speed=1.0),
        ):
            urls.append(await server.start())
        queue.put(" ".join(urls))
        await asyncio.Event().wait()

    asyncio.run(run())


def start_servers(deltas: int) -> tuple[multiprocessing.Process, list[str]]:
    queue: multiprocessing.Queue[str] = multiprocessing.Queue()
    proc = multiprocessing.Process(target=_child, args=(queue, deltas), daemon=True)
    proc.start()
    return proc, queue.get(timeout=60).split()


async def main() -> None:
    rows: list[tuple[str, str, str]] = []
    for deltas, rounds in ((200, 30), (2000, 8)):
        proc, (base_url, url, concurrent_url, paced_url) = start_servers(deltas)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=200)) as session:
            ttfe: dict[str, list[float]] = {"baseline": [], "server": []}
            rate: dict[str, list[float]] = {"baseline": [], "server": []}
            for _ in range(rounds):
                for name, target in (("baseline", base_url), ("server", url)):
                    first, total, events, _ = await stream(session, target)
                    ttfe[name].append(first * 1000)
                    rate[name].append(events / total)
            for name in ("baseline", "server"):
                rows.append((f"{name}, {deltas} deltas", f"TTFE {statistics.median(ttfe[name]):.2f} ms",
                             f"{statistics.median(rate[name]):,.0f} events/s"))  # fmt: skip
            gap = statistics.median(ttfe["server"]) - statistics.median(ttfe["baseline"])
            rows.append((f"TTFE gap, {deltas} deltas", f"{gap:+.2f} ms", "target: within 2 ms"))
            if deltas == 200:
                start = time.perf_counter()
                results = await asyncio.gather(
                    *(stream(session, concurrent_url, f"k{i}") for i in range(100)), return_exceptions=True
                )
                elapsed = time.perf_counter() - start
                errors = [r for r in results if isinstance(r, BaseException)]
                short = [r for r in results if not isinstance(r, BaseException) and r[2] != 56]
                rows.append(("100 concurrent streams", f"{len(errors)} errors, {len(short)} short",
                             f"{elapsed * 1000:.0f} ms"))  # fmt: skip
                _, _, _, arrivals = await stream(session, paced_url, "paced")
                errs = [abs((b - a) * 1000 - 50) for a, b in itertools.pairwise(arrivals)]
                rows.append(("pacing, 50 ms steps", f"mean error {statistics.mean(errs):.2f} ms",
                             f"max {max(errs):.2f} ms (target 5 ms)"))  # fmt: skip
        proc.kill()
        proc.join()
    width = max(len(r[0]) for r in rows)
    print(f"| {'measure':<{width}} | value | note |\n|{'-' * (width + 2)}|---|---|")
    for row in rows:
        print(f"| {row[0]:<{width}} | {row[1]} | {row[2]} |")


if __name__ == "__main__":
    asyncio.run(main())
