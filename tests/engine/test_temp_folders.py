"""Temporary folders: a skip makes none, a kill -9 leaves some and the next run removes them (and says so).

Only the test's private TMPDIR is looked at; the sleeps its programs leave carry a unique argument.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write
from tests.engine.test_sigterm import long_scenario, start, wait_until
from tests.processes import running, unique_seconds
from workbench import tempfolders
from workbench.agent.control import socket_folders
from workbench.terminal import descendants

CLAUDELESS = 'name = "rules"\ndefault_response = "hello"\n'


def run(tmp_path: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "workbench", "run", "--out", str(tmp_path / "out"), *args],
                          cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp)}, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip


def test_a_skipped_scenario_makes_no_temporary_folder(tmp_path: Path) -> None:
    path = write(tmp_path, "rules.toml", CLAUDELESS)  # Claudeless rules answer a real agent: skipped here
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    done = run(tmp_path, tmp, str(path))
    assert done.returncode == 0 and "SKIPPED" in done.stdout, done.stdout + done.stderr
    assert list(tmp.iterdir()) == []


@pytest.mark.skipif(not descendants.available(), reason="needs /proc (Linux)")
def test_the_next_run_removes_what_a_killed_run_left_and_says_so(tmp_path: Path) -> None:
    sleep = unique_seconds(600)
    long_scenario(tmp_path, "long", sleep)
    proc, tmp = start(tmp_path, "suite")
    try:
        wait_until(lambda: running(f"sleep {sleep}"), "the program to run")
        left = [p for p in tmp.iterdir() if p.name.startswith("wb-ws-")]
        sockets = [p for base in socket_folders() for p in Path(base).glob(f"wb-ctl-p{proc.pid:07d}s*")]
    finally:  # a kill -9, also when the test fails early: no run of the test is left behind
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
        for pid in running(f"sleep {sleep}"):
            os.kill(pid, signal.SIGKILL)
    assert left  # (this program has no control channel: `sockets`, in short standard places, may be empty)
    assert all(p.exists() for p in left)  # a kill -9 cleans nothing up
    write(tmp_path, "quick/ok.yaml", "name: ok\ntimeline:\n  - log: hi\n")
    done = run(tmp_path, tmp, str(tmp_path / "quick"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "left by runs that were killed" in done.stderr and str(left[0]) in done.stderr
    assert not any(p.exists() for p in left + sockets)
    assert list(tmp.iterdir()) == []


def test_a_sweep_spares_running_owners_and_kept_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    mine = tempfolders.make("ws")
    kept = tempfolders.disown(tempfolders.make("ws"))
    child = subprocess.Popen([sys.executable, "-c", "from workbench import tempfolders; print(tempfolders.make('tmp'))"],
                             stdout=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp_path)})  # fmt: skip
    dead = Path(child.communicate(timeout=60)[0].strip())
    assert dead.is_dir() and dead.parent == tmp_path
    assert tempfolders.sweep() == [dead]
    # kept: its owner part is gone (its random part may begin with a `p`: pinned, wb-ws-p62r9k8o)
    assert mine.is_dir() and kept.is_dir() and re.fullmatch(r"wb-ws-[^-]+", kept.name), kept.name


def test_a_kept_folder_whose_random_part_begins_with_p_is_never_swept(tmp_path: Path) -> None:
    """A disowned name is `wb-<kind>-<random>`: a random part that looks like an owner's start is no owner
    (the name a -n 2 run made: wb-ws-p62r9k8o)."""
    for name in ("wb-ws-p62r9k8o", "wb-ws-p1234567", "wb-tmp-ps"):
        (tmp_path / name).mkdir()
    assert tempfolders.sweep(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wb-tmp-ps", "wb-ws-p1234567", "wb-ws-p62r9k8o"]
