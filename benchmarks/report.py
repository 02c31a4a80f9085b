"""Benchmark: what the HTML report costs to write, how big it is, and how fast it opens.

Measured in one run, each against a baseline from the same run:

* with ``--corpus DIR`` (the Agent Harbor corpus): the time `workbench run --html`
  spends writing the report, timed inside that run's own process, against the
  rest of the same run (target: under 10 %); the time `workbench report html`'s
  work takes on the recorded runs (gathering, the scenario files of skipped
  scenarios for their tags, and writing, in a warm process) against a `run`;
  the whole `report html` command; the report's size; and `run --html` against
  the same `run` without it;
* 100 scenarios of the examples' size (the repository's ``scenarios/``, copied
  under new names until there are 100, or ``--scenarios N``): the report's size (target
  under 5 MB a hundred scenarios), and
  in Debian's Chromium (Selenium) the time until the summary is drawn and until a
  scenario's trace viewer is drawn, from the start of navigation (target under
  1 s each), against a blank page opened the same way.

Run: python benchmarks/report.py [--corpus DIR] [--scenarios N]
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "scenarios"
WB = [sys.executable, "-m", "workbench"]


CPU: list[float] = []  # the CPU seconds (user and system, the command and its children) of each timed command


def timed(argv: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall, done


def size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def corpus_rows(corpus: Path, root: Path) -> list[tuple[str, str, str, str, bool]]:
    run = [*WB, "run", str(corpus), "-j", "2", "--lenient", "--report", "r.json", "--out", "runs"]
    timed(run, root)  # warm caches
    rounds: dict[str, list[float]] = {"run": [], "report": [], "run_html": [], "write": [], "run_cpu": [],
                                      "write_cpu": [], "in_run": [], "in_run_cpu": [], "in_run_ratio": [],
                                      "in_run_cpu_ratio": []}  # fmt: skip
    for n in range(3):  # interleaved, so that other load on the machine weighs on each alike
        shutil.rmtree(root / "runs", ignore_errors=True)
        rounds["run"].append(timed(run, root)[0])
        rounds["run_cpu"].append(CPU[-1])
        wall, done = timed([*WB, "report", "html", "r.json", "runs", "-o", f"html-{n}"], root)
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        rounds["report"].append(wall)
        wall, done = timed([sys.executable, "-c", RUN_HTML, *run[len(WB) :], "--html", f"with-{n}"], root)
        write_wall, write_cpu = (float(x) for x in done.stderr.split()[-2:])
        rounds["run_html"].append(wall)
        rounds["in_run"].append(write_wall)
        rounds["in_run_cpu"].append(write_cpu)
        rounds["in_run_ratio"].append(write_wall / (wall - write_wall))
        rounds["in_run_cpu_ratio"].append(write_cpu / (CPU[-1] - write_cpu))
        wall, cpu = in_process(root)
        rounds["write"].append(wall)
        rounds["write_cpu"].append(cpu)
    run_s, report_s, with_s, write_s, run_cpu, write_cpu = (
        statistics.median(rounds[k]) for k in ("run", "report", "run_html", "write", "run_cpu", "write_cpu")
    )
    in_run, in_run_cpu, in_run_ratio, in_run_cpu_ratio = (
        statistics.median(rounds[k]) for k in ("in_run", "in_run_cpu", "in_run_ratio", "in_run_cpu_ratio")
    )
    n = len(list((root / "html-0" / "data" / "s").glob("*.js")))
    return [
        (f"corpus ({n} scenarios): run --html writing", f"{in_run:.2f} s", f"{in_run_ratio:.1%} of the rest of its run",
         "< 10 %", in_run_ratio < 0.10),
        ("  the same in CPU time", f"{in_run_cpu:.2f} s", f"{in_run_cpu_ratio:.1%} of the run's CPU", "< 10 %",
         in_run_cpu_ratio < 0.10),
        ("  report html's work, warm process", f"{write_s:.2f} s", f"{write_s / run_s:.1%} of a run ({run_s:.2f} s)",
         "< 10 %", write_s / run_s < 0.10),
        ("  the same in CPU time", f"{write_cpu:.2f} s", f"{write_cpu / run_cpu:.1%} of the run's ({run_cpu:.2f} s)",
         "< 10 %", write_cpu / run_cpu < 0.10),
        ("  `report html`, the whole command", f"{report_s:.2f} s", f"{report_s / run_s:.1%} of the run", "", True),
        ("  run --html against run", f"{with_s:.2f} s vs {run_s:.2f} s", f"{(with_s - run_s) / run_s:+.1%}", "< 10 %",
         (with_s - run_s) / run_s < 0.10),
        ("  its size", f"{size(root / 'html-0') / 1e6:.2f} MB", "", "", True),
    ]  # fmt: skip


WRITE = """\
import sys, time
from pathlib import Path
from workbench.report.inputs import gather, tags_of
from workbench.report.write import write_report
started, cpu = time.perf_counter(), time.process_time()
items = gather([Path("r.json"), Path("runs")])
tags_of(items)
write_report(items, Path(sys.argv[1]))
print(time.perf_counter() - started, time.process_time() - cpu)
"""


RUN_HTML = """\
import sys, time
import workbench.cli.run as run_cli
from workbench.cli import main
spent = []
write_html = run_cli._write_html
def timed(*args, **kwargs):
    started, cpu = time.perf_counter(), time.process_time()
    try:
        return write_html(*args, **kwargs)
    finally:
        spent.append((time.perf_counter() - started, time.process_time() - cpu))
run_cli._write_html = timed
main(sys.argv[1:])
print(*spent[0], file=sys.stderr)
"""  # `workbench run ... --html DIR` with the writing of the report timed inside the run's own process


def in_process(root: Path) -> tuple[float, float]:
    """Wall and CPU seconds to gather and write the corpus's report, the interpreter's start left out."""
    shutil.rmtree(root / "in-process", ignore_errors=True)
    done = subprocess.run([sys.executable, "-c", WRITE, "in-process"], cwd=root, capture_output=True, text=True,
                          check=True)  # fmt: skip
    wall, cpu = done.stdout.split()
    return float(wall), float(cpu)


def hundred(root: Path, count: int = 100) -> Path:
    """``count`` scenarios made from the examples (each copy under its own name, beside the examples' data)."""
    suite = root / "hundred"
    shutil.copytree(EXAMPLES, suite)
    shutil.copytree(REPO / "screenshots", root / "screenshots", dirs_exist_ok=True)
    files = sorted(p for p in suite.rglob("*") if p.suffix in (".yaml", ".json") and "_data" not in p.parts
                   and p.name != "scenario.json")  # fmt: skip
    runnable = [p for p in files if "claudeless" not in p.parts]
    n = len(files)
    copy = 0
    while n < count:
        source = runnable[copy % len(runnable)]
        text = source.read_text(encoding="utf-8")
        name = f"{source.stem}-{copy}"
        target = source.with_name(f"{name}{source.suffix}")
        if source.suffix == ".json":
            text = text.replace(f'"name": "{source.stem}"', f'"name": "{name}"', 1)
        else:
            text = text.replace(f"name: {source.stem}", f"name: {name}", 1)
        target.write_text(text, encoding="utf-8")
        copy, n = copy + 1, n + 1
    return suite


def browser(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
                 "--disable-background-networking", f"--user-data-dir={profile}"):  # fmt: skip
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def open_ms(driver: Any, url: str, mark: str | None) -> float:
    """Milliseconds from the start of navigation to ``mark`` (or to the load event for a page without one)."""
    driver.get("about:blank")
    driver.get(url)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if mark is None:
            value = driver.execute_script(
                "const n = performance.getEntriesByType('navigation')[0]; return n && n.loadEventEnd || null"
            )
        else:
            value = driver.execute_script(f"const m = performance.getEntriesByName('{mark}'); return m.length ? m[0].startTime : null")  # fmt: skip
        if value:
            return float(value)
        time.sleep(0.01)
    raise SystemExit(f"{url}: {mark} never came")


# 50 steps on with the right arrow, as a person holding it down: milliseconds of the page's own work
STEPS = """const started = performance.now();
for (let i = 0; i < 50; i++) document.dispatchEvent(new KeyboardEvent("keydown", { key: i < 25 ? "ArrowRight" : "ArrowLeft" }));
document.body.offsetHeight;
return performance.now() - started;"""


def hundred_rows(root: Path, count: int = 100) -> list[tuple[str, str, str, str, bool]]:
    suite = hundred(root, count)
    done = subprocess.run([*WB, "run", str(suite), "-j", "2", "--html", "h100", "--out", "runs100"], cwd=root,
                          capture_output=True, text=True, check=False)  # fmt: skip
    if "HTML report" not in done.stdout:
        raise SystemExit(done.stdout + done.stderr)
    report = root / "h100"
    scenarios = len(list((report / "data" / "s").glob("*.js")))
    mb = size(report) / 1e6
    blank = root / "blank.html"
    blank.write_text("<!doctype html><title>blank</title><p>blank</p>")
    driver = browser(root / "profile")
    try:
        index = (report / "index.html").as_uri()
        biggest = max(range(scenarios), key=lambda n: (report / "data" / "s" / f"{n}.js").stat().st_size)
        times: dict[str, list[float]] = {"blank": [], "summary": [], "scenario": [], "step": []}
        for _ in range(5):
            times["blank"].append(open_ms(driver, blank.as_uri(), None))
            times["summary"].append(open_ms(driver, index, "wb-summary"))
            times["scenario"].append(open_ms(driver, f"{index}#/s/{biggest}", "wb-scenario"))
            times["step"].append(float(driver.execute_script(STEPS)) / 50)
    finally:
        driver.quit()
    blank_ms, summary_ms, scenario_ms, step_ms = (
        statistics.median(times[k]) for k in ("blank", "summary", "scenario", "step")
    )
    return [
        (f"{scenarios} scenarios (examples): size", f"{mb:.2f} MB", "", f"< {count // 20} MB", mb < count / 20),
        ("  summary drawn in Chromium", f"{summary_ms:.0f} ms", f"{summary_ms / blank_ms:.1f}x a blank page ({blank_ms:.0f} ms)",
         "< 1 s", summary_ms < 1000),
        ("  largest scenario's viewer drawn", f"{scenario_ms:.0f} ms", f"{scenario_ms / blank_ms:.1f}x a blank page",
         "< 1 s", scenario_ms < 1000),
        ("  a step on in it (the right arrow)", f"{step_ms:.1f} ms", "", "< 16 ms (a frame)", step_ms < 16),
    ]  # fmt: skip


def main() -> int:
    corpus = Path(sys.argv[sys.argv.index("--corpus") + 1]).resolve() if "--corpus" in sys.argv else None
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # Every command runs as on a user's machine, with its bytecode written and read back (in this
        # temporary folder), as benchmarks/run.py does: a PYTHONDONTWRITEBYTECODE in the environment would
        # make each command compile the sources again, which users never pay twice.
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        rows = corpus_rows(corpus, root) if corpus is not None else []
        count = int(sys.argv[sys.argv.index("--scenarios") + 1]) if "--scenarios" in sys.argv else 100
        rows += hundred_rows(root, count)
    print(f"{'measure':38} {'value':20} {'ratio':40} {'target':8} ok")
    for name, value, ratio, target, ok in rows:
        print(f"{name:38} {value:20} {ratio:40} {target:8} {'yes' if ok else 'NO'}")
    print(f"(cpus: {os.cpu_count()}, python {sys.version.split()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
