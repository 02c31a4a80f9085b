"""Benchmark: what the recording proxy of `workbench record` adds to time to first token.

The upstream is the mock LLM server (`workbench serve llm`'s server) streaming an
Anthropic reply, in a child process; the recording proxy runs in a second child
process, as `workbench record` does; the client (the agent's side) is aiohttp in
this one, timing a streaming request from send to the first `content_block_delta`.
Baseline in the same run: the same request straight to the upstream. Rounds are
interleaved (direct, proxied, direct, ...) so that load on the machine hits both;
medians and the 90th percentile are reported. Target (issue 25): the proxy adds
under 2 ms to time to first token.

Run: python benchmarks/record.py [ROUNDS]
"""

from __future__ import annotations

import asyncio
import multiprocessing
import statistics
import sys
import time

import aiohttp

from workbench.llm import LlmServer
from workbench.record.proxy import RecordingProxy
from workbench.record.redact import Redactor
from workbench.scenario import model as m

BODY = {"model": "m", "max_tokens": 200, "stream": True, "messages": [{"role": "user", "content": "hi"}]}


def _upstream(queue: multiprocessing.Queue[str]) -> None:
    rules = m.RuleSet((m.ResponseRule(m.Pattern("any"), m.Reply("hello " * 50)),),
                      timeouts=m.Timeouts(response_delay_ms=0))  # fmt: skip
    scenario = m.Scenario(name="bench", file="bench.toml", format="claudeless", rules=rules)

    async def run() -> None:
        server = LlmServer([scenario])
        queue.put(await server.start())
        await asyncio.Event().wait()

    asyncio.run(run())


def _proxy(upstream: str, queue: multiprocessing.Queue[str]) -> None:
    async def run() -> None:
        proxy = RecordingProxy(upstream, Redactor({}), {})
        queue.put(await proxy.start())
        while True:  # a long recording keeps every exchange; a benchmark does not need them
            await asyncio.sleep(1)
            proxy.exchanges.clear()

    asyncio.run(run())


async def first_token(session: aiohttp.ClientSession, url: str) -> float:
    start = time.perf_counter()
    async with session.post(url + "/v1/messages", json=BODY, headers={"x-api-key": "bench"}) as response:
        async for line in response.content:
            if line.startswith(b"event: content_block_delta"):
                elapsed = time.perf_counter() - start
                await response.read()
                return elapsed
    raise RuntimeError("no text delta in the reply")


async def main(rounds: int) -> None:
    queue: multiprocessing.Queue[str] = multiprocessing.Queue()
    children = [multiprocessing.Process(target=_upstream, args=(queue,), daemon=True)]
    children[0].start()
    upstream = queue.get(timeout=30)
    children.append(multiprocessing.Process(target=_proxy, args=(upstream, queue), daemon=True))
    children[1].start()
    proxied = queue.get(timeout=30)
    direct_ms: list[float] = []
    proxy_ms: list[float] = []
    async with aiohttp.ClientSession() as session:
        for _ in range(20):  # warm both paths (connections, code paths)
            await first_token(session, upstream)
            await first_token(session, proxied)
        for _ in range(rounds):
            direct_ms.append(await first_token(session, upstream) * 1000)
            proxy_ms.append(await first_token(session, proxied) * 1000)
    for child in children:
        child.terminate()
    d, p = statistics.median(direct_ms), statistics.median(proxy_ms)
    p90 = lambda xs: statistics.quantiles(xs, n=10)[-1]  # noqa: E731
    print(f"time to first token, {rounds} interleaved rounds (medians; 90th percentile in brackets):")
    print(f"  direct to the upstream:      {d:.2f} ms  [{p90(direct_ms):.2f}]")
    print(f"  through the recording proxy: {p:.2f} ms  [{p90(proxy_ms):.2f}]")
    added = p - d
    print(
        f"  the proxy adds {added:.2f} ms ({p / d:.2f}x): {'met' if added < 2 else 'NOT met'} (target < 2 ms)"
    )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
