"""The command line as a user meets it: exit codes, diagnostics on stderr, fast start."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.conftest import REPO, SCENARIOS, write


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_validate_the_examples() -> None:
    done = run("validate", "scenarios")
    assert done.returncode == 0, done.stderr
    assert " valid, 0 invalid" in done.stdout


def test_validate_reports_file_line_col_and_exits_2(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.yaml", "timeline:\n  - fly: away\n")
    good = write(tmp_path, "good.yaml", "timeline:\n  - log: hi\n    extra: 1\n")
    done = run("validate", str(bad), str(good), cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert any(line.startswith("bad.yaml:2:5: error: unknown event `fly`") for line in lines), done.stderr
    assert any(line.startswith("good.yaml:3:5: warning: unknown key `extra`") for line in lines), done.stderr
    assert "1 valid, 1 invalid, 1 warning (2 files)" in done.stdout
    assert "Traceback" not in done.stderr


def test_warnings_alone_do_not_fail(tmp_path: Path) -> None:
    good = write(tmp_path, "good.yaml", "someday: 1\ntimeline: []\n")
    done = run("validate", str(good))
    assert done.returncode == 0
    assert ":1:1: warning: unknown key `someday`" in done.stderr


def test_missing_path_and_bad_flag_exit_2(tmp_path: Path) -> None:
    done = run("validate", str(tmp_path / "nope.yaml"))
    assert done.returncode == 2 and "nope.yaml:1:1: error: file not found" in done.stderr
    done = run("validate", "--frobnicate", "x")
    assert done.returncode == 2 and "unrecognized arguments" in done.stderr
    done = run("validate", str(tmp_path))
    assert done.returncode == 2 and "no scenario files" in done.stderr


@pytest.mark.parametrize("command", ["validate", "run", "show", "edit"])
def test_a_name_too_long_for_the_file_system_is_a_usage_error(tmp_path: Path, command: str) -> None:
    """``stat`` fails with ENAMETOOLONG (an OSError that ``Path.exists`` passes on): exit 2, no crash file."""
    long = "a" * 300 + ".yaml"
    done = run(command, long, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert (
        f"{long}: cannot be looked up: File name too long" in done.stderr
        and "internal error" not in done.stderr
    )


def test_timeline_prints_the_schedule(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", "name: t\ntimeline:\n  - assistant: [[250, hello]]\n  - screenshot: s\n")
    done = run("timeline", str(path))
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert rows[0].split() == ["#", "time", "(s)", "actor", "event", "line"]
    assert rows[2].split() == ["0", "0.250", "agent", "assistant", '"hello"', "3"]
    assert rows[3].split() == ["1", "0.250", "control", "screenshot", "s", "4"]
    assert rows[-1] == "t: 2 steps, 0.250 s of virtual time"


def test_timeline_of_an_invalid_file_exits_2(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", "timeline:\n  - userInputs: [[900, a]]\n  - advanceMs: 10\n")
    done = run("timeline", str(path))
    assert done.returncode == 2
    assert f"{path}:3:5: error: advanceMs 10 is shorter than the user input at line 2" in done.stderr


def test_schema_is_valid_draft7_and_accepts_the_yaml_examples() -> None:
    done = run("schema")
    assert done.returncode == 0
    schema = json.loads(done.stdout)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    for path in sorted(SCENARIOS.glob("*.yaml")) + sorted(SCENARIOS.glob("*.json")):
        doc = yaml.safe_load(path.read_text())
        errors = [e.message for e in validator.iter_errors(doc)]
        assert not errors, f"{path.name}: {errors[:3]}"
    assert set(schema["properties"]) >= {
        "name",
        "timeline",
        "repo",
        "command",
        "terminalRef",
        "expect",
        "rules",
    }


def test_what_the_schema_calls_milliseconds_is_named_as_a_time() -> None:
    """`agentEdits.linesAdded` and `linesRemoved` were described as "milliseconds" (they count lines): a
    description the app's completion and an editor's schema support show beside the key."""
    schema = json.loads(run("schema").stdout)
    timed: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for name, value in (node.get("properties") or {}).items():
                if isinstance(value, dict) and "millisecond" in str(value.get("description", "")):
                    timed.add(name)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert timed and all(re.search(r"(?i)ms$|time", name) for name in timed), sorted(timed)


def test_schema_rejects_an_unknown_event() -> None:
    schema = json.loads(run("schema").stdout)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"timeline": [{"fly": 1}]}, schema)


def test_help_is_fast_and_imports_no_textual() -> None:
    code = (
        "import sys, time; t = time.perf_counter(); from workbench.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "bad = [m for m in sys.modules if m.startswith(('textual', 'aiohttp', 'workbench.app', 'yaml', 'ruamel'))]\n"
        "print(repr(bad))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_an_internal_error_prints_where_the_trace_is(tmp_path: Path) -> None:
    code = (
        "import workbench.cli as c, workbench.cli.schema as s\n"
        "def boom(args):\n    raise RuntimeError('boom')\n"
        "s.run = boom\nraise SystemExit(c.main(['schema']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 3
    assert "internal error: RuntimeError: boom" in done.stderr
    trace = done.stderr.split("the traceback is in ")[1].strip()
    assert "RuntimeError: boom" in Path(trace).read_text()
    Path(trace).unlink()


ENTRY = """\
import atexit, sys, threading, time
atexit.register(lambda: print("exit handler ran", flush=False))
if sys.argv[1] == "thread":
    threading.Thread(target=lambda: (time.sleep(0.3), print("thread finished"))).start()
sys.argv = ["workbench", *sys.argv[2:]]
from workbench.cli import entry
entry()
"""


@pytest.mark.parametrize("thread", ["none", "thread"])
def test_the_program_exits_with_the_command_s_code_its_output_and_exit_handlers(
    tmp_path: Path, thread: str
) -> None:
    """`workbench` skips the interpreter's teardown at exit, but not the exit handlers, nor what is
    buffered on stdout, nor a thread that still runs (Python waits for it)."""
    write(
        tmp_path,
        "fails.yaml",
        "name: fails\ntimeline:\n  - assert:\n      fs:\n        exists: [missing.txt]\n",
    )
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, thread, "run", "--ci", "fails.yaml"],
        cwd=tmp_path, capture_output=True, text=True, check=False, env={**os.environ, "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stdout.rstrip().endswith("exit handler ran"), done.stdout
    assert "0 passed, 1 failed" in done.stdout
    assert ("thread finished" in done.stdout) == (thread == "thread")


@pytest.mark.parametrize("enabled", [True, False])
def test_run_in_process_gives_the_callers_collector_back_as_it_was(tmp_path: Path, enabled: bool) -> None:
    """`run` turns the cyclic collector off for its start-up and freezes what it made; an in-process caller
    (a child here: the collector is global) gets it back on or off as it was, its own frozen objects still
    frozen."""
    write(tmp_path, "s.yaml", "name: s\ntimeline:\n  - userInputs: [[0, hi]]\n")
    code = f"""import gc
from workbench.cli import main
gc.freeze()
kept = gc.get_freeze_count()
{"gc.enable()" if enabled else "gc.disable()"}
main(["run", "s.yaml", "-k", "no-such-scenario", "--out", "out"])
print(gc.isenabled(), gc.get_freeze_count() > kept // 2)  # unfrozen: 0 (a few frozen objects are freed)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip().splitlines()[-1] == f"{enabled} True", done.stdout + done.stderr
