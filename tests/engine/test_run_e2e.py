"""`workbench run` end to end: the real CLI, real ptys, real git, real files.

Each test works in its own folder (goldens, run folders and reports land there),
so runs share nothing and the repository stays clean.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.cli_process import report_of, workbench
from tests.conftest import SCENARIOS, write
from tests.processes import running, signals_at_their_defaults, unique_seconds


def test_hello_agent_first_run_writes_goldens_then_ci_matches(tmp_path: Path) -> None:
    scenario = str(SCENARIOS / "hello-agent.yaml")
    first = workbench("run", scenario, "--report", "r1.json", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    golden = tmp_path / "screenshots" / "hello-agent" / "80x24" / "done.golden"
    text = golden.read_text(encoding="utf-8")
    rows = text.split("\n")
    assert len(rows) == 24 and all(len(r) == 80 for r in rows)
    assert not text.endswith("\n") and "\x1b" not in text
    assert "Hello, World!" in text
    r1 = report_of(tmp_path / "r1.json")
    assert r1["version"] == 1
    assert r1["summary"]["passed"] == 1 and r1["summary"]["failed"] == 0
    (entry,) = r1["scenarios"]
    assert entry["name"] == "hello-agent" and entry["mode"] == "mock-agent" and entry["status"] == "passed"
    assert entry["virtual_ms"] > 0
    assert [s["status"] for s in entry["screenshots"]] == ["new"]

    second = workbench("run", "--ci", scenario, "--report", "r2.json", "--junit", "j.xml", cwd=tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    (entry,) = report_of(tmp_path / "r2.json")["scenarios"]
    assert [s["status"] for s in entry["screenshots"]] == ["match"]
    assert golden.read_text(encoding="utf-8") == text
    suite = ET.parse(tmp_path / "j.xml").getroot()
    cases = suite.findall(".//testcase")
    assert [c.get("name") for c in cases] == ["hello-agent"]
    assert cases[0].find("failure") is None


def test_run_folder_has_trace_and_recording(tmp_path: Path) -> None:
    done = workbench("run", str(SCENARIOS / "hello-agent.yaml"), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    runs = list((tmp_path / "target/tmp/workbench/hello-agent/80x24").glob("*-*"))
    run_dirs = [p for p in runs if (p / "trace.jsonl").exists()]
    assert len(run_dirs) == 1
    lines = [json.loads(line) for line in (run_dirs[0] / "trace.jsonl").read_text().splitlines()]
    assert lines[0]["type"] == "run" and lines[-1]["type"] == "result"
    steps = [rec for rec in lines if rec["type"] == "step"]
    assert len(steps) == lines[0]["steps"]
    assert all(len(s["screen"]) == 24 for s in steps)
    write_step = next(
        s for s in steps if s["action"].startswith("tool-") and "hello.py" in json.dumps(s["files"])
    )
    assert {"path": "hello.py", "change": "added"} in write_step["files"]
    cast = (run_dirs[0] / "terminal.cast").read_text().splitlines()
    header = json.loads(cast[0])
    assert header["version"] == 2 and header["width"] == 80 and header["height"] == 24
    events = [json.loads(line) for line in cast[1:]]
    assert any(e[1] == "m" and e[2] == "done" for e in events)
    assert "Hello, World!" in "".join(e[2] for e in events if e[1] == "o")


def test_screens_are_identical_at_speed_1_and_max(tmp_path: Path) -> None:
    scenario = write(tmp_path, "paced.yaml", PACED)
    slow = workbench("run", str(scenario), "--speed", "1", "--goldens", "slow", cwd=tmp_path)
    fast = workbench("run", str(scenario), "--speed", "max", "--goldens", "fast", cwd=tmp_path)
    assert slow.returncode == 0 and fast.returncode == 0, slow.stdout + fast.stdout
    shots = sorted(p.relative_to(tmp_path / "slow") for p in (tmp_path / "slow").rglob("*.golden"))
    assert len(shots) == 3
    for shot in shots:
        assert (tmp_path / "slow" / shot).read_text() == (tmp_path / "fast" / shot).read_text(), shot


PACED = """\
name: paced
repo:
  init: true
timeline:
  - userInputs:
      - [0, "count the files"]
  - llmResponse:
      - think:
          - [120, "Let me look."]
      - assistant:
          - [80, "Listing the folder."]
  - screenshot: thinking
  - runCmd:
      cmd: "printf 'a\\\\nb\\\\n'"
      result: "a\\nb"
      progress:
        - [50, "running"]
  - screenshot: ran
  - llmResponse:
      - assistant:
          - [60, "There are two lines."]
  - screenshot: answered
"""


def test_twenty_runs_in_a_row_produce_identical_goldens(tmp_path: Path) -> None:
    scenario = write(tmp_path, "paced.yaml", PACED)
    first = workbench("run", str(scenario), cwd=tmp_path)
    assert first.returncode == 0, first.stdout
    goldens = {p: p.read_text() for p in (tmp_path / "screenshots").rglob("*.golden")}
    copies = [write(tmp_path, f"copies/c{i:02}.yaml", PACED) for i in range(20)]
    again = workbench("run", "--ci", "-j", "2", *map(str, copies), "--report", "r.json", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    report = report_of(tmp_path / "r.json")
    assert report["summary"]["passed"] == 20
    assert all(s["status"] == "match" for e in report["scenarios"] for s in e["screenshots"])
    assert {p: p.read_text() for p in (tmp_path / "screenshots").rglob("*.golden")} == goldens


def test_mismatched_screenshot_fails_with_line_and_diff(tmp_path: Path) -> None:
    scenario = write(tmp_path, "paced.yaml", PACED)
    assert workbench("run", str(scenario), cwd=tmp_path).returncode == 0
    golden = tmp_path / "screenshots/paced/80x24/ran.golden"
    golden.write_text(golden.read_text().replace("running", "jogging"))
    done = workbench("run", "--ci", str(scenario), "--report", "r.json", "--junit", "j.xml", cwd=tmp_path)
    assert done.returncode == 1
    line = PACED.splitlines().index("  - screenshot: ran") + 1
    assert f"paced.yaml:{line}: screenshot: screenshot `ran` does not match" in done.stdout
    assert "jogging" in done.stdout and "running" in done.stdout  # the diff
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    assert entry["status"] == "failed"
    assert {s["label"]: s["status"] for s in entry["screenshots"]} == {
        "thinking": "match", "ran": "mismatch", "answered": "match",
    }  # fmt: skip
    assert entry["failures"][0]["kind"] == "screenshot" and entry["failures"][0]["line"] == line
    failure = ET.parse(tmp_path / "j.xml").getroot().find(".//testcase/failure")
    assert failure is not None and "ran" in failure.get("message", "")
    assert "jogging" in golden.read_text()  # --ci never rewrites a golden


def test_update_goldens_rewrites_a_mismatch(tmp_path: Path) -> None:
    scenario = write(tmp_path, "paced.yaml", PACED)
    assert workbench("run", str(scenario), cwd=tmp_path).returncode == 0
    golden = tmp_path / "screenshots/paced/80x24/ran.golden"
    good = golden.read_text()
    golden.write_text(good.replace("running", "jogging"))
    done = workbench("run", "--update-goldens", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert golden.read_text() == good
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    assert {s["label"]: s["status"] for s in entry["screenshots"]}["ran"] == "updated"


def test_missing_golden_fails_in_ci_and_writes_nothing(tmp_path: Path) -> None:
    scenario = write(tmp_path, "paced.yaml", PACED)
    done = workbench("run", "--ci", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1
    assert not (tmp_path / "screenshots").exists()
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    assert {s["status"] for s in entry["screenshots"]} == {"missing"}


def test_tool_result_mismatch_is_a_named_failure(tmp_path: Path) -> None:
    scenario = write(tmp_path, "wrong.yaml", """\
name: wrong
timeline:
  - runCmd:
      cmd: echo actual
      result: expected
  - llmResponse:
      - assistant:
          - [10, "done"]
""")  # fmt: skip
    done = workbench("run", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    (failure,) = entry["failures"]
    assert failure["kind"] == "tool" and failure["line"] == 3
    assert "expected" in failure["message"] and "actual" in failure["message"]


def test_assertions_and_expect_check_the_workspace(tmp_path: Path) -> None:
    scenario = write(tmp_path, "checks.yaml", """\
name: checks
repo:
  init: true
  files:
    - path: config.json
      contents: '{"server": {"port": 8080}}'
timeline:
  - writeFile:
      path: out/report.txt
      content: "ok\\n"
  - assert:
      fs:
        exists: [out/report.txt]
        notExists: [missing.txt]
      json:
        file:
          - path: config.json
            pointer: /server/port
            equals: 8080
  - assert:
      fs:
        exists: [nowhere.txt]
expect:
  artifacts:
    - type: file
      pattern: "out/*.txt"
    - type: file
      pattern: "*.log"
""")  # fmt: skip
    done = workbench("run", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    kinds = [(f["kind"], f["line"]) for f in entry["failures"]]
    assert ("assert", 20) in kinds  # nowhere.txt
    assert any(
        kind == "expect" and "*.log" in f["message"]
        for f, (kind, _) in zip(entry["failures"], kinds, strict=True)
    )
    assert len(entry["failures"]) == 2, entry["failures"]
    assert "workspace kept at" in done.stdout  # a failure keeps the workspace


def test_path_escape_in_the_file_is_rejected_before_anything_runs(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    scenario = write(tmp_path, "sub/escape.yaml", """\
name: escape
timeline:
  - writeFile:
      path: ../../outside.txt
      content: "pwned"
""")  # fmt: skip
    done = workbench("run", str(scenario), cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "sub/escape.yaml:4:13: " in done.stderr + done.stdout
    assert not outside.exists()


def test_symlink_escape_at_run_time_fails_the_tool_and_writes_nothing(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    scenario = write(tmp_path, "escape.yaml", f"""\
name: escape
timeline:
  - runCmd:
      cmd: ln -s {outside} out
      status: ok
  - writeFile:
      path: out/pwned.txt
      content: "pwned"
      status: ok
""")  # fmt: skip
    done = workbench("run", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert list(outside.iterdir()) == []
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    (failure,) = entry["failures"]
    assert failure["kind"] == "tool" and failure["line"] == 6
    assert "outside the workspace" in failure["message"]


@pytest.mark.parametrize("name", ["python-repl", "bash-session"])
def test_any_terminal_program_can_be_driven(tmp_path: Path, name: str) -> None:
    scenario = str(SCENARIOS / "programs" / f"{name}.yaml")
    first = workbench("run", scenario, "--report", "r.json", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    again = workbench("run", "--ci", scenario, cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr


def test_the_python_repl_screen(tmp_path: Path) -> None:
    assert workbench("run", str(SCENARIOS / "programs/python-repl.yaml"), cwd=tmp_path).returncode == 0
    shot = (tmp_path / "screenshots/python-repl/60x12/after-print.golden").read_text()
    assert shot.split("\n")[:4] == [
        ">>> total = sum(range(10))".ljust(60),
        ">>> print(f'total={total}')".ljust(60),
        "total=45".ljust(60),
        ">>>".ljust(60),
    ]


def test_hung_program_fails_at_timeout_with_the_screen(tmp_path: Path) -> None:
    sleep = f"sleep {unique_seconds(600)}"  # only this test's sleep, not any other on the machine
    scenario = write(tmp_path, "hung.yaml", f"""\
name: hung
command: [bash, -c, "echo waiting forever; {sleep}"]
timeline:
  - log: nothing to do
expect:
  exitCode: 0
""")  # fmt: skip
    started = time.monotonic()
    done = workbench("run", str(scenario), "--timeout", "2", "--report", "r.json", cwd=tmp_path)
    assert time.monotonic() - started < 60
    assert done.returncode == 1
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    assert entry["failures"][0]["kind"] == "timing"
    assert "waiting forever" in entry["failures"][0]["message"]
    assert running(sleep) == []


def test_ctrl_c_ends_every_child_and_removes_the_workspace(tmp_path: Path) -> None:
    first, second = f"sleep {unique_seconds(777)}", f"sleep {unique_seconds(778)}"
    scenario = write(tmp_path, "long.yaml", f"""\
name: long
command: [bash, -c, "{first} & {second}; wait"]
repo:
  init: true
timeline:
  - advanceMs: 600000
""")  # fmt: skip
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "run", "--speed", "1", str(scenario), "--report", "r.json"],
        cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True, preexec_fn=signals_at_their_defaults,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not running(second) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running(second), "the program never started"
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    assert running(first) == running(second) == []
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    assert (entry["status"], entry["skip_reason"]) == (
        "skipped",
        "not run to its end: the batch was interrupted (Ctrl-C)",
    )
    assert [p.name for p in tmp.iterdir() if p.name.startswith("wb-")] == []


def test_jobs_and_shards_split_deterministically(tmp_path: Path) -> None:
    for i in range(4):
        write(tmp_path, f"suite/s{i}.yaml", f"name: s{i}\ntimeline:\n  - log: hi {i}\n")
    shards = []
    for index in (1, 2):
        done = workbench("run", "suite", "--shard", f"{index}/2", "--report", f"r{index}.json", cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        shards.append([e["name"] for e in report_of(tmp_path / f"r{index}.json")["scenarios"]])
    assert sorted(shards[0] + shards[1]) == ["s0", "s1", "s2", "s3"]
    assert not set(shards[0]) & set(shards[1])
    both = workbench("run", "suite", "-j", "2", "-k", "s1 or s3", "--report", "r.json", cwd=tmp_path)
    assert both.returncode == 0
    assert [e["name"] for e in report_of(tmp_path / "r.json")["scenarios"]] == ["s1", "s3"]


def test_invalid_scenario_exits_2_with_diagnostics(tmp_path: Path) -> None:
    scenario = write(tmp_path, "bad.yaml", "timeline:\n  - fly: away\n")
    done = workbench("run", str(scenario), cwd=tmp_path)
    assert done.returncode == 2
    assert (
        "bad.yaml:2:5: " in done.stderr + done.stdout and "unknown event `fly`" in done.stderr + done.stdout
    )
    assert "Traceback" not in done.stderr + done.stdout


def test_an_ah_section_runs_workbench_ah_with_its_cmd_flags_and_env(tmp_path: Path) -> None:
    fake = write(tmp_path, "bin/fake-ah", '#!/bin/sh\necho "ah argv: $*"\necho "AH_LOG=$AH_LOG"\n')
    fake.chmod(0o755)
    scenario = write(tmp_path, "ah.yaml", """\
name: ah-invocation
ah:
  cmd: agent
  flags: [--agent=mock, --quiet]
  env: {AH_LOG: debug}
timeline:
  - assert:
      text:
        contains: ["ah argv: agent --agent=mock --quiet", "AH_LOG=debug"]
expect:
  exitCode: 0
""")  # fmt: skip
    done = workbench("run", str(scenario), cwd=tmp_path, env={"WORKBENCH_AH": str(fake)})
    assert done.returncode == 0, done.stdout + done.stderr


def test_claudeless_rules_are_skipped_in_mock_agent_mode(tmp_path: Path) -> None:
    done = workbench(
        "run", str(SCENARIOS / "claudeless"), "--report", "r.json", "--junit", "j.xml", cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = report_of(tmp_path / "r.json")
    assert report["summary"]["skipped"] == 3 and {e["status"] for e in report["scenarios"]} == {"skipped"}
    assert "--mode real-agent" in done.stdout
    skipped = ET.parse(tmp_path / "j.xml").getroot().findall(".//testcase/skipped")
    assert len(skipped) == 3


def test_masks_keep_goldens_of_volatile_screens_stable(tmp_path: Path) -> None:
    scenario = write(tmp_path, "clock.yaml", """\
name: clock
command: [bash, -c, "echo started at $(date +%s%N) pid $$; echo stable line; sleep 30"]
masks: ['started at \\d+', 'pid \\d+']
timeline:
  - screenshot: shown
""")  # fmt: skip
    first = workbench("run", str(scenario), cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    golden = (tmp_path / "screenshots/clock/80x24/shown.golden").read_text()
    assert golden.split("\n")[:2] == ["* *".ljust(80), "stable line".ljust(80)]
    again = workbench("run", "--ci", str(scenario), cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr  # new time and pid, same golden
    extra = workbench("run", "--ci", str(scenario), "--mask", "stable", cwd=tmp_path)
    assert extra.returncode == 1 and "does not match" in extra.stdout  # a CLI mask applies too
    bad = write(tmp_path, "bad.yaml", "masks: ['(']\ntimeline:\n  - log: hi\n")
    done = workbench("validate", str(bad), cwd=tmp_path)
    assert done.returncode == 2
    assert "bad.yaml:1:9: error: `masks` item '(' is not a valid regular expression" in done.stderr


def test_wait_for_holds_the_timeline_until_the_screen_shows_the_text(tmp_path: Path) -> None:
    scenario = write(tmp_path, "late.yaml", """\
name: late
command: [bash, --norc, --noprofile, -c, "sleep 0.5; echo READY-1; read line; echo got $line; sleep 0.3; echo DONE-2; cat"]
timeline:
  - waitFor: READY-1
  - userInputs:
      - [0, "hello<Enter>"]
  - waitFor: {regex: "^DONE-\\\\d$", timeoutMs: 5000}
  - assert:
      text:
        contains: ["got hello", "DONE-2"]
""")  # fmt: skip
    done = workbench("run", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_wait_for_times_out_with_the_screen_and_the_steps_line(tmp_path: Path) -> None:
    scenario = write(tmp_path, "never.yaml", """\
name: never
command: [bash, --norc, --noprofile, -c, "echo something else; cat"]
timeline:
  - waitFor: {text: "never shown", timeoutMs: 300}
""")  # fmt: skip
    done = workbench("run", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    (failure,) = entry["failures"]
    assert failure["kind"] == "timing" and failure["line"] == 4
    assert "'never shown'" in failure["message"] and "something else" in failure["message"]


def test_wait_for_with_a_bad_regex_is_invalid_input_at_its_line(tmp_path: Path) -> None:
    scenario = write(tmp_path, "bad.yaml", """\
name: bad
command: [cat]
timeline:
  - type: waitFor
    regex: "(unclosed"
""")  # fmt: skip
    done = workbench("validate", str(scenario), cwd=tmp_path)
    assert done.returncode == 2
    assert "bad.yaml:5:" in done.stderr and "regex" in done.stderr
