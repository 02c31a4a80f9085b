"""The rough edges a newcomer meets first: every `--help`, the default folder, where runs and goldens go."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, write
from workbench.cli import COMMANDS
from workbench.cli.show import find_run
from workbench.usage import UsageError

HELLO = "name: hello\ntimeline:\n  - assistant: [[10, hi]]\n  - screenshot: done\n"


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        cwd=cwd, input=stdin, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("command", [*COMMANDS, "serve llm", "serve rest", "report merge"])
def test_every_command_has_a_working_help(command: str, tmp_path: Path) -> None:
    done = run(*command.split(), "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: workbench"), done.stdout
    assert "Traceback" not in done.stderr


def test_options_go_before_or_after_the_path(tmp_path: Path) -> None:
    write(tmp_path, "scenarios/hello.yaml", HELLO)
    before = run("run", "--ci", "--speed", "max", "scenarios", cwd=tmp_path)
    after = run("run", "scenarios", "--speed", "max", cwd=tmp_path)
    assert before.returncode == 1 and "has no golden" in before.stdout  # --ci: no golden yet
    assert after.returncode == 0, after.stdout + after.stderr


def test_validate_and_run_default_to_scenarios_and_say_so_when_it_is_missing(tmp_path: Path) -> None:
    for command in ("validate", "run"):
        done = run(command, cwd=tmp_path)
        assert done.returncode == 2
        assert "default folder ./scenarios does not exist" in done.stderr
        assert "Traceback" not in done.stderr
    write(tmp_path, "scenarios/hello.yaml", HELLO)
    done = run("validate", cwd=tmp_path)
    assert done.returncode == 0 and "1 valid" in done.stdout


def test_a_passing_run_says_where_its_run_folder_and_new_goldens_went(tmp_path: Path) -> None:
    write(tmp_path, "scenarios/hello.yaml", HELLO)
    done = run("run", "scenarios", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "new golden: screenshots/hello/80x24/done.golden" in done.stdout
    folder = next(line.split(": ", 1)[1] for line in done.stdout.splitlines() if "run folder: " in line)
    assert (tmp_path / folder / "trace.jsonl").is_file()
    golden = tmp_path / "screenshots/hello/80x24/done.golden"
    assert golden.stat().st_mode & 0o777 == 0o666 & ~_umask()
    again = run("run", "scenarios", "--ci", cwd=tmp_path)
    assert again.returncode == 0 and "new golden" not in again.stdout


def _umask() -> int:
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def test_show_finds_the_latest_run_by_name_file_or_folder(tmp_path: Path) -> None:
    out = tmp_path / "target/tmp/workbench"
    old = out / "hello/80x24/20260101T000000-1"
    new = out / "hello/80x24/20260102T000000-2"
    for folder in (old, new):
        folder.mkdir(parents=True)
        (folder / "trace.jsonl").write_text("{}\n")
    os.utime(old / "trace.jsonl", (time.time() - 100, time.time() - 100))
    scenario = write(tmp_path, "scenarios/hello.yaml", HELLO)
    assert find_run("hello", out) == new
    assert find_run(str(scenario), out) == new
    assert find_run(str(out / "hello"), out) == new
    assert find_run(str(old), out) == old
    assert find_run(str(old / "trace.jsonl"), out) == old
    with pytest.raises(UsageError, match="no recorded run"):
        find_run("nothing-ran", out)


def test_show_of_an_unknown_run_is_invalid_input(tmp_path: Path) -> None:
    done = run("show", "nothing-ran", cwd=tmp_path)
    assert done.returncode == 2 and "no recorded run" in done.stderr
    assert "(a skipped scenario records no run)" in done.stderr  # the user who ran it sees why


def test_the_mock_agent_never_writes_into_the_current_folder(tmp_path: Path) -> None:
    scenario = write(
        tmp_path, "s/write.yaml",
        "name: w\ntimeline:\n  - agentToolUse: {toolName: writeFile, args: {path: hello.py, content: x}}\n",
    )  # fmt: skip
    work = tmp_path / "cwd"
    work.mkdir()
    done = run("mock-agent", str(scenario), "--speed", "max", "--print", cwd=work)
    assert done.returncode == 0, done.stderr
    assert list(work.iterdir()) == []
    workspace = Path(done.stderr.split("workspace ", 1)[1].split()[0])
    try:
        assert (workspace / "hello.py").read_text() == "x"
    finally:
        import shutil

        shutil.rmtree(workspace, ignore_errors=True)
    assert REPO not in workspace.parents


def test_two_runs_in_the_same_second_keep_two_run_folders(tmp_path: Path) -> None:
    write(tmp_path, "scenarios/hello.yaml", HELLO)
    code = (
        "import asyncio\nfrom pathlib import Path\n"
        "from workbench.engine.runner import RunOptions, run_scenario\n"
        "async def main():\n"
        "    o = RunOptions()\n"
        "    a = await run_scenario(Path('scenarios/hello.yaml'), o)\n"
        "    b = await run_scenario(Path('scenarios/hello.yaml'), o)\n"
        "    print(a.run_dir); print(b.run_dir)\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    first, second = done.stdout.split()
    assert first != second
    assert (tmp_path / first / "trace.jsonl").is_file() and (tmp_path / second / "trace.jsonl").is_file()


def test_out_takes_the_actual_screenshots_too(tmp_path: Path) -> None:
    write(tmp_path, "s/hello.yaml", HELLO)
    done = run("run", "s", "--out", "runs", "--goldens", "goldens", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "runs/hello/80x24/screenshots/done.golden").is_file()
    assert not (tmp_path / "target").exists()  # nothing written beside --out


@pytest.mark.parametrize(("kind", "picked_by"), [("rest", 'POST /sessions {"scenario": NAME}'),
                                                 ("llm", "the `x-scenario-name` header")])  # fmt: skip
def test_a_server_refuses_two_scenarios_of_one_name(tmp_path: Path, kind: str, picked_by: str) -> None:
    """A client picks a scenario by its name: with two files of one name only one could ever be served,
    and nothing said so (serve rest started the last; serve llm the first)."""
    write(tmp_path, "a.yaml", "name: same\ntimeline:\n  - log: first file\n")
    write(tmp_path, "b.yaml", "name: same\ntimeline:\n  - log: second file\n")
    done = run("serve", kind, "a.yaml", "b.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"2 scenarios are named 'same' (a.yaml, b.yaml); a client picks a scenario by its name ({picked_by}): " \
           "give each its own `name:`" in done.stderr  # fmt: skip
