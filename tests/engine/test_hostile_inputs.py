"""What a careless or hostile user gives `workbench run`: outputs that are no files, programs that end
early, names that lead nowhere. Each answer is a clear error or a documented outcome, never a traceback,
a replaced device or a silent pass."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_process import workbench
from tests.conftest import write

SHOT = "name: shot\ntimeline:\n  - userInputs: [[0, hi]]\n  - complete: true\n"


@pytest.mark.parametrize("flag", ["--report", "--junit"])
def test_a_report_into_a_named_pipe_is_written_into_it_not_put_in_its_place(
    tmp_path: Path, flag: str
) -> None:
    """`--report /dev/stdout` (or a pipe a CI step reads) was renamed over: a file took the pipe's place
    (as root, /dev/stdout or /dev/null for every program) and the reader got nothing."""
    write(tmp_path, "shot.yaml", SHOT)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader = subprocess.Popen(["cat", str(pipe)], stdout=subprocess.PIPE, text=True)
    try:
        done = workbench("run", "shot.yaml", flag, str(pipe), cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert pipe.is_fifo()  # still the pipe
        read, _ = reader.communicate(timeout=30)
    finally:
        if reader.poll() is None:  # the pipe was replaced: nobody opens it for writing
            with open(pipe, "w"):
                pass
            reader.wait(timeout=60)
    if flag == "--report":
        assert json.loads(read)["summary"]["passed"] == 1
    else:
        assert read.startswith("<?xml") and 'name="shot"' in read


def test_input_typed_after_the_program_ended_fails_at_that_step_naming_the_exit_code(tmp_path: Path) -> None:
    """A program that exited 3 mid-run was typed to, and the run passed: the exit code is `expect.exitCode`'s
    to check, but input nothing can read is a mistake of the scenario's, said at its line."""
    write(tmp_path, "ends.yaml", 'name: ends\ncommand: ["sh", "-c", "echo bye; exit 3"]\ntimeline:\n'
          "  - waitFor: bye\n  - userInputs: [[0, 'hello<Enter>']]\n  - screenshot: after\n")  # fmt: skip
    write(tmp_path, "ends-checked.yaml", 'name: ends-checked\ncommand: ["sh", "-c", "echo bye; exit 3"]\n'
          "timeline:\n  - waitFor: bye\nexpect:\n  exitCode: 3\n")  # fmt: skip
    done = workbench("run", "ends.yaml", "ends-checked.yaml", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    entries = {s["name"]: s for s in json.loads((tmp_path / "r.json").read_text())["scenarios"]}
    assert entries["ends"]["status"] == "failed" and entries["ends-checked"]["status"] == "passed"
    (failure,) = entries["ends"]["failures"]
    assert (failure["line"], failure["kind"]) == (5, "process")
    assert failure["message"].startswith("the program exited with 3 before this input, so nothing reads it")


def test_a_file_name_that_is_not_utf8_is_named_with_escapes_in_every_output(tmp_path: Path) -> None:
    """A scenario file whose name holds a byte that is not UTF-8 (a Latin-1 archive unpacked) crashed the run
    (exit 3) while its trace, JSON or HTML report was written: Python's stand-in for the byte is no UTF-8."""
    folder = os.fsencode(tmp_path / "suite")
    os.mkdir(folder)
    with open(folder + b"/caf\xe9.yaml", "w") as good:
        good.write("name: cafe\ntimeline:\n  - log: hi\n")
    with open(folder + b"/bad\xff.yaml", "w") as bad:
        bad.write("name: bad\ntimeline:\n  - lgo: hi\n")
    outputs = ("--report", "r.json", "--junit", "j.xml", "--html", "html")
    done = workbench("run", "suite", *outputs, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr  # the misspelt event, and nothing else
    assert "suite/bad\\xff.yaml:3:5: validation: unknown event `lgo`" in done.stdout
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert sorted((s["file"], s["name"], s["status"]) for s in report["scenarios"]) == [
        ("suite/bad\\xff.yaml", "bad\\xff", "error"), ("suite/caf\\xe9.yaml", "cafe", "passed")]  # fmt: skip
    assert "caf\\xe9.yaml" in (tmp_path / "j.xml").read_text(encoding="utf-8")
    assert (tmp_path / "html" / "index.html").is_file()
    for trace in (tmp_path / "target").rglob("trace.jsonl"):
        trace.read_text(encoding="utf-8")  # whole, and UTF-8


FAILS = "name: fails\ntimeline:\n  - runCmd: {cmd: 'exit 3', status: ok}\n"


def test_a_reader_that_leaves_early_changes_neither_the_exit_code_nor_the_reports(tmp_path: Path) -> None:
    """`workbench run | head -1`: the closed pipe ended the command with exit 0 and no report, however many
    scenarios had failed (a CI step with pipefail passed)."""
    import sys

    for i in range(3):
        write(tmp_path, f"suite/f{i}.yaml", FAILS.replace("fails", f"fails{i}"))
    (tmp_path / ".tmp").mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "run", "suite", "--report", "r.json", "--html", "html"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "TMPDIR": str(tmp_path / ".tmp")},
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader leaves before the first line
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1, err
    assert err == ""  # a reader that left is no error to report
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["failed"] == 3 and (tmp_path / "html" / "index.html").is_file()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_standard_output_on_a_full_disk_is_said_once_and_the_run_goes_on(tmp_path: Path) -> None:
    """Standard output with no room (a full disk; /dev/full): the run ended as a bug (exit 3) at its first
    line, with no report; other commands did too."""
    import sys

    write(tmp_path, "fails.yaml", FAILS)
    (tmp_path / ".tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / ".tmp")}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "workbench", "run", "fails.yaml", "--report", "r.json"],
                              cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=120)  # fmt: skip
        assert done.returncode == 1, done.stderr
        assert done.stderr == ("workbench: standard output failed (No space left on device): nothing more is "
                               "printed there; the run goes on to its reports and exit code\n")  # fmt: skip
        assert json.loads((tmp_path / "r.json").read_text())["summary"]["failed"] == 1
        for command in (["schema"], ["timeline", "fails.yaml"], ["validate", "fails.yaml"]):
            done = subprocess.run([sys.executable, "-m", "workbench", *command], cwd=tmp_path, stdout=full,
                                  stderr=subprocess.PIPE, text=True, env=env, timeout=120)  # fmt: skip
            assert (done.returncode, done.stderr) == (
                2,
                "workbench: error: cannot write: No space left on device (no room where the output goes)\n",
            )


def test_a_golden_that_is_a_named_pipe_or_a_folder_fails_its_screenshot_and_is_never_waited_on(
    tmp_path: Path,
) -> None:
    """A golden committed as a symlink to a named pipe held the run in its read forever, deaf to Ctrl-C and
    SIGTERM (the read was inside the event loop); a folder for a sidecar was a bare `[Errno 21]`."""
    write(tmp_path, "g.yaml", "name: g\ntimeline:\n  - assistant: [[10, hi]]\n  - screenshot: s\n")
    folder = tmp_path / "screenshots" / "g" / "80x24"
    folder.mkdir(parents=True)
    os.mkfifo(tmp_path / "pipe")
    (folder / "s.golden").symlink_to(tmp_path / "pipe")
    done = workbench("run", "g.yaml", "--ci", cwd=tmp_path, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "g.yaml:4: screenshot: screenshot `s` does not match: screenshots/g/80x24/s.golden is a named pipe, not a " \
           "file: a golden is a file of text" in done.stdout  # fmt: skip
    done = workbench("run", "g.yaml", "--update-goldens", cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "pipe").is_fifo() and not (
        folder / "s.golden"
    ).is_symlink()  # replaced, not written into
    assert (folder / "s.golden").read_text().startswith("✻ Mock agent")
    (folder / "s.golden").unlink()
    (folder / "s.golden").mkdir()
    done = workbench("run", "g.yaml", "--update-goldens", cwd=tmp_path, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "screenshots/g/80x24/s.golden is a folder, not a file" in done.stdout and "Errno" not in done.stdout
    )
