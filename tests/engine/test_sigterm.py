"""SIGTERM (a CI runner cancelling) ends `workbench run` like Ctrl-C: exit 143, nothing left behind.

Each test's programs double-fork and call setsid(), so they leave the process
group that a plain group kill would end. Only processes and folders the test
started are looked at: its private TMPDIR, and sleeps with a unique argument.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import write
from tests.processes import running, signals_at_their_defaults, unique_seconds
from workbench.terminal import descendants

pytestmark = pytest.mark.skipif(not descendants.available(), reason="needs /proc (Linux)")

ESCAPE = """\
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", sys.argv[1]])
    os._exit(0)
os.wait()
print("escaped", flush=True)
time.sleep(600)
"""


def long_scenario(tmp_path: Path, name: str, sleep: str) -> Path:
    script = tmp_path / "escape.py"
    script.write_text(ESCAPE)
    return write(tmp_path, f"suite/{name}.yaml", f"""\
name: {name}
command: [{sys.executable}, {script}, "{sleep}"]
repo:
  init: true
timeline:
  - advanceMs: 600000
""")  # fmt: skip


def start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[str], Path]:
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "run", "--speed", "1", "--out", str(tmp_path / "out"), *args],
        cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True, preexec_fn=signals_at_their_defaults,
    )  # fmt: skip
    return proc, tmp


def wait_until(condition: object, what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def finish(proc: subprocess.Popen[str], sig: int, group: bool = False) -> tuple[str, str]:
    try:
        if group:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        return proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


#: SIGTERM (a CI runner cancelling) and SIGHUP (the terminal closed: it killed the run at once, leaving its
#: programs running, its folders and no report), each with the exit code 128 + the signal
STOPS = pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])


@STOPS
def test_sigterm_ends_every_program_removes_every_folder_and_exits_143(
    tmp_path: Path, sig: signal.Signals
) -> None:
    sleep = unique_seconds(600)
    write(tmp_path, "suite/a-fails.yaml", """\
name: a-fails
timeline:
  - assert:
      fs:
        exists: [missing.txt]
""")  # fmt: skip
    long_scenario(tmp_path, "b-long", sleep)
    write(tmp_path, "suite/c-later.yaml", "name: c-later\ntimeline:\n  - advanceMs: 1\n")
    proc, tmp = start(tmp_path, "suite", "--report", "r.json", "--junit", "j.xml", "--html", "html")
    wait_until(lambda: running(f"sleep {sleep}"), "the escaped program")
    out, err = finish(proc, sig)
    assert proc.returncode == 128 + sig, out + err
    assert "Traceback" not in err and "terminated" in err
    # a cancelled CI job keeps its reports: what finished, and what the interruption left without a verdict
    report = json.loads((tmp_path / "r.json").read_text())
    assert [(s["name"], s["status"]) for s in report["scenarios"]] == [
        ("a-fails", "failed"), ("b-long", "skipped"), ("c-later", "skipped")]  # fmt: skip
    assert (
        report["scenarios"][1]["skip_reason"] == f"not run to its end: the batch was interrupted ({sig.name})"
    )
    junit = (tmp_path / "j.xml").read_text()
    assert junit.count("<testcase") == 3 and "missing.txt" in junit and junit.count("<skipped") == 2
    assert "c-later" in (tmp_path / "html" / "index.html").read_text() or any(
        "c-later" in f.read_text(errors="replace") for f in (tmp_path / "html").rglob("*.js"))  # fmt: skip
    assert "1 failed, 0 errors, 2 skipped" in out
    assert running(f"sleep {sleep}") == []
    assert running(str(tmp_path)) == []  # no workbench process of this test survives
    kept = [p for p in tmp.iterdir()]
    assert len(kept) == 1 and kept[0].name.startswith("wb-ws-"), kept  # the failed run's workspace, only
    assert f"workspace kept at {kept[0]}" in out


@STOPS
@pytest.mark.parametrize("group", [False, True], ids=["parent", "process-group"])
def test_sigterm_with_two_jobs_leaves_no_worker_program_or_folder(
    tmp_path: Path, group: bool, sig: signal.Signals
) -> None:
    sleeps = [unique_seconds(600), unique_seconds(600)]
    for i, sleep in enumerate(sleeps):
        long_scenario(tmp_path, f"long{i}", sleep)
    proc, tmp = start(tmp_path, "suite", "-j", "2", "--report", "r.json")
    wait_until(lambda: all(running(f"sleep {s}") for s in sleeps), "both escaped programs")
    out, err = finish(proc, sig, group=group)
    assert proc.returncode == 128 + sig, out + err
    assert "Traceback" not in err
    report = json.loads((tmp_path / "r.json").read_text())
    assert [(s["name"], s["status"]) for s in report["scenarios"]] == [
        ("long0", "skipped"),
        ("long1", "skipped"),
    ]
    for sleep in sleeps:
        assert running(f"sleep {sleep}") == []
    assert running(str(tmp_path)) == []  # no pool worker left (workers share the parent's command line)
    assert list(tmp.iterdir()) == []


def test_a_timeout_ends_a_program_that_left_its_process_group(tmp_path: Path) -> None:
    sleep = unique_seconds(600)
    long_scenario(tmp_path, "hung", sleep)
    proc, _tmp = start(tmp_path, "suite", "--timeout", "3")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, out + err
    assert "timed out" in out
    assert running(f"sleep {sleep}") == []


def test_workers_end_their_runs_when_the_parent_is_killed(tmp_path: Path) -> None:
    """SIGKILL cannot be handled, but the pool workers are told (PR_SET_PDEATHSIG) and clean up themselves."""
    sleeps = [unique_seconds(600), unique_seconds(600)]
    for i, sleep in enumerate(sleeps):
        long_scenario(tmp_path, f"long{i}", sleep)
    proc, tmp = start(tmp_path, "suite", "-j", "2")
    wait_until(lambda: all(running(f"sleep {s}") for s in sleeps), "both escaped programs")
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    wait_until(lambda: not running(str(tmp_path)), "the workers to end")
    for sleep in sleeps:
        assert running(f"sleep {sleep}") == []
    assert list(tmp.iterdir()) == []


def _worker_of(pid: int, parent: int) -> int:
    """The `-j` worker (a child of ``parent``) that ``pid`` descends from."""
    while True:
        up = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        if up == parent:
            return pid
        assert up > 1, "not below the run"
        pid = up


def test_a_worker_killed_from_outside_costs_its_own_scenario_and_leaves_nothing_running(
    tmp_path: Path,
) -> None:
    """The out-of-memory killer (SIGKILL) or a stray `kill` of one `-j` worker was an internal error ("this
    is a bug", exit 3) that cancelled every other scenario, and the killed worker's programs ran on."""
    sleep = unique_seconds(600)
    long_scenario(tmp_path, "long", sleep)
    for name in ("quick1", "quick2"):
        write(tmp_path, f"suite/{name}.yaml", f"name: {name}\ntimeline:\n  - advanceMs: 1\n")
    proc, tmp = start(tmp_path, "suite", "-j", "2", "--report", "r.json")
    wait_until(lambda: running(f"sleep {sleep}"), "the escaped program")
    (escaped,) = running(f"sleep {sleep}")
    os.kill(_worker_of(escaped, proc.pid), signal.SIGKILL)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, out + err
    assert "Traceback" not in err and "this is a bug" not in err
    report = json.loads((tmp_path / "r.json").read_text())
    assert [(s["name"], s["status"]) for s in report["scenarios"]] == [
        ("long", "error"), ("quick1", "passed"), ("quick2", "passed")]  # fmt: skip
    (failure,) = report["scenarios"][0]["failures"]
    assert "the worker process that ran it was killed by SIGKILL" in failure["message"]
    assert running(f"sleep {sleep}") == []
    assert running(str(tmp_path)) == []
    assert list(tmp.iterdir()) == []  # the killed worker's workspace and folders too


def test_ctrl_c_sent_to_one_worker_interrupts_the_batch_as_ctrl_c(tmp_path: Path) -> None:
    sleeps = [unique_seconds(600), unique_seconds(600)]
    for i, sleep in enumerate(sleeps):
        long_scenario(tmp_path, f"long{i}", sleep)
    proc, tmp = start(tmp_path, "suite", "-j", "2", "--report", "r.json")
    wait_until(lambda: all(running(f"sleep {s}") for s in sleeps), "both escaped programs")
    (escaped,) = running(f"sleep {sleeps[0]}")
    os.kill(_worker_of(escaped, proc.pid), signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err and "this is a bug" not in err
    report = json.loads((tmp_path / "r.json").read_text())
    assert [s["status"] for s in report["scenarios"]] == ["skipped", "skipped"]
    for sleep in sleeps:
        assert running(f"sleep {sleep}") == []
    assert running(str(tmp_path)) == []
    assert list(tmp.iterdir()) == []


def test_under_nohup_sighup_is_still_ignored(tmp_path: Path) -> None:
    """`nohup workbench run` asks for the run to outlive the terminal: SIGHUP stays ignored, in workers too."""
    for i in range(2):
        write(tmp_path, f"suite/s{i}.yaml", f"name: s{i}\ntimeline:\n  - log: started\n  - advanceMs: 3000\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "run", "--speed", "1", "--out", str(tmp_path / "out"), "suite", "-j", "2"],
        cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),
    )  # fmt: skip
    wait_until(lambda: len(list((tmp_path / "out").glob("s*/*/*"))) == 2, "both runs")
    out, err = finish(proc, signal.SIGHUP, group=True)
    assert proc.returncode == 0, out + err
    assert "2 passed" in out


@STOPS
def test_a_stop_signal_while_the_reports_are_written_waits_for_them(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """A CI runner's SIGTERM (or a closed terminal) once the scenarios had run killed the command while it
    wrote the reports: half of them written, a temp file or none. The report here is a named pipe, so the
    command is held in its write until the test reads it, with the signal sent before."""
    write(tmp_path, "suite/quick.yaml", "name: quick\ntimeline:\n  - log: hi\n")
    os.mkfifo(tmp_path / "r.json")
    proc, _tmp = start(tmp_path, "suite", "--report", "r.json", "--junit", "j.xml")
    try:
        wait_until(lambda: _opening_a_pipe(proc.pid), "the command to wait for the report's reader")
        proc.send_signal(sig)  # while the command is held in its write of the report
        report = json.loads(_read_pipe(tmp_path / "r.json", proc))
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert [(s["name"], s["status"]) for s in report["scenarios"]] == [("quick", "passed")]
    assert proc.returncode == 128 + sig, out + err
    assert "<testcase" in (tmp_path / "j.xml").read_text()  # written after the signal, whole
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file left


@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"]
)
def test_a_stop_signal_between_the_batchs_end_and_the_reports_waits_for_them(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """Once the scenarios had run, the stop signals were back at their defaults until the reports were being
    written: a SIGTERM then (while the summary is printed, the run's temp folders swept) killed the command
    with no report at all. Here the summary (a screenshot's diff of 100 rows) fills a small stdout pipe, so
    the command is held in its write, the batch over and no report written yet, when the signal comes."""
    import fcntl

    write(tmp_path, "suite/wide.yaml", "name: wide\nterminal: {width: 200, height: 100}\ntimeline:\n"
          "  - llmResponse:\n      - assistant:\n          - [10, hello]\n  - screenshot: done\n")  # fmt: skip
    write(tmp_path, "screenshots/wide/200x100/done.golden", "\n".join(["x" * 200] * 100))
    proc, _tmp = start(tmp_path, "suite", "--ci", "--report", "r.json", "--junit", "j.xml")
    assert proc.stdout is not None
    fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, 4096)  # the summary (45 kB) cannot all go in
    try:
        wait_until(lambda: _writing_to_a_pipe(proc.pid), "the command to be held writing its summary")
        assert not (tmp_path / "r.json").exists()  # the batch is over, its report not written yet
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 128 + sig, out[-500:] + err
    assert "1 failed" in out  # the summary, whole
    report = json.loads((tmp_path / "r.json").read_text())
    assert [(s["name"], s["status"]) for s in report["scenarios"]] == [("wide", "failed")]
    assert "<testcase" in (tmp_path / "j.xml").read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file left


def _writing_to_a_pipe(pid: int) -> bool:
    """Whether ``pid`` waits in ``write`` for a pipe's reader to make room: the kernel's wait (``wchan``),
    or where that is hidden, the system call it is in (``write``: 1 on x86-64, 64 on arm64)."""
    wchan = Path(f"/proc/{pid}/wchan").read_text()
    if wchan not in ("", "0"):
        return wchan in ("pipe_write", "anon_pipe_write")  # the name since Linux 6.8
    return Path(f"/proc/{pid}/syscall").read_text().split()[0] in ("1", "64")


def _read_pipe(path: Path, writer: subprocess.Popen[str]) -> str:
    """All ``writer`` writes into the named pipe ``path``; what it wrote before it died, if it dies."""
    import select

    fd = os.open(
        path, os.O_RDONLY | os.O_NONBLOCK
    )  # never waits: a dead writer must fail the test, not hang it
    data = b""
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            select.select([fd], [], [], 0.05)
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            data += chunk
            if not chunk and (data or writer.poll() is not None):  # its end, or no writer will come
                break
    finally:
        os.close(fd)
    return data.decode()


def _opening_a_pipe(pid: int) -> bool:
    """Whether ``pid`` waits in ``open`` for a named pipe's reader: the kernel's wait (``wchan``), or where
    that is hidden, the system call it is in (``open`` or ``openat`` on x86-64, ``openat`` on arm64)."""
    wchan = Path(f"/proc/{pid}/wchan").read_text()
    if wchan not in ("", "0"):
        return wchan == "wait_for_partner"
    return Path(f"/proc/{pid}/syscall").read_text().split()[0] in ("2", "257", "56")
