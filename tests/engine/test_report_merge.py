"""`workbench report merge`: four real shards of the example scenarios, run by the real
CLI each in its own folder (as four CI machines would), merged into one report.

The bad-input cases check each diagnostic's text: a merge must never hide a scenario
(overlapping shards) or half-read a file that is not a report.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import SCENARIOS, write
from tests.engine.test_run_e2e import workbench
from workbench.engine.batch import Selection, collect

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The four shard reports: `workbench run scenarios --shard I/4`, run side by side."""
    root = tmp_path_factory.mktemp("shards")
    procs = []
    for i in range(1, 5):
        cwd = root / f"machine-{i}"  # a checkout of the repository's examples, as a CI machine has
        shutil.copytree(SCENARIOS, cwd / "scenarios")
        (cwd / ".tmp").mkdir()
        argv = ["run", "scenarios", "--shard", f"{i}/4", "--report", "report.json", "--junit", "junit.xml"]
        procs.append((cwd, subprocess.Popen(_cli(*argv), cwd=cwd, env=_env(cwd), stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, text=True)))  # fmt: skip
    for cwd, proc in procs:
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode in (0, 1), out
        assert (cwd / "report.json").is_file(), out
    return [cwd / "report.json" for cwd, _ in procs]


def _cli(*args: str) -> list[str]:
    import sys

    return [sys.executable, "-m", "workbench", *args]


def _env(cwd: Path) -> dict[str, str]:
    import os

    return {**os.environ, "TMPDIR": str(cwd / ".tmp")}


def test_four_shards_merge_into_one_report_of_every_scenario(shards: list[Path], tmp_path: Path) -> None:
    parts = [json.loads(p.read_text()) for p in shards]
    assert all(part["scenarios"] for part in parts), "each of the 4 shards ran something"
    done = workbench("report", "merge", *map(str, shards), "--report", "all.json", "--junit", "all.xml",
                     cwd=tmp_path)  # fmt: skip
    merged = json.loads((tmp_path / "all.json").read_text())
    found = collect([SCENARIOS], Selection(), defines=())
    expected = sorted((f"scenarios/{c.path.relative_to(SCENARIOS)}", c.name) for c in found)
    assert [(s["file"], s["name"]) for s in merged["scenarios"]] == expected
    by_key = {(s["file"], s["name"]): s for part in parts for s in part["scenarios"]}
    assert merged["scenarios"] == [by_key[k] for k in expected], "entries are copied unchanged"
    for status, key in (
        ("passed", "passed"),
        ("failed", "failed"),
        ("error", "errors"),
        ("skipped", "skipped"),
    ):
        assert merged["summary"][key] == sum(p["summary"][key] for p in parts)
        assert merged["summary"][key] == sum(1 for s in merged["scenarios"] if s["status"] == status)
    assert merged["summary"]["duration_ms"] == max(p["summary"]["duration_ms"] for p in parts)
    ok = all(s["status"] in ("passed", "skipped") for s in merged["scenarios"])
    assert done.returncode == (0 if ok else 1), done.stdout + done.stderr
    assert f"merged 4 reports: {len(expected)} scenarios" in done.stdout

    suite = ET.parse(tmp_path / "all.xml").getroot()
    cases = suite.findall("testcase")
    assert [(c.get("file"), c.get("name")) for c in cases] == expected
    assert suite.get("tests") == str(len(expected))
    assert suite.get("skipped") == str(merged["summary"]["skipped"])


def test_a_folder_stands_for_its_reports(shards: list[Path], tmp_path: Path) -> None:
    """CI downloads each shard's artifact into a folder of its own: the parent folder is enough."""
    artifacts = tmp_path / "artifacts"
    for i, path in enumerate(shards, 1):
        write(artifacts, f"shard-{i}/report.json", path.read_text())
    done = workbench("report", "merge", str(artifacts), "--report", "all.json", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    by_args = workbench("report", "merge", *map(str, shards), "--report", "args.json", cwd=tmp_path)
    assert json.loads((tmp_path / "all.json").read_text()) == json.loads((tmp_path / "args.json").read_text())
    assert by_args.returncode == done.returncode


def test_overlapping_shards_are_refused(shards: list[Path], tmp_path: Path) -> None:
    copy = write(tmp_path, "again.json", shards[0].read_text())
    first = json.loads(copy.read_text())["scenarios"][0]
    done = workbench("report", "merge", str(shards[0]), str(copy), "--report", "all.json", cwd=tmp_path)
    assert done.returncode == 2
    assert (
        f"scenario `{first['name']}` ({first['file']}) is in both {shards[0]} and {copy}: "
        "the shards overlap (give each run the same N in --shard I/N)"
    ) in done.stderr
    assert not (tmp_path / "all.json").exists(), "nothing is written from a refused merge"


def test_a_failed_scenario_fails_the_merge_and_is_listed(shards: list[Path], tmp_path: Path) -> None:
    data = json.loads(shards[1].read_text())
    entry = data["scenarios"][0]
    entry["status"] = "failed"
    entry["failures"] = [
        {"step": 3, "line": 12, "kind": "assert", "message": "the screen does not contain 'x'"}
    ]
    bad = write(tmp_path, "bad.json", json.dumps(data))
    done = workbench("report", "merge", str(shards[0]), str(bad), "--junit", "j.xml", cwd=tmp_path)
    assert done.returncode == 1
    assert f"{entry['file']}:12: assert: the screen does not contain 'x'" in done.stdout
    case = next(c for c in ET.parse(tmp_path / "j.xml").getroot() if c.get("name") == entry["name"])
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == "the screen does not contain 'x'"


ENTRY = {"name": "a", "file": "a.yaml", "mode": "mock-agent", "status": "passed", "duration_ms": 5,
         "virtual_ms": 1, "failures": [], "screenshots": []}  # fmt: skip


def report_with(**entry: object) -> str:
    """A valid one-scenario report whose entry has ``entry``'s fields changed."""
    summary = {"passed": 1, "failed": 0, "errors": 0, "skipped": 0, "duration_ms": 5}
    return json.dumps({"version": 1, "summary": summary, "scenarios": [{**ENTRY, **entry}]})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{\n  nope", "bad.json:2:3: not JSON: Expecting property name enclosed in double quotes"),
        ("[1]", "bad.json:1:1: the report must be an object, got list [1]"),
        (
            '{"summary": {"duration_ms": 1}, "scenarios": []}',
            'bad.json:1:1: `version` is missing: a workbench report has `"version": 1`',
        ),
        ('{"version": 2}', "bad.json:1:13: `version` is 2: this workbench reads reports of version 1"),
        ('{"version": null}', "bad.json:1:13: `version` is null: this workbench reads reports of version 1"),
        (
            '{"version": 1,\n "summary": {}}',
            "bad.json:2:13: `summary.duration_ms` is missing: it must be an integer",
        ),
        (
            '{"version": 1, "summary": {"duration_ms": null}}',
            "bad.json:1:43: `summary.duration_ms` must be an integer, got NoneType null",
        ),
        (
            '{"version": 1, "summary": {"duration_ms": 1}, "scenarios": {}}',
            "bad.json:1:60: `scenarios` must be a list, got dict {}",
        ),
        (
            report_with(status="faild"),
            "bad.json:1:178: `scenarios[0].status` is 'faild' (did you mean 'failed'?); allowed: passed, failed, error",
        ),
        (
            report_with(failures=[{"step": 0, "line": 1, "kind": "oops", "message": "m"}]),
            "bad.json:1:267: `scenarios[0].failures[0].kind` is 'oops'; allowed: assert, screenshot, expect, tool",
        ),
        (
            report_with(virtual_ms=True),
            "bad.json:1:220: `scenarios[0].virtual_ms` must be an integer, got bool true",
        ),
        (
            report_with(screenshots=[{"label": "x", "golden": "g", "actual": "a"}]),
            "bad.json:1:255: `scenarios[0].screenshots[0].status` is missing: it must be a string",
        ),
    ],
)
def test_a_file_that_is_not_a_report_is_invalid_input(tmp_path: Path, text: str, message: str) -> None:
    write(tmp_path, "bad.json", text)
    done = workbench("report", "merge", "bad.json", "--report", "out.json", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"workbench report merge: error: {message}" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out.json").exists()


def test_missing_files_and_empty_folders_are_invalid_input(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = workbench("report", "merge", "nope.json", cwd=tmp_path)
    assert done.returncode == 2 and "error: nope.json: no such file or folder" in done.stderr
    done = workbench("report", "merge", "empty", cwd=tmp_path)
    assert done.returncode == 2 and "error: empty: the folder holds no *.json report" in done.stderr
    done = workbench("report", cwd=tmp_path)
    assert done.returncode == 2, "`report` without a subcommand is a usage error"


def test_fields_of_newer_reports_are_kept_as_written(tmp_path: Path) -> None:
    """A report written by a newer workbench (more fields per scenario) merges without losing them."""
    entry = {
        **ENTRY,
        "skipped_checks": [{"kind": "assertVm", "line": 4, "reason": "no VM"}],
        "future": {"x": 1},
    }
    summary = {"passed": 1, "failed": 0, "errors": 0, "skipped": 0, "duration_ms": 5}
    write(tmp_path, "a.json", json.dumps({"version": 1, "summary": summary, "scenarios": [entry]}))
    done = workbench("report", "merge", "a.json", "--report", "all.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "all.json").read_text())["scenarios"] == [entry]


def test_a_skip_reason_reaches_the_report_junit_and_the_merge(tmp_path: Path) -> None:
    """Each skip carries its reason: in `--report` (`skip_reason`), in `--junit` (`<skipped message>`) and
    through `report merge` into both again."""
    write(tmp_path, "needs.yaml", "name: needs\ntimeline:\n  - userCommand: {cmd: wb-no-such-tool --x}\n")
    reason = (
        "needs `wb-no-such-tool` (line 3), not installed here (not on PATH, or its toolchain is not set up)"
    )
    done = workbench("run", "needs.yaml", "--report", "shard.json", "--junit", "shard.xml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = json.loads((tmp_path / "shard.json").read_text())["scenarios"]
    assert (entry["status"], entry["skip_reason"]) == ("skipped", reason)
    skipped = ET.parse(tmp_path / "shard.xml").getroot().find(".//skipped")
    assert skipped is not None and skipped.get("message") == reason
    done = workbench(
        "report", "merge", "shard.json", "--report", "all.json", "--junit", "all.xml", cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (merged,) = json.loads((tmp_path / "all.json").read_text())["scenarios"]
    assert merged["skip_reason"] == reason
    skipped = ET.parse(tmp_path / "all.xml").getroot().find(".//skipped")
    assert skipped is not None and skipped.get("message") == reason
    entry["skip_reason"] = 3
    write(
        tmp_path,
        "bad.json",
        json.dumps({**json.loads((tmp_path / "shard.json").read_text()), "scenarios": [entry]}),
    )
    done = workbench("report", "merge", "bad.json", cwd=tmp_path)
    assert done.returncode == 2 and "scenarios[0].skip_reason" in done.stderr, done.stderr


def test_each_failure_names_its_own_file_in_the_json_and_in_the_merge(tmp_path: Path) -> None:
    """A failure of a define (or of any file but the scenario) lost its file in the JSON report: the
    merge then placed it at the scenario's line 1. (A bad `--define` is a usage error before anything runs;
    `AH_SCENARIO_DEFINES` is read per scenario.)"""
    write(tmp_path, "s.yaml", "name: s\ntimeline:\n  - runCmd: {cmd: 'exit 5', status: ok}\n")
    assert workbench("run", "s.yaml", "--report", "tool.json", cwd=tmp_path).returncode == 1
    bad = {"AH_SCENARIO_DEFINES": "=x"}
    assert workbench("run", "s.yaml", "--report", "define.json", cwd=tmp_path, env=bad).returncode == 2
    (tool,) = json.loads((tmp_path / "tool.json").read_text())["scenarios"][0]["failures"]
    (define,) = json.loads((tmp_path / "define.json").read_text())["scenarios"][0]["failures"]
    assert (tool["file"], tool["line"]) == ("s.yaml", 3)
    assert (define["file"], define["line"]) == ("AH_SCENARIO_DEFINES", 1)
    merged = workbench("report", "merge", "define.json", "--report", "merged.json", cwd=tmp_path)
    assert (
        merged.returncode == 2 and "AH_SCENARIO_DEFINES:1:1: validation: invalid define `=x`" in merged.stdout
    )
    assert json.loads((tmp_path / "merged.json").read_text())["scenarios"][0]["failures"] == [define]
