"""`workbench run --html`, `workbench report html` and `workbench report merge --html` through the real CLI.

The report is read back from its data files: which scenarios it holds, in which
order, what each step carries, and that the folder depends on nothing outside it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.cli_process import workbench
from tests.conftest import SCENARIOS, write
from tests.report.conftest import data_of, make_project
from workbench.report.screens import ScreenStore
from workbench.terminal import Shot


def _summary(report: Path) -> dict:  # type: ignore[type-arg]
    return data_of(report / "data" / "report.js")[0]  # type: ignore[no-any-return]


def _page(report: Path, n: int) -> dict:  # type: ignore[type-arg]
    return data_of(report / "data" / "s" / f"{n}.js")[1]  # type: ignore[no-any-return]


def test_run_html_holds_every_scenario_failures_first_with_its_steps(failed_run: Path) -> None:
    summary = _summary(failed_run / "report")
    assert [(s["name"], s["status"]) for s in summary["scenarios"]] == [
        ("broken-agent", "failed"),
        ("hello-agent", "passed"),
    ]
    assert summary["counts"]["failed"] == 1 and summary["scenarios"][0]["tags"] == ["example", "mock-agent"]
    report = json.loads((failed_run / "report.json").read_text())
    assert [s["entry"] for s in summary["scenarios"]] == sorted(
        report["scenarios"], key=lambda e: e["status"] != "failed"
    )
    page = _page(failed_run / "report", 0)
    assert len(page["steps"]) == 11 and page["profile"] == {"id": "80x24", "width": 80, "height": 24}
    [wrote] = [s for s in page["steps"] if s["files"]]
    assert wrote["files"] == [{"path": "hello.py", "change": "added",
                               "diff": "--- /dev/null\n+++ b/hello.py\n@@ -0,0 +1 @@\n+print('Hello, World!')\n"}]  # fmt: skip
    [shot] = page["shots"]
    assert (shot["label"], shot["status"], shot["changed"], shot["rows"]) == ("done", "mismatch", 1, [9])
    assert len(page["source"]) == 42 and re.sub("<[^>]+>", "", page["source"][30]) == "  - screenshot: done"
    assert page["cast"]["frames"] and page["cast"]["markers"] == [[page["cast"]["markers"][0][0], "done"]]


def test_screens_are_stored_once_however_many_steps_show_them(failed_run: Path) -> None:
    screens = data_of(failed_run / "report" / "data" / "screens.js")[0]
    steps = [s["screen"] for n in range(2) for s in _page(failed_run / "report", n)["steps"]]
    assert len(set(steps)) < len(steps), "steps that leave the screen alone share it"
    assert len(screens["screens"]) == len({tuple(s) for s in screens["screens"]}), "no screen twice"
    assert len(screens["rows"]) == len(set(screens["rows"])), "no row twice"
    page = _page(failed_run / "report", 0)
    [first, second] = page["steps"][:2]
    assert first["changes"] is None and second["changes"] is not None, (
        "step 1 wrote on the screen step 0 left"
    )
    plain, marked = (screens["screens"][second[k]] for k in ("screen", "changes"))
    differ = [a != b for a, b in zip(plain, marked, strict=True)]
    has_marks = [bool(re.search(r'class="[^"]*\bx\b', screens["rows"][b])) for b in marked]
    assert differ == has_marks and 0 < sum(differ) < len(differ), (
        "only the rows with changes are stored again"
    )
    store = ScreenStore()
    a = store.add(Shot.from_text("same\nrow", 10, 3))
    assert (
        store.add(Shot.from_text("same\nrow", 10, 3)) == a
        and store.add(Shot.from_text("same\nnew", 10, 3)) != a
    )
    assert len(store.rows) == 4  # "same", "row", "", "new": the blank and "same" rows are shared


def test_the_report_folder_names_nothing_outside_itself(failed_run: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(failed_run / "report", moved)
    html = (moved / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"""(?:src|href)\s*=\s*["']?([^"' >]+)""", html) == ["#"]
    assert "connect-src 'none'" in html and "@import" not in html and "url(" not in html
    assert not any(path.is_symlink() for path in moved.rglob("*"))
    assert "http://" not in html and "https://" not in html


def test_report_html_from_run_folders_or_a_json_report(failed_run: Path, tmp_path: Path) -> None:
    [run_dir] = (failed_run / "target/tmp/workbench/broken-agent/80x24").glob("2*")
    one = workbench("report", "html", str(run_dir), "-o", str(tmp_path / "one"), cwd=failed_run)
    assert one.returncode == 0 and "HTML report of 1 scenario:" in one.stdout, one.stderr
    assert [s["name"] for s in _summary(tmp_path / "one")["scenarios"]] == ["broken-agent"]
    everything = workbench(
        "report", "html", "target/tmp/workbench", "-o", str(tmp_path / "all"), cwd=failed_run
    )
    assert everything.returncode == 0, everything.stderr
    assert [s["status"] for s in _summary(tmp_path / "all")["scenarios"]] == ["failed", "passed"]
    from_json = workbench("report", "html", "report.json", "-o", str(tmp_path / "json"), cwd=failed_run)
    assert from_json.returncode == 0, from_json.stderr
    assert len(_page(tmp_path / "json", 0)["steps"]) == 11, "the run folder beside the screenshots was found"
    assert _page(tmp_path / "json", 1)["steps"], (
        "a passed scenario without screenshots... found under --out too"
    )


def test_bad_targets_and_sources_are_usage_errors_that_write_nothing(
    failed_run: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("keep me")
    done = workbench("report", "html", "report.json", "-o", str(tmp_path / "notes"), cwd=failed_run)
    assert done.returncode == 2 and "not empty and holds no workbench report" in done.stderr
    assert [p.name for p in (tmp_path / "notes").iterdir()] == ["mine.txt"]
    done = workbench("run", "scenarios", "--html", str(tmp_path / "notes" / "mine.txt"), cwd=failed_run)
    assert done.returncode == 2 and "is a file" in done.stderr and "PASSED" not in done.stdout
    done = workbench("report", "html", "missing-run", "-o", str(tmp_path / "x"), cwd=failed_run)
    assert done.returncode == 2 and "missing-run: no such file or folder" in done.stderr
    done = workbench("report", "html", "scenarios", "-o", str(tmp_path / "x"), cwd=failed_run)
    assert done.returncode == 2 and "no run folder" in done.stderr
    done = workbench("report", "html", "report", "-o", str(tmp_path / "x"), cwd=failed_run)
    assert done.returncode == 2 and "report: is an HTML report, not runs" in done.stderr
    assert "`workbench report merge report --html DIR`" in done.stderr
    assert not (tmp_path / "x").exists()
    again = workbench("report", "html", "report.json", "-o", "report", cwd=failed_run)  # a report is replaced
    assert again.returncode == 0, again.stderr
    merged = tmp_path / "merged"
    done = workbench("report", "merge", "report.json", "--html", str(tmp_path / "notes"), "--report",
                     str(merged / "m.json"), "--junit", str(merged / "m.xml"), cwd=failed_run)  # fmt: skip
    assert done.returncode == 2 and "not empty and holds no workbench report" in done.stderr
    assert not merged.exists(), "refused before the JSON report and JUnit were written"
    done = workbench("run", "scenarios", "--html", "html", "--report", "html/report.json", cwd=failed_run)
    assert done.returncode == 2 and "PASSED" not in done.stdout, "refused before the run, not after it"
    assert "--report html/report.json is --html html or inside it: the report replaces its folder whole" in (
        done.stderr
    )
    done = workbench(
        "report", "merge", "report.json", "--html", "m", "--junit", "m/junit.xml", cwd=failed_run
    )
    assert done.returncode == 2 and "--junit m/junit.xml is --html m or inside it" in done.stderr
    assert not (failed_run / "m").exists() and not (failed_run / "html").exists()
    assert [p.name for p in (tmp_path / "notes").iterdir()] == ["mine.txt"]


def test_sharded_html_reports_merge_into_one(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    shutil.copy(SCENARIOS / "legacy-dialect.yaml", root / "scenarios")
    for shard in (1, 2):
        done = workbench("run", "scenarios", "--shard", f"{shard}/2", "--html", f"shards/{shard}",
                         "--report", f"shards/{shard}.json", cwd=root)  # fmt: skip
        assert done.returncode in (0, 1), done.stdout + done.stderr
    merged = workbench("report", "merge", "shards/1", "shards/2", "--html", "merged", "--report", "m.json",
                       "--junit", "m.xml", cwd=root)  # fmt: skip
    assert merged.returncode == 1, merged.stdout + merged.stderr
    assert "merged 2 reports: 3 scenarios, 2 passed, 1 failed" in merged.stdout
    summary = _summary(root / "merged")
    assert [s["name"] for s in summary["scenarios"]] == ["broken-agent", "hello-agent", "legacy-dialect"]
    assert [s["id"] for s in summary["scenarios"]] == [0, 1, 2]
    assert json.loads((root / "m.json").read_text())["summary"]["failed"] == 1
    for n, name in enumerate(["broken-agent", "hello-agent", "legacy-dialect"]):
        page = _page(root / "merged", n)
        shard = next(
            s for s in ("1", "2") if name in [r["name"] for r in _summary(root / "shards" / s)["scenarios"]]
        )
        original = next(_page(root / "shards" / shard, r["id"]) for r in _summary(root / "shards" / shard)["scenarios"]
                        if r["name"] == name)  # fmt: skip
        assert _screens_of(root / "merged", page) == _screens_of(root / "shards" / shard, original), name
    mixed = workbench("report", "merge", "shards/1", "shards/2.json", "--html", "mixed", cwd=root)
    assert mixed.returncode == 1, mixed.stdout + mixed.stderr
    rows = _summary(root / "mixed")["scenarios"]
    assert sorted(r["name"] for r in rows) == ["broken-agent", "hello-agent", "legacy-dialect"]
    assert all(_page(root / "mixed", r["id"])["steps"] for r in rows), "a JSON shard's runs are found too"
    overlap = workbench("report", "merge", "shards/1", "shards/1.json", "--html", "again", cwd=root)
    assert (
        overlap.returncode == 2 and "the shards overlap" in overlap.stderr and not (root / "again").exists()
    )


def _screens_of(report: Path, page: dict) -> list[str]:  # type: ignore[type-arg]
    """The HTML of every step's screen, whatever the ids are in this report."""
    store = data_of(report / "data" / "screens.js")[0]
    return ["\n".join(store["rows"][r] for r in store["screens"][s["screen"]]) for s in page["steps"]]


def test_a_skipped_scenario_says_why(tmp_path: Path) -> None:
    shutil.copytree(SCENARIOS / "claudeless", tmp_path / "claudeless")
    done = workbench("run", "claudeless/json-rules.json", "--html", "report", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    [row] = _summary(tmp_path / "report")["scenarios"]
    assert row["status"] == "skipped" and "run them with --mode real-agent" in row["reason"]
    assert _page(tmp_path / "report", 0)["steps"] == []


def test_acp_messages_and_model_requests_are_shown_at_their_steps(tmp_path: Path) -> None:
    """`--mode acp` with a real ACP agent (tests/acp/llm_agent.py, on the ACP library) backed by the mock model."""
    from tests.acp.test_acp_mode import WRITE_AND_RUN

    write(tmp_path, "acp.yaml", WRITE_AND_RUN.replace("ANSWER", "yes"))
    done = workbench("run", "--mode", "acp", "acp.yaml", "--html", "report", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    page = _page(tmp_path / "report", 0)
    traffic = [(s["index"], t["kind"], t["title"]) for s in page["steps"] for t in s["traffic"]]
    titles = [title for _, kind, title in traffic if kind == "acp"]
    assert titles[0] == "→ initialize #0" and any(t.startswith("→ session/prompt") for t in titles)
    assert any(t.startswith("← fs/write_text_file") for t in titles)
    assert [kind for _, kind, _ in traffic].count("model") >= 2, "the agent's requests to the mock model"
    [answered] = [s for s in page["steps"] if any(t["kind"] == "model" for t in s["traffic"])][:1]
    assert answered["action"] in ("assistant", "think", "tool-start", "input"), answered
    message = next(
        t for s in page["steps"] for t in s["traffic"] if t["title"].startswith("→ session/prompt")
    )
    assert json.loads(message["json"])["params"]["prompt"][0]["text"] == "Create hello.txt and show it"


def test_a_json_report_finds_runs_without_screenshots_under_the_default_out(tmp_path: Path) -> None:
    write(
        tmp_path, "plain.yaml", "name: plain\ntimeline:\n  - llmResponse:\n      - assistant: [[10, 'hi']]\n"
    )
    done = workbench("run", "plain.yaml", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    html = workbench("report", "html", "r.json", "-o", "out", cwd=tmp_path)
    assert html.returncode == 0, html.stderr
    assert [s["summary"] for s in _page(tmp_path / "out", 0)["steps"]] == ['assistant "hi"']


def test_a_check_that_was_not_made_is_not_shown_as_holding(tmp_path: Path) -> None:
    shutil.copytree(SCENARIOS, tmp_path / "scenarios")
    done = workbench("run", "scenarios/every-event.yaml", "--html", "report", cwd=tmp_path)
    assert "HTML report" in done.stdout, done.stdout + done.stderr
    checks = [c for s in _page(tmp_path / "report", 0)["steps"] for c in s["checks"]]
    [vm] = [c for c in checks if "assertVm" in c["message"]]
    assert vm["ok"] is None, "a skipped check is neither a pass nor a failure"
    assert any(c["ok"] is True for c in checks)


ENDED_EARLY = """\
name: ended-early
command: [sh, -c, "echo started"]
timeline:
  - waitFor: ready
  - screenshot: never
"""
WRONG_EXPECT = """\
name: wrong-expect
timeline:
  - llmResponse:
      - assistant: [[10, "hi"]]
expect:
  exitCode: 3
  artifacts:
    - type: file
      pattern: "*.rs"
"""


def test_a_failure_after_the_last_recorded_step_is_a_step_at_its_line(tmp_path: Path) -> None:
    """A step that never finished, and the `expect` checks made after the last step, are not in the
    trace: the viewer shows a step of their own with the failure's line and the last screen, and opens
    there, not at the last step that finished (or at step 0, where an artifact failure used to be put)."""
    write(tmp_path, "ended-early.yaml", ENDED_EARLY)
    write(tmp_path, "wrong-expect.yaml", WRONG_EXPECT)
    done = workbench("run", ".", "--ci", "--report", "r.json", "--html", "report", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    entries = {e["name"]: e for e in json.loads((tmp_path / "r.json").read_text())["scenarios"]}
    exit_code, artifact = entries["wrong-expect"]["failures"]
    assert (exit_code["line"], artifact["line"]) == (6, 8)
    assert artifact["step"] == exit_code["step"] > 0, "both are checked after the last step"
    for row in _summary(tmp_path / "report")["scenarios"]:
        page = _page(tmp_path / "report", row["id"])
        *recorded, last = page["steps"]
        assert last["actor"] == "run" and all(s["actor"] != "run" for s in recorded), row["name"]
        failures = page["failures"]
        assert last["index"] == failures[0]["step"] > max((s["index"] for s in recorded), default=-1)
        assert last["line"] == failures[0]["line"] and last["screen"] is not None
        assert [c["message"] for c in last["checks"]] == [f["message"] for f in failures]
        assert all(c["ok"] is False for c in last["checks"])
    ended_page = _page(tmp_path / "report", next(r["id"] for r in _summary(tmp_path / "report")["scenarios"]
                                                  if r["name"] == "ended-early"))  # fmt: skip
    assert ended_page["steps"][-1]["line"] == 4, "the waitFor that was never satisfied"
    assert ended_page["steps"][-1]["action"] == "timing"


def test_the_merged_junit_shows_the_screenshot_diff_as_the_shards_junit_did(tmp_path: Path) -> None:
    """The merge job of the README's workflow has the shards' artifacts, not the goldens: the JUnit it
    writes says what differs on the screen, as each shard's JUnit did."""
    root = make_project(tmp_path / "project")
    for shard in (1, 2):
        ran = workbench("run", "scenarios", "--ci", "--shard", f"{shard}/2", "--html", "html",
                         "--report", "report.json", "--junit", "junit.xml", cwd=root)  # fmt: skip
        assert ran.returncode in (0, 1), ran.stdout + ran.stderr
        shutil.copytree(
            root,
            tmp_path / "artifacts" / f"shard-{shard}",
            ignore=shutil.ignore_patterns("scenarios", "screenshots"),
        )
        shutil.rmtree(root / "html")
    shard_junit = next(
        p.read_text() for p in (tmp_path / "artifacts").glob("*/junit.xml") if "<failure" in p.read_text()
    )
    diff_lines = [line for line in shard_junit.splitlines() if "Done: hallo.py" in line or "^" in line]
    assert diff_lines, shard_junit
    for given in ("shard-1/html", "shard-2/html"), ("shard-1/report.json", "shard-2/report.json"):
        merged = workbench("report", "merge", *given, "--junit", "junit.xml", cwd=tmp_path / "artifacts")
        assert merged.returncode == 1, merged.stdout + merged.stderr
        text = (tmp_path / "artifacts" / "junit.xml").read_text()
        assert all(line in text for line in diff_lines), text
        assert all(line.strip() in merged.stdout for line in diff_lines), merged.stdout


def test_a_shard_of_a_matrix_wider_than_the_scenarios_passes_with_empty_reports(tmp_path: Path) -> None:
    """The README's workflow has four shards: a project with fewer scenarios than that still passes."""
    shutil.copy(SCENARIOS / "hello-agent.yaml", tmp_path / "hello-agent.yaml")
    shutil.copytree(
        Path(SCENARIOS).parent / "screenshots" / "hello-agent", tmp_path / "screenshots" / "hello-agent"
    )
    for shard in (1, 2):
        done = workbench("run", "hello-agent.yaml", "--ci", "--shard", f"{shard}/2", "--report", f"{shard}/r.json",
                         "--junit", f"{shard}/j.xml", "--html", f"{shard}/html", cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    assert "shard 2/2 holds no scenario: 1 scenario selected, dealt into 2 shards" in done.stdout
    assert json.loads((tmp_path / "2" / "r.json").read_text())["scenarios"] == []
    assert 'tests="0"' in (tmp_path / "2" / "j.xml").read_text()
    merged = workbench("report", "merge", "1/html", "2/html", "--junit", "j.xml", cwd=tmp_path)
    assert merged.returncode == 0 and "merged 2 reports: 1 scenario, 1 passed" in merged.stdout, merged.stdout
    none = workbench("run", "hello-agent.yaml", "-k", "nothing", "--shard", "1/2", cwd=tmp_path)
    assert none.returncode == 2 and "no scenario matches the selection" in none.stderr, (
        "a -k that matches nothing"
    )


HANGS = """\
name: hangs
command: [sh, -c, "echo waiting; exec cat"]
timeline:
  - waitFor: waiting
  - userInputs:
      - [0, "typed<Enter>"]
  - waitFor:
      text: never shown
      timeoutMs: 600000
"""


def test_a_scenario_a_cancelled_job_stopped_shows_the_steps_it_recorded(tmp_path: Path) -> None:
    """A CI job cancelled at its timeout, most often because a scenario hung: the report of the run
    (written on SIGTERM) shows that scenario's steps and recording up to where it hung."""
    import os
    import signal
    import subprocess
    import sys
    import time

    write(tmp_path, "hangs.yaml", HANGS)
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "run", "hangs.yaml", "--html", "report", "--out", "runs"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60  # only an upper bound: the trace's second step is the condition
        while not any('"index":1' in p.read_text() for p in (tmp_path / "runs").rglob("trace.jsonl")):
            assert time.monotonic() < deadline, "the run recorded its first steps"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 143, out + err
    [row] = _summary(tmp_path / "report")["scenarios"]
    assert row["status"] == "skipped" and "not run to its end" in row["reason"]
    page = _page(tmp_path / "report", 0)
    assert [s["summary"] for s in page["steps"]][:2] == ['waitFor "waiting"', 'input "typed<Enter>"'], page[
        "steps"
    ]
    assert page["cast"] and page["cast"]["frames"], "the recording up to the interruption"
