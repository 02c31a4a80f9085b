"""Soak: `serve llm` and `serve rest` under streaming clients, slow connections and clients that leave.

Both servers run as their own processes on 127.0.0.1 (loopback only), side by side, for ``--seconds``
(default 300). Against each, at once:

* ``--streams`` clients (default 300) in a loop: a streamed reply (LLM: a Messages request with
  ``stream: true``; REST: ``POST /sessions`` then its SSE event stream); every fifth one leaves
  mid-stream (closes the connection after the first chunk);
* ``--slow`` connections (default 2,000) that send a request head one byte every 2 s and reconnect
  whenever the server closes them;
* a probe, from a process of its own: one normal request a second (LLM: a small non-streamed
  Messages request; REST: ``GET /sessions``), its wall time recorded.

Streaming clients wait 1 to 3 s between requests, as a client reading its reply would.

Reported: responses with a status of 500 or more, tracebacks on the servers' stderr, each server's
resident memory at the start (after a warm-up) and at the end (after the load stopped and 5 s of
quiet), and the probe's slowest time. Targets: no 500, no traceback, memory back within 20 MB of its
start, every probe under 1 s. The baseline is the last probe of a 3 s warm-up on an almost idle server,
in the same run.

The load runs at ``nice`` 10 in a process of its own; the servers and probes at the caller's priority
(do not run the script under ``nice``: a niced server on a shared machine waits for the CPU).

Run: python benchmarks/soak.py [--seconds 300] [--streams 300] [--slow 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
RULES = 'name = "soak"\ndefault_response = "' + "soak reply " * 40 + '"\n'
SIMULATION = REPO / "scenarios" / "simulation" / "build-status.yaml"
SMALL = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
STREAMED = {**SMALL, "max_tokens": 400, "stream": True}
HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": "soak"}
THINK_S = (1.0, 3.0)


@dataclass
class Tally:
    name: str
    requests: int = 0
    left_mid_stream: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    probes: list[float] = field(default_factory=list)
    slow_reconnects: int = 0
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)

    def status(self, code: int) -> None:
        self.statuses[code] = self.statuses.get(code, 0) + 1


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def start(argv: list[str], stderr: Path) -> tuple[subprocess.Popen[str], str]:
    err = stderr.open("w")
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "serve", *argv], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=err)  # fmt: skip
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


async def read_stream(client: httpx.AsyncClient, request: httpx.Request, tally: Tally, leave: bool) -> None:
    """Read a streamed reply to its end, or leave after the first chunk."""
    response = await client.send(request, stream=True)
    try:
        tally.status(response.status_code)
        async for _chunk in response.aiter_bytes():
            if leave:
                tally.left_mid_stream += 1
                break
    finally:
        await response.aclose()
    tally.requests += 1


async def llm_stream(client: httpx.AsyncClient, url: str, tally: Tally, leave: bool) -> None:
    request = client.build_request("POST", url + "/v1/messages", json=STREAMED, headers=HEADERS)
    await read_stream(client, request, tally, leave)


async def rest_stream(client: httpx.AsyncClient, api: str, tally: Tally, leave: bool) -> None:
    created = await client.post(api + "/sessions", json={})
    tally.status(created.status_code)
    if created.status_code == 201:
        request = client.build_request("GET", f"{api}/sessions/{created.json()['id']}/events")
        await read_stream(client, request, tally, leave)


async def streamer(kind: str, url: str, tally: Tally, until: float, index: int) -> None:
    rng = random.Random(index)
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=1)) as client:
        while time.monotonic() < until:
            leave = rng.random() < 0.2
            try:
                if kind == "llm":
                    await llm_stream(client, url, tally, leave)
                else:
                    await rest_stream(client, url, tally, leave)
            except (httpx.HTTPError, OSError) as exc:
                tally.errors += 1
                tally.error_kinds[type(exc).__name__] = tally.error_kinds.get(type(exc).__name__, 0) + 1
            await asyncio.sleep(rng.uniform(*THINK_S))  # a client reads what it got before asking again


async def slow_connection(url: str, tally: Tally, until: float) -> None:
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    head = b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    while time.monotonic() < until:
        try:
            _reader, writer = await asyncio.open_connection(host, int(port))
        except OSError:
            await asyncio.sleep(1)
            continue
        try:
            for byte in head:
                if time.monotonic() >= until:
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(2)
        except OSError:
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        tally.slow_reconnects += 1


def probe_process(kind: str, url: str, seconds: float, out: Path) -> None:
    """One normal request a second, from a process of its own: the load's client loop, busy with
    thousands of sockets, must not be what the probe measures. Writes ``status seconds`` lines."""
    until = time.monotonic() + seconds
    with httpx.Client(timeout=30) as client, out.open("w") as sink:
        first = True
        while first or time.monotonic() < until:  # one probe at least, however late this process started
            first = False
            started = time.perf_counter()
            try:
                if kind == "llm":
                    status = client.post(url + "/v1/messages", json=SMALL, headers=HEADERS).status_code
                else:
                    status = client.get(url + "/sessions").status_code
            except httpx.HTTPError:
                status = 0
            sink.write(f"{status} {time.perf_counter() - started:.4f}\n")
            sink.flush()
            time.sleep(1)


def read_probes(out: Path, tally: Tally) -> None:
    for line in out.read_text().splitlines():
        status, seconds = line.split()
        if int(status):
            tally.status(int(status))
        else:
            tally.errors += 1
        tally.probes.append(float(seconds))


async def load(targets: dict[str, str], tallies: dict[str, Tally], seconds: float, streams: int,
               slow: int) -> None:  # fmt: skip
    until = time.monotonic() + seconds
    tasks = []
    for kind, url in targets.items():
        tasks += [streamer(kind, url, tallies[kind], until, i) for i in range(streams)]
        tasks += [slow_connection(url, tallies[kind], until) for _ in range(slow)]
    await asyncio.gather(*tasks)


def load_process(targets: dict[str, str], seconds: float, streams: int, slow: int, out: Path) -> None:
    """The load, from a process of its own at a lower priority (``nice`` 10) than the servers and the
    probes: on a shared machine a niced server waited for the CPU behind other programs for seconds,
    which the probe then measured as the server's. Writes each server's tally (JSON) to ``out``."""
    os.nice(10)
    tallies = {kind: Tally(kind) for kind in targets}
    asyncio.run(load(targets, tallies, seconds, streams, slow))
    out.write_text(json.dumps({kind: asdict(tally) for kind, tally in tallies.items()}))


def soak(targets: dict[str, str], seconds: float, streams: int, slow: int, work: Path) -> dict[str, Tally]:
    """The load for ``seconds``, with a probe process per server; each server's tally."""
    context = multiprocessing.get_context("spawn")
    probes = {kind: context.Process(target=probe_process, args=(kind, url, seconds, work / f"{kind}.probe"))
              for kind, url in targets.items()}  # fmt: skip
    for process in probes.values():
        process.start()
    loader = context.Process(target=load_process, args=(targets, seconds, streams, slow, work / "load.json"))
    loader.start()
    loader.join()
    tallies = {kind: Tally(**fields) for kind, fields in json.loads((work / "load.json").read_text()).items()}
    for tally in tallies.values():
        tally.statuses = {int(code): n for code, n in tally.statuses.items()}  # JSON keys are strings
    for kind, process in probes.items():
        process.join(60)
        read_probes(work / f"{kind}.probe", tallies[kind])
    return tallies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--slow", type=int, default=2000)
    args = parser.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(
        resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * (args.streams + args.slow) + 256)), hard)
    )
    with tempfile.TemporaryDirectory(prefix="soak-") as folder:
        work = Path(folder)
        (work / "rules.toml").write_text(RULES)
        llm, llm_url = start(["llm", str(work / "rules.toml")], work / "llm.err")
        rest, rest_url = start(["rest", str(SIMULATION), "--speed", "50"], work / "rest.err")
        servers = {"llm": (llm, llm_url), "rest": (rest, rest_url)}
        try:
            warm = soak({"llm": llm_url, "rest": rest_url}, 3, 5, 0, work)  # warm-up
            baseline = {k: t.probes[-1] for k, t in warm.items()}
            before = {k: rss_mb(p.pid) for k, (p, _) in servers.items()}
            started = time.perf_counter()
            tallies = soak({"llm": llm_url, "rest": rest_url}, args.seconds, args.streams, args.slow, work)
            elapsed = time.perf_counter() - started
            time.sleep(5)
            after = {k: rss_mb(p.pid) for k, (p, _) in servers.items()}
        finally:
            for proc, _ in servers.values():
                proc.terminate()
                proc.wait(timeout=30)
        tracebacks = {k: (work / f"{k}.err").read_text().count("Traceback") for k in servers}
    ok = True
    print(
        f"soak: {elapsed:.0f} s, {args.streams} streaming clients and {args.slow} slow connections per server"
    )
    print(f"{'server':6} {'requests':>9} {'left':>6} {'>=500':>6} {'tracebacks':>10} {'RSS start':>9} "
          f"{'RSS end':>8} {'probe idle':>10} {'probe max':>9} {'slow reconnects':>15}")  # fmt: skip
    for kind, tally in tallies.items():
        fives = sum(n for code, n in tally.statuses.items() if code >= 500)
        worst = max(tally.probes, default=0.0)
        ok = ok and fives == 0 and tracebacks[kind] == 0 and after[kind] - before[kind] <= 20 and worst < 1.0
        print(f"{kind:6} {tally.requests:9,} {tally.left_mid_stream:6,} {fives:6} {tracebacks[kind]:10} "
              f"{before[kind]:8.0f}M {after[kind]:7.0f}M {baseline[kind] * 1000:8.0f}ms {worst * 1000:7.0f}ms "
              f"{tally.slow_reconnects:15,}")  # fmt: skip
        print(
            f"       statuses {json.dumps(dict(sorted(tally.statuses.items())))}, client errors {tally.errors} "
            f"{json.dumps(tally.error_kinds)}"
        )
    print("targets (no 500, no traceback, RSS within 20 MB, probe < 1 s):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
