"""Fuzz campaign: mutated scenario files through the loader, as `workbench validate` reads them.

Every input is loaded with ``try_load`` and, when it loads, compiled with
``compile_schedule``: the whole path of ``workbench validate``. The only
acceptable outcomes are a scenario or diagnostics that name ``file:line:col``.
Counted as failures: any other exception, a diagnostic without a line and
column, a signal (the worker process died, e.g. a C parser's stack overflow),
an input taking more than 1 s of CPU, and a hang (killed after 10 s). Peak memory is
the worker's maximum resident set size; the worker runs under an address-space
limit so that a memory blow-up is an exception here, not a dead machine.

Inputs come from seed files (the repository's ``scenarios/``, or the folders
given) in YAML, JSON and TOML, through three families of mutation:

* text: delete, insert syntax characters, duplicate a span, flip bytes, insert
  invalid UTF-8;
* structure: parse the seed, replace values (deep nests, long integers, edge
  values) and write it back out in any of the three formats;
* attacks: deep nesting (YAML flow and block, JSON, TOML arrays, inline tables,
  dotted keys and headers, deep tool ``args``), 4,301-digit integers, alias
  bombs, duplicate keys, bad tags (``!!bool maybe``), invalid UTF-8; and
  integers in other bases (``0b``, ``0x``, ``0o``, YAML 1.1 octal) and base 60
  up to 20,000 digits in numeric fields, keys and tags, YAML merge keys (lists,
  non-mappings, nested, repeated), tags and directives, TOML's edge cases
  (infinities, dates, times, bad underscores, surrogate escapes, repeated and
  dotted tables).

Run: nice python benchmarks/fuzz.py [-n 100000] [--seed 1] [--out DIR] [FOLDER...]
Failing inputs are written to ``--out`` (default: a temp folder) to replay.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import resource
import sys
import tempfile
import time
import traceback
from collections import Counter
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the mutation helpers are the property tests' (tests/docpaths.py)

from tests.docpaths import paths, replace  # noqa: E402

SLOW_S = 1.0  # CPU seconds
HANG_S = 10.0  # wall seconds
MEMORY_LIMIT = 2 << 30  # bytes of address space for the worker
SUFFIXES = (".yaml", ".json", ".toml")

# --------------------------------------------------------------------------- the worker


def _worker(conn: Connection, folder: str) -> None:
    """Load each input it is sent; answer (outcome, detail, CPU seconds, peak RSS in KiB).

    CPU time, not wall time, decides "slow": the campaign runs niced beside other
    work, where a 10 ms input can wait a second for the processor.
    """
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    from workbench.scenario.diagnostics import ScenarioError
    from workbench.scenario.loader import try_load
    from workbench.timeline import compile_schedule

    root = Path(folder)
    while True:
        job = conn.recv()
        if job is None:
            return
        name, data = job
        path = root / name
        path.write_bytes(data)
        start = time.process_time()
        outcome, detail = "ok", ""
        try:
            result = try_load(path)
            diagnostics = list(result.diagnostics)
            if result.scenario is not None:
                try:
                    compile_schedule(result.scenario)
                except ScenarioError as exc:
                    diagnostics += exc.diagnostics
            if any(d.severity.value == "error" for d in diagnostics):
                outcome = "diagnostic"
            unplaced = [d for d in diagnostics if d.pos.line < 1 or d.pos.col < 1 or not d.message]
            if unplaced:
                outcome, detail = "unplaced", str(unplaced[0])
        except BaseException as exc:  # counting these is the point
            frames = traceback.extract_tb(exc.__traceback__)[-3:]
            where = " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(frames))
            outcome, detail = "exception", f"{type(exc).__name__}: {str(exc)[:120]} at {where}"
        seconds = time.process_time() - start
        path.unlink(missing_ok=True)
        conn.send((outcome, detail, seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))


class Pool:
    """One worker process, restarted after a signal or a hang."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.ctx = mp.get_context("spawn")
        self.proc: Any = None
        self.conn: Connection | None = None
        self.peak_kib = 0

    def start(self) -> None:
        parent, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child, str(self.folder)), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent

    def run(self, name: str, data: bytes) -> tuple[str, str, float, float]:
        """(outcome, detail, CPU seconds, wall seconds) of one input."""
        if self.proc is None or not self.proc.is_alive():
            self.start()
        assert self.conn is not None
        self.conn.send((name, data))
        started = time.perf_counter()
        try:
            if not self.conn.poll(HANG_S):
                self.proc.kill()
                self.proc.join()
                self.proc = None
                wall = time.perf_counter() - started
                return "hang", f"no answer in {HANG_S:.0f} s", wall, wall
            outcome, detail, seconds, rss = self.conn.recv()
        except (EOFError, ConnectionError):
            self.proc.join()
            code = self.proc.exitcode
            self.proc = None
            wall = time.perf_counter() - started
            return "signal", f"worker died with exit code {code}", wall, wall
        self.peak_kib = max(self.peak_kib, rss)
        return outcome, detail, seconds, time.perf_counter() - started

    def stop(self) -> None:
        if self.proc is not None and self.conn is not None:
            self.conn.send(None)
            self.proc.join(5)
            if self.proc.is_alive():
                self.proc.kill()


# --------------------------------------------------------------------------- inputs


def load_seeds(folders: list[Path]) -> list[tuple[str, str]]:
    """(suffix, text) of every scenario-looking file below ``folders``."""
    seeds = []
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and not path.name.endswith(".style.json"):
                try:
                    seeds.append((path.suffix, path.read_text()))
                except (UnicodeDecodeError, OSError):
                    continue
    return seeds


def parse_seed(suffix: str, text: str) -> Any:
    import tomllib

    import yaml

    try:
        if suffix == ".json":
            return json.loads(text)
        if suffix == ".toml":
            return tomllib.loads(text)
        return yaml.safe_load(text)
    except Exception:  # such a seed is only used for text mutations
        return None


def toml_value(value: Any) -> str:
    """A minimal TOML writer: inline tables and arrays (enough for mutated documents)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value) if value == value and abs(value) != float("inf") else "nan"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps("" if value is None else str(value))


def dump(doc: Any, suffix: str) -> str:
    import yaml

    if suffix == ".json":
        return json.dumps(doc, default=str)
    if suffix == ".toml":
        if not isinstance(doc, dict):
            doc = {"value": doc}
        return "".join(f"{json.dumps(str(k))} = {toml_value(v)}\n" for k, v in doc.items())
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def deep(rng: random.Random, suffix: str) -> str:
    """Nesting from a few hundred to 50,000 levels, in a form the format allows."""
    n = rng.choice([150, 600, 1200, 5000, 50_000])
    kind = rng.randrange(4)
    if suffix == ".json":
        inner = "[" * n + "]" * n if kind % 2 else '{"a":' * n + "1" + "}" * n
        if kind >= 2:  # deep tool args inside a real event
            return json.dumps({"timeline": [{"agentToolUse": {"toolName": "runCmd", "args": "X"}}]}).replace(
                '"X"', inner
            )
        return '{"timeline": [], "x": ' + inner + "}"
    if suffix == ".toml":
        return [
            "x = " + "[" * n + "]" * n + "\n",
            "x = " + "{a = " * n + "1" + "}" * n + "\n",
            "a" + ".a" * n + " = 1\n",
            "[a" + ".a" * n + "]\nb = 1\n",
        ][kind]
    return [
        "timeline: []\nx: " + "[" * n + "]" * n + "\n",
        "timeline: []\nx:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(min(n, 5000))),
        "- " * n + "x\n",
        "timeline:\n  - agentToolUse:\n      toolName: runCmd\n      args: "
        + "{a: " * n
        + "1"
        + "}" * n
        + "\n",
    ][kind]


def attack(rng: random.Random, suffix: str) -> bytes:
    """One of the input classes known to break parsers."""
    digits = "9" * rng.choice([4300, 4301, 5000, 20_000])
    kind = rng.randrange(10)
    if kind >= 6:
        return numbers_tags_and_edges(rng, suffix, kind - 6).encode("utf-8", "surrogatepass")
    if kind == 0:
        text = deep(rng, suffix)
    elif kind == 1:
        text = {
            ".json": '{"timeline": [{"advanceMs": ' + digits + "}]}",
            ".toml": "default_response = " + digits + "\n",
        }.get(suffix, "timeline:\n  - advanceMs: " + digits + "\n")
    elif kind == 2:
        width = rng.choice([3, 9, 10])
        lines = ['a: &a ["' + "x" * rng.randrange(1, 50) + '"]']
        for i in range(rng.choice([5, 9, 20])):
            lines.append(f"a{i}: &a{i} [" + ", ".join([f"*{'a' if i == 0 else f'a{i - 1}'}"] * width) + "]")
        text = "\n".join(lines) + "\ntimeline: []\n"
    elif kind == 3:
        text = {
            ".json": '{"timeline": [], "name": "a", "name": "b"}',
            ".toml": 'default_response = "a"\ndefault_response = "b"\n',
        }.get(suffix, "name: a\nname: b\ntimeline: []\n")
    elif kind == 4:
        tag = rng.choice(["!!bool maybe", "!!int x", "!!float y", "!!null z", "!!binary ***", "!!python/object:os.system x", "!!timestamp q", "!foo bar", "!!set {a: 1}", "!!omap [1]", "!!int", "!!float ''", "!!bool", "!!null"])  # fmt: skip
        text = f"name: {tag}\ntimeline: []\n"
    else:
        base = {".json": '{"name": "X", "timeline": []}', ".toml": 'default_response = "X"\n'}
        data = base.get(suffix, "name: X\ntimeline: []\n").encode()
        bad = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf"])
        return data.replace(b"X", bad)
    return text.encode()


def other_base(rng: random.Random) -> str:
    """An integer literal in another base or base 60, from a few digits to far past 4,300 decimal ones."""
    n = rng.choice([3, 40, 4000, 14_300, 20_000])
    sign = rng.choice(["", "-", "+"])
    kind = rng.randrange(6)
    if kind == 0:
        return sign + "0b" + "1" * n
    if kind == 1:
        return sign + "0x" + "f" * max(1, n // 4)
    if kind == 2:
        return sign + "0o" + "7" * max(1, n // 3)
    if kind == 3:
        return sign + "0" + "7" * max(1, n // 3)  # YAML 1.1 octal
    if kind == 4:
        return sign + "0x" + "f_" * max(1, n // 8) + "f"
    return sign + "1" + ":59" * max(1, n // 6)  # YAML 1.1 sexagesimal


MERGES = [
    "base: &b {advanceMs: 5}\ntimeline:\n  - <<: *b\n",
    "a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: [*a, *b]\ntimeline: []\n",
    "a: &a [1, 2]\nc:\n  <<: *a\ntimeline: []\n",
    "c:\n  <<: 1\ntimeline: []\n",
    "c: {<<: {<<: {<<: {a: 1}}}}\ntimeline: []\n",
    "c:\n  !!merge <<: {a: 1}\ntimeline: []\n",
    "a: &a {timeline: []}\n<<: *a\n<<: *a\n",
]
TAGS = ["!!str 1", "!!int 0x1F", "!!int 1:30", "!!float .inf", "!!float -.nan", "!!float 1:30.5",
        "!!timestamp 2001-12-14t21:59:43.10-05:00", "!!timestamp 99999-01-01", "!<tag:yaml.org,2002:int> 0b1",
        "!!binary aGk=", "!custom x", "!!map {a: 1}", "!!seq [1]", "!!pairs [a: 1]"]  # fmt: skip
DIRECTIVES = ["", "%YAML 1.1\n---\n", "%TAG !e! tag:example.com,2000:\n---\n", "%YAML 9.9\n---\n"]
TOML_EDGES = ["inf", "-inf", "+nan", "nan", "1e400", "-0.0", "0x_1", "1__0", "0b", "0o8", "1979-05-27T07:32:00Z",
              "1979-05-27", "07:32:00", "1979-05-27T07:32:00.999999999-07:00", "9999-12-31T23:59:60Z",
              '"\\U0010FFFF"', '"\\uD800"', "'''x\n'''", '"""\\\n  x"""', "[]", "{}", "[[]]", "{a.b = 1}",
              "18446744073709551616", "-9223372036854775809"]  # fmt: skip
TOML_KEYS = ["x", '""', "a.b.c", "'quoted'", "timeouts.exit_hint_ms", "responses"]
TOML_TABLES = ["", "[timeouts]\n", "[[responses]]\n", "[a]\n[a]\n", "[a.b]\n[a]\nb = 1\n"]
NUMERIC_FIELDS = ["advanceMs", "width", "timeoutMs", "delay_ms", "exit_hint_ms", "max_matches"]


def numbers_tags_and_edges(rng: random.Random, suffix: str, kind: int) -> str:
    """Integers in other bases and base 60 in numeric fields and keys, YAML merge keys and tags, TOML's
    edge cases (the classes that found the int-string crash of issue 26)."""
    literal = other_base(rng)
    if kind == 0:
        if suffix == ".toml":
            bare = literal.lstrip("+")
            toml = bare if bare.lstrip("-")[:2] in ("0x", "0o", "0b") else literal.replace(":", "")
            field = rng.choice(NUMERIC_FIELDS)
            return rng.choice([f'default_response = "x"\n[timeouts]\nexit_hint_ms = {toml}\n',
                               f'name = "x"\n{field} = {toml}\n', f"x = [{toml}, {toml}]\n"])  # fmt: skip
        if suffix == ".json":
            return '{"timeline": [{"advanceMs": "' + literal + '"}]}'
        return rng.choice([f"name: x\ntimeline:\n  - advanceMs: {literal}\n",
                           f"name: x\nterminal:\n  width: {literal}\ntimeline: []\n",
                           f"name: x\ntimeline: []\nx:\n  {literal}: 1\n",
                           f"name: x\ntimeline:\n  - waitFor: {{regex: a, timeoutMs: {literal}}}\n",
                           f"name: !!int {literal}\ntimeline: []\n"])  # fmt: skip
    if kind == 1 and suffix == ".yaml":
        return rng.choice([*MERGES, f"a: &a {{advanceMs: {literal}}}\ntimeline:\n  - <<: *a\n"])
    if kind == 2 and suffix == ".yaml":
        tag = rng.choice([*TAGS, "!!int " + literal, "!!float " + literal, "!!str " + literal])
        return f"{rng.choice(DIRECTIVES)}name: {tag}\ntimeline:\n  - advanceMs: {tag}\n"
    if suffix == ".toml" or kind == 3:
        edge, key, table = rng.choice(TOML_EDGES), rng.choice(TOML_KEYS), rng.choice(TOML_TABLES)
        return f'default_response = "x"\n{table}{key} = {edge}\n'
    value = rng.choice(["1e400", "-0", "1.5", "9007199254740993", "-1", "NaN", "Infinity"])
    return '{"timeline": [{"advanceMs": ' + value + "}]}"


INSERTS = ["[", "]", "{", "}", ":", "- ", "\t", "'", '"', "\n  ", "&a", "*a", "!!int ", "0x", "0b" + "1" * 15000, ":59" * 3000, "<<: *a\n", "<<: ", "=", ",", "#", "\\", "${", "---\n", "\x00", "1" * 4301]  # fmt: skip
EDGE_VALUES: list[Any] = [-1, 0, 1, 2**40, 2**64, -(2**63), 1e308, "", "x", None, True, [], {}, "../x", "/abs", [[1, "a"]], {"a": 1}, "(", "[]", "\x1b[2J", "a" * 5000]  # fmt: skip


def mutate_text(rng: random.Random, text: str) -> bytes:
    data = text
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(data))
        kind = rng.randrange(4)
        if kind == 0:
            data = data[:at] + data[at + rng.randint(1, 20) :]
        elif kind == 1:
            data = data[:at] + rng.choice(INSERTS) + data[at:]
        elif kind == 2:
            end = min(len(data), at + rng.randint(1, 60))
            data = data[:end] + data[at:end] + data[end:]
        else:
            data = data[:at] + rng.choice("\n\r\t \"':[]{}#&*!|>%@`") + data[at + 1 :]
    raw = data.encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:
        at = rng.randint(0, len(raw))
        raw = raw[:at] + rng.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80"]) + raw[at:]
    return raw


def mutate_structure(rng: random.Random, doc: Any, suffix: str) -> tuple[str, bytes]:
    for _ in range(rng.randint(1, 3)):
        target = rng.choice(paths(doc))
        choice = rng.random()
        if choice < 0.1:
            value: Any = json.loads("[" * 120 + "]" * 120)
        elif choice < 0.15:
            value = "LONGINT"  # placeholder: json and yaml cannot write such an integer
        else:
            value = rng.choice(EDGE_VALUES)
        doc = replace(doc, target, value)
    out_suffix = rng.choice(SUFFIXES) if rng.random() < 0.3 else suffix
    try:
        text = dump(doc, out_suffix)
    except (ValueError, TypeError, RecursionError):
        return suffix, b""
    digits = "7" * rng.choice([4000, 4301, 9000])
    for quoted in ('"LONGINT"', "'LONGINT'", "LONGINT"):
        text = text.replace(quoted, digits)
    try:
        return out_suffix, text.encode("utf-8", "surrogatepass")
    except (ValueError, TypeError, RecursionError):
        return suffix, b""


def inputs(seeds: list[tuple[str, str]], count: int, seed: int) -> Any:
    """(file name, bytes) pairs; a third each of text, structure and attack mutations."""
    rng = random.Random(seed)
    parsed = [(suffix, text, parse_seed(suffix, text)) for suffix, text in seeds]
    for index in range(count):
        suffix, text, doc = rng.choice(parsed)
        family = index % 3
        if family == 2 or (family == 1 and doc is None):
            suffix = rng.choice(SUFFIXES)
            data = attack(rng, suffix)
        elif family == 1:
            suffix, data = mutate_structure(rng, doc, suffix)
        else:
            data = mutate_text(rng, text)
        yield f"in{index % 7}{suffix}", data


# --------------------------------------------------------------------------- the campaign

FAILURES = ("exception", "unplaced", "signal", "hang", "slow")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folders", nargs="*", type=Path, help="seed folders (default: ./scenarios)")
    parser.add_argument("-n", "--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="folder for failing inputs")
    args = parser.parse_args(argv)
    seeds = load_seeds(args.folders or [REPO / "scenarios"])
    if not seeds:
        print("no seed files found", file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix="fuzz-failures-"))
    out.mkdir(parents=True, exist_ok=True)
    counts: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    slowest = slowest_wall = 0.0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fuzz-") as work:
        pool = Pool(Path(work))
        try:
            for index, (name, data) in enumerate(inputs(seeds, args.count, args.seed)):
                outcome, detail, seconds, wall = pool.run(name, data)
                slowest, slowest_wall = max(slowest, seconds), max(slowest_wall, wall)
                if outcome in ("ok", "diagnostic") and seconds > SLOW_S:
                    outcome, detail = "slow", f"{seconds:.2f} s of CPU"
                counts[outcome] += 1
                if outcome in FAILURES:
                    kinds[f"{outcome}: {detail}"] += 1
                    if kinds[f"{outcome}: {detail}"] <= 3:
                        (out / f"{index:06d}-{outcome}{Path(name).suffix}").write_bytes(data)
                if (index + 1) % 5000 == 0:
                    print(
                        f"{index + 1:,} inputs, {time.perf_counter() - started:.0f} s: {dict(counts)}",
                        flush=True,
                    )
        finally:
            pool.stop()
    elapsed = time.perf_counter() - started
    total = sum(counts.values())
    print(f"\n{total:,} inputs from {len(seeds)} seeds in {elapsed:.0f} s ({total / elapsed:.0f}/s)")
    print(f"  loaded: {counts['ok']:,}   diagnostics: {counts['diagnostic']:,}")
    for outcome in FAILURES:
        print(f"  {outcome}: {counts[outcome]}")
    print(
        f"  slowest input: {slowest * 1000:.0f} ms of CPU ({slowest_wall * 1000:.0f} ms wall, machine shared)"
    )
    print(f"  peak memory (worker RSS): {pool.peak_kib / 1024:.0f} MiB")
    for kind, n in kinds.most_common(20):
        print(f"  {n:6d}  {kind}")
    if kinds:
        print(f"failing inputs: {out}")
    return 1 if any(counts[o] for o in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
