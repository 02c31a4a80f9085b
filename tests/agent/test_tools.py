"""The mock agent's tools, run for real: real files, real processes, real git for diffs."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from workbench.agent.tools import (
    ALIASES,
    ShellRegistry,
    ToolOutcome,
    compare_result,
    execute_tool,
    perform_edit,
)
from workbench.scenario.agent_harbor import TOOL_PATH_ARGS
from workbench.scenario.vocabulary import EVENT_ARGUMENTS, READS_ANYWHERE
from workbench.workspace import Workspace

GENEROUS_S = 10.0

Run = Callable[..., ToolOutcome]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("secret\n")
    return folder


@pytest.fixture
def ws(tmp_path: Path, outside: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "secret-link.txt").symlink_to(outside / "secret.txt")
    return Workspace.attach(root)


@pytest.fixture
def shells() -> Iterator[ShellRegistry]:
    registry = ShellRegistry()
    yield registry
    registry.close()


@pytest.fixture
def run(ws: Workspace, shells: ShellRegistry) -> Run:
    def call(name: str, args: dict[str, Any], **kw: Any) -> ToolOutcome:
        return execute_tool(name, args, ws, shells=shells, **kw)

    return call


def write(ws: Workspace, rel: str, text: str) -> Path:
    path = ws.path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def snapshot_dir(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + GENEROUS_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def is_dead(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


# --------------------------------------------------------------------------- runCmd


def test_run_cmd_output_and_details(run: Run) -> None:
    outcome = run("runCmd", {"cmd": "echo hello; echo oops >&2"})
    assert outcome.status == "ok"
    assert outcome.tool == "runCmd"
    assert outcome.result == "hello\noops\n"
    assert outcome.details["stdout"] == "hello\n"
    assert outcome.details["stderr"] == "oops\n"
    assert outcome.details["exitCode"] == 0


def test_run_cmd_nonzero_exit_is_an_error(run: Run) -> None:
    outcome = run("runCmd", {"cmd": "echo failing; exit 3"})
    assert outcome.status == "error"
    assert outcome.result == "failing\n"
    assert outcome.details["exitCode"] == 3
    assert outcome.details["exit_code"] == 3


def test_run_cmd_runs_in_the_workspace_and_cwd(run: Run, ws: Workspace) -> None:
    (ws.path / "sub" / "dir").mkdir(parents=True)
    assert run("runCmd", {"cmd": "pwd"}).result.strip() == str(ws.path)
    assert run("runCmd", {"cmd": "pwd", "cwd": "sub/dir"}).result.strip() == str(ws.path / "sub" / "dir")
    run("runCmd", {"cmd": "echo made > made.txt", "cwd": "sub"})
    assert (ws.path / "sub" / "made.txt").read_text() == "made\n"


@pytest.mark.parametrize("cwd", ["..", "link", "/tmp"])
def test_run_cmd_cwd_cannot_escape(run: Run, cwd: str, outside: Path) -> None:
    outcome = run("runCmd", {"cmd": "echo planted > planted.txt", "cwd": cwd})
    assert outcome.status == "error"
    assert "`cwd`" in outcome.result
    assert not (outside / "planted.txt").exists()
    assert not (outside.parent / "planted.txt").exists()


def test_run_cmd_timeout_kills_the_whole_command(run: Run, ws: Workspace) -> None:
    outcome = run("runCmd", {"cmd": "sleep 60 & echo $! > child.pid; wait", "timeout": 1000})
    assert outcome.status == "error"
    assert outcome.result == "Command timed out after 1 s"
    assert outcome.details["exitCode"] is None
    child = int((ws.path / "child.pid").read_text())
    wait_for(lambda: is_dead(child), "the background child of a timed-out command to die")


@pytest.mark.parametrize(("ms", "shown"), [(1200, "1.2"), (300, "0.3")])
def test_run_cmd_timeout_is_milliseconds(run: Run, ms: int, shown: str) -> None:
    """Agent Harbor's `runCmd.timeout` and Claude Code's Bash `timeout` are both milliseconds, small or large."""
    outcome = run("runCmd", {"cmd": "sleep 60", "timeout": ms})
    assert outcome.status == "error"
    assert outcome.result == f"Command timed out after {shown} s"


@pytest.mark.parametrize("name", ["Bash", "run_command", "bash", "run_cmd", "shell"])
def test_run_cmd_aliases_take_command(run: Run, name: str) -> None:
    outcome = run(name, {"command": "echo via $0"})
    assert outcome.tool == "runCmd"
    assert outcome.status == "ok"
    assert outcome.result == "via bash\n"


def test_run_cmd_needs_a_command(run: Run) -> None:
    outcome = run("runCmd", {})
    assert outcome.status == "error"
    assert outcome.result == "needs `cmd`"


def test_background_shell_output_and_exit(run: Run) -> None:
    started = run("runCmd", {"cmd": "echo one; echo two", "run_in_background": True})
    assert started.status == "ok"
    shell = started.details["shell"]
    assert started.result == f"Command running in background with ID: {shell}"

    seen: list[ToolOutcome] = []

    def finished() -> bool:
        seen.append(run("bashOutput", {"bash_id": shell}))
        return seen[-1].details["running"] is False

    wait_for(finished, "the background shell to finish")
    assert all(outcome.status == "ok" for outcome in seen)
    assert "".join(o.result for o in seen) + run("bashOutput", {"bash_id": shell}).result == "one\ntwo\n"
    assert seen[-1].details["exitCode"] == 0
    assert run("BashOutput", {"bash_id": shell}).result == ""  # only new output


def test_background_shell_filter(run: Run, ws: Workspace) -> None:
    started = run(
        "Bash", {"command": "echo apple; echo banana; echo cherry; touch done.flag", "background": True}
    )
    wait_for(lambda: (ws.path / "done.flag").exists(), "the background shell to write its output")
    outcome = run("bashOutput", {"shell_id": started.details["shell"], "filter": "an|err"})
    assert outcome.result == "banana\ncherry"


def test_kill_shell(run: Run, ws: Workspace) -> None:
    shell = run("runCmd", {"cmd": "echo $$ > shell.pid; echo started; sleep 60", "run_in_background": True})
    shell_id = shell.details["shell"]
    wait_for(
        lambda: (ws.path / "shell.pid").is_file() and (ws.path / "shell.pid").read_text().strip() != "", "pid"
    )
    pid = int((ws.path / "shell.pid").read_text())

    outcome = run("KillShell", {"shell_id": shell_id})
    assert outcome.status == "ok"
    assert outcome.result == f"Killed {shell_id}"
    after = run("bashOutput", {"bash_id": shell_id})
    assert after.details["running"] is False
    assert after.details["exitCode"] == -9
    assert "started" in after.result
    wait_for(lambda: is_dead(pid), "the killed shell to be gone")


def test_unknown_shell_is_an_error(run: Run) -> None:
    run("runCmd", {"cmd": "true", "run_in_background": True})
    for name in ("bashOutput", "killShell"):
        outcome = run(name, {"bash_id": "shell_9", "shell_id": "shell_9"})
        assert outcome.status == "error"
        assert outcome.result == "no background shell `shell_9` (running: shell_1)"


# --------------------------------------------------------------------------- files


def test_read_file(run: Run, ws: Workspace) -> None:
    write(ws, "five.txt", "l1\nl2\nl3\nl4\nl5\n")
    assert run("readFile", {"path": "five.txt"}).result == "l1\nl2\nl3\nl4\nl5\n"
    assert run("readFile", {"path": "five.txt", "offset": 2, "limit": 2}).result == "l2\nl3\n"
    assert run("readFile", {"path": "five.txt", "offset": 4}).result == "l4\nl5\n"
    assert run("readFile", {"path": "five.txt", "limit": 1}).result == "l1\n"
    outcome = run("Read", {"file_path": "five.txt", "offset": 5, "limit": 10})
    assert (outcome.tool, outcome.status, outcome.result) == ("readFile", "ok", "l5\n")


def test_read_file_missing(run: Run) -> None:
    outcome = run("readFile", {"path": "missing.txt"})
    assert (outcome.status, outcome.result) == ("error", "file not found: missing.txt")
    folder = run("readFile", {"path": "."})
    assert (folder.status, folder.result) == ("error", ". is a folder, not a file (use listDir)")


def test_read_file_needs_a_path(run: Run) -> None:
    outcome = run("readFile", {})
    assert (outcome.status, outcome.result) == ("error", "needs `path`")


def test_write_file_creates_folders_and_updates(run: Run, ws: Workspace) -> None:
    outcome = run("writeFile", {"path": "deep/er/f.txt", "content": "héllo\n"})
    assert (outcome.status, outcome.result) == ("ok", "Created deep/er/f.txt (7 bytes)")
    assert (ws.path / "deep" / "er" / "f.txt").read_text(encoding="utf-8") == "héllo\n"
    outcome = run("Write", {"file_path": "deep/er/f.txt", "content": "new"})
    assert (outcome.tool, outcome.result) == ("writeFile", "Updated deep/er/f.txt (3 bytes)")
    assert (ws.path / "deep" / "er" / "f.txt").read_text() == "new"


def test_append_file(run: Run, ws: Workspace) -> None:
    assert run("appendFile", {"path": "log/a.txt", "content": "one\n"}).result == "Appended to log/a.txt"
    run("append_file", {"path": "log/a.txt", "text": "two\n"})
    assert (ws.path / "log" / "a.txt").read_text() == "one\ntwo\n"


def test_edit_file_exact(run: Run, ws: Workspace) -> None:
    path = write(ws, "a.py", "def f():\n    return 1\n")
    outcome = run("editFile", {"path": "a.py", "old_string": "return 1", "new_string": "return 2"})
    assert (outcome.status, outcome.result) == ("ok", "Updated a.py (1 replacement)")
    assert path.read_text() == "def f():\n    return 2\n"


def test_edit_file_aliases(run: Run, ws: Workspace) -> None:
    path = write(ws, "a.txt", "alpha beta")
    assert run("Edit", {"file_path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}).status == "ok"
    assert run("replace_in_file", {"path": "a.txt", "old_str": "beta", "new_str": "BETA"}).status == "ok"
    assert path.read_text() == "ALPHA BETA"


def test_edit_file_not_found(run: Run, ws: Workspace) -> None:
    path = write(ws, "a.txt", "alpha")
    outcome = run("editFile", {"path": "a.txt", "old_string": "gamma", "new_string": "x"})
    assert (outcome.status, outcome.result) == ("error", "`old_string` not found in a.txt")
    assert path.read_text() == "alpha"
    missing = run("editFile", {"path": "b.txt", "old_string": "x", "new_string": "y"})
    assert (missing.status, missing.result) == ("error", "file not found: b.txt")
    assert not (ws.path / "b.txt").exists()


def test_edit_file_not_unique_and_replace_all(run: Run, ws: Workspace) -> None:
    path = write(ws, "a.txt", "x = 1\ny = 1\n")
    outcome = run("editFile", {"path": "a.txt", "old_string": "1", "new_string": "2"})
    assert outcome.status == "error"
    assert "occurs 2 times in a.txt" in outcome.result
    assert path.read_text() == "x = 1\ny = 1\n"

    outcome = run("editFile", {"path": "a.txt", "old_string": "1", "new_string": "2", "replace_all": True})
    assert (outcome.status, outcome.result) == ("ok", "Updated a.txt (2 replacements)")
    assert path.read_text() == "x = 2\ny = 2\n"


def test_edit_file_legacy_text_appends(run: Run, ws: Workspace) -> None:
    path = write(ws, "a.txt", "start\n")
    assert run("Edit", {"path": "a.txt", "text": "more\n"}).status == "ok"
    assert path.read_text() == "start\nmore\n"


def test_edit_file_needs_old_string(run: Run, ws: Workspace) -> None:
    write(ws, "a.txt", "start\n")
    assert run("editFile", {"path": "a.txt"}).result == "needs `old_string`"


# --------------------------------------------------------------------------- search


@pytest.fixture
def project(ws: Workspace) -> Workspace:
    write(ws, "src/app.py", "import os\ndef main():\n    print('Hello')\n    return 0\n")
    write(ws, "src/util.py", "def helper():\n    return 'hello world'\n")
    write(ws, "docs/readme.md", "Hello docs\nsecond line\n")
    write(ws, "notes.txt", "nothing here\n")
    write(ws, ".git/config", "hello from git\n")
    (ws.path / "link").unlink()
    (ws.path / "secret-link.txt").unlink()
    return ws


def test_grep_files_with_matches_is_the_default(run: Run, project: Workspace) -> None:
    outcome = run("grep", {"pattern": "hello"})
    assert (outcome.status, outcome.result) == ("ok", "src/util.py")
    assert outcome.details["matches"] == 1


def test_grep_ignore_case(run: Run, project: Workspace) -> None:
    assert run("Grep", {"pattern": "hello", "-i": True}).result == "docs/readme.md\nsrc/app.py\nsrc/util.py"


def test_grep_content_with_and_without_line_numbers(run: Run, project: Workspace) -> None:
    numbered = run("grep", {"pattern": "return", "output_mode": "content", "-n": True})
    assert numbered.result == "src/app.py:4:    return 0\nsrc/util.py:2:    return 'hello world'"
    plain = run("grep", {"pattern": "return", "output_mode": "content"})
    assert plain.result == "src/app.py:    return 0\nsrc/util.py:    return 'hello world'"


@pytest.mark.parametrize(
    ("flags", "lines"),
    [
        ({"-A": 1}, [3, 4]),
        ({"-B": 1}, [2, 3]),
        ({"-C": 1}, [2, 3, 4]),
        ({"-B": 2, "-A": 0}, [1, 2, 3]),
        ({}, [3]),
    ],
)
def test_grep_context(run: Run, project: Workspace, flags: dict[str, int], lines: list[int]) -> None:
    outcome = run("grep", {"pattern": "print", "output_mode": "content", "-n": True, "path": "src", **flags})
    text = (project.path / "src" / "app.py").read_text().splitlines()
    # as ripgrep prints them: `:` after a matching line's number, `-` after a context line's
    expected = [f"src/app.py{':' if n == 3 else '-'}{n}{':' if n == 3 else '-'}{text[n - 1]}" for n in lines]
    assert outcome.result == "\n".join(expected)


def test_grep_context_groups_are_separated(run: Run, ws: Workspace) -> None:
    write(ws, "a.txt", "hit 1\nx\nx\nx\nx\nhit 2\nx\n")
    write(ws, "b.txt", "x\nhit 3\n")
    outcome = run("grep", {"pattern": "hit", "output_mode": "content", "-n": True, "-C": 1})
    assert outcome.result == "\n".join(
        ["a.txt:1:hit 1", "a.txt-2-x", "--", "a.txt-5-x", "a.txt:6:hit 2", "a.txt-7-x", "--", "b.txt-1-x",
         "b.txt:2:hit 3"]
    )  # fmt: skip
    plain = run("grep", {"pattern": "hit", "output_mode": "content", "-A": 1})
    assert plain.result == "a.txt:hit 1\na.txt-x\n--\na.txt:hit 2\na.txt-x\n--\nb.txt:hit 3"


def test_grep_glob_braces_and_deep_names(run: Run, ws: Workspace) -> None:
    for rel in ("web/a.ts", "web/deep/b.tsx", "web/c.js", "d.ts"):
        write(ws, rel, "needle\n")
    assert run("grep", {"pattern": "needle", "glob": "*.{ts,tsx}"}).result == "d.ts\nweb/a.ts\nweb/deep/b.tsx"
    assert run("grep", {"pattern": "needle", "glob": "web/**/*.tsx"}).result == "web/deep/b.tsx"
    assert (
        run("grep", {"pattern": "needle", "type": "ts", "path": "web"}).result == "web/a.ts\nweb/deep/b.tsx"
    )


def test_grep_skips_binary_files_and_links_that_lead_out(run: Run, ws: Workspace) -> None:
    (ws.path / "blob.bin").write_bytes(b"secret\xff\xfe\x00")
    outcome = run("grep", {"pattern": "secret"})
    assert (outcome.status, outcome.result) == ("ok", "No matches found")  # secret-link.txt is not read


def test_grep_bad_arguments(run: Run, project: Workspace) -> None:
    mode = run("grep", {"pattern": "x", "output_mode": "lines"})
    assert (mode.status, mode.result) == (
        "error",
        "output_mode `lines` is not one of files_with_matches, content, count",
    )
    context = run("grep", {"pattern": "x", "-C": "many"})
    assert (context.status, context.result) == ("error", "`-C` must be a whole number, not 'many'")
    missing = run("grep", {"pattern": "x", "path": "nowhere"})
    assert (missing.status, missing.result) == ("error", "no such file or folder: nowhere")


def test_grep_count(run: Run, project: Workspace) -> None:
    assert (
        run("grep", {"pattern": "def|return", "output_mode": "count"}).result == "src/app.py:2\nsrc/util.py:2"
    )


def test_grep_glob_and_type(run: Run, project: Workspace) -> None:
    assert run("grep", {"pattern": "hello", "-i": True, "glob": "*.md"}).result == "docs/readme.md"
    assert run("grep", {"pattern": "hello", "-i": True, "glob": "src/*"}).result == "src/app.py\nsrc/util.py"
    assert run("grep", {"pattern": "hello", "-i": True, "type": "py"}).result == "src/app.py\nsrc/util.py"
    assert run("grep", {"pattern": "e", "type": "txt"}).result == "notes.txt"
    assert run("grep", {"pattern": "e", "type": "toml"}).result == "No matches found"


def test_grep_head_limit(run: Run, project: Workspace) -> None:
    outcome = run("grep", {"pattern": "hello", "-i": True, "head_limit": 2})
    assert outcome.result == "docs/readme.md\nsrc/app.py"
    assert outcome.details["matches"] == 2


def test_grep_multiline(run: Run, project: Workspace) -> None:
    pattern = r"def main\(\):\n\s+print"
    assert run("grep", {"pattern": pattern}).result == "No matches found"
    assert run("grep", {"pattern": pattern, "multiline": True}).result == "src/app.py"
    content = run("grep", {"pattern": pattern, "multiline": True, "output_mode": "content", "-n": True})
    assert (
        content.result == "src/app.py:2:def main():\nsrc/app.py:3:    print('Hello')"
    )  # every line it spans


def test_grep_path_folder_and_file(run: Run, project: Workspace) -> None:
    assert run("grep", {"pattern": "e", "path": "docs"}).result == "docs/readme.md"
    assert run("grep", {"pattern": "o", "path": "src/util.py"}).result == "src/util.py"


def test_grep_errors(run: Run, project: Workspace) -> None:
    bad = run("grep", {"pattern": "("})
    assert bad.status == "error"
    assert bad.result.startswith("invalid pattern:")
    assert run("grep", {}).result == "needs `pattern`"
    escape = run("grep", {"pattern": "secret", "path": ".."})
    assert escape.status == "error"
    assert "outside the workspace" in escape.result


def test_list_dir(run: Run, project: Workspace) -> None:
    assert run("listDir", {"path": "."}).result == "docs/\nnotes.txt\nsrc/"
    assert run("LS", {}).result == "docs/\nnotes.txt\nsrc/"
    assert run("listDir", {"path": "src"}).result == "app.py\nutil.py"
    assert run("listDir", {"recursive": True}).result == "notes.txt\ndocs/readme.md\nsrc/app.py\nsrc/util.py"
    assert run("listDir", {"recursive": True, "pattern": "*.py"}).result == "src/app.py\nsrc/util.py"
    assert run("listDir", {"pattern": "*s*"}).result == "docs/\nnotes.txt\nsrc/"
    assert run("listDir", {"pattern": "n*"}).result == "notes.txt"


def test_list_dir_not_a_folder(run: Run, project: Workspace) -> None:
    outcome = run("listDir", {"path": "notes.txt"})
    assert (outcome.status, outcome.result) == ("error", "not a folder: notes.txt")


def test_find(run: Run, project: Workspace) -> None:
    assert run("find", {"name": "*.py"}).result == "src/app.py\nsrc/util.py"
    assert run("find", {"type": "d"}).result == "docs\nsrc"
    assert run("find", {"name": "*e*", "type": "f"}).result == "docs/readme.md\nnotes.txt"
    assert run("find", {"name": "*o*", "type": "d"}).result == "docs"
    assert run("find", {"name": "*.py", "path": "docs"}).result == ""
    assert run("Glob", {"pattern": "**/*.md"}).result == "docs/readme.md"


def test_sed_print_and_in_place(run: Run, project: Workspace) -> None:
    path = project.path / "src" / "util.py"
    printed = run("sed", {"expression": "s/hello/bye/", "path": "src/util.py"})
    assert (printed.status, printed.result) == ("ok", "def helper():\n    return 'bye world'\n")
    assert "hello" in path.read_text()  # printing leaves the file alone
    only = run("sed", {"expression": "2p;d", "path": "src/util.py"})
    assert only.result == "    return 'hello world'\n"

    in_place = run("sed", {"expression": "s/hello/bye/", "path": "src/util.py", "in_place": True})
    assert (in_place.status, in_place.result) == ("ok", "")
    assert path.read_text() == "def helper():\n    return 'bye world'\n"


def test_sed_errors(run: Run, project: Workspace) -> None:
    bad = run("sed", {"expression": "s/unterminated", "path": "notes.txt"})
    assert bad.status == "error"
    assert "unterminated" in bad.result
    assert run("sed", {"path": "notes.txt"}).result == "needs `expression`"
    missing = run("sed", {"expression": "p", "path": "nope.txt"})
    assert missing.status == "error"
    assert "nope.txt" in missing.result


# --------------------------------------------------------------------------- notebooks


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": "# Title"},
        {
            "cell_type": "code",
            "id": "code1",
            "metadata": {},
            "source": "print(1)",
            "outputs": [],
            "execution_count": None,
        },
    ],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture
def notebook(ws: Workspace) -> Path:
    return write(ws, "nb/analysis.ipynb", json.dumps(NOTEBOOK, indent=1))


def cells(path: Path) -> list[dict[str, Any]]:
    document = json.loads(path.read_text())
    assert document["nbformat"] == 4
    assert document["metadata"] == NOTEBOOK["metadata"]
    result: list[dict[str, Any]] = document["cells"]
    return result


def test_notebook_replace_by_cell_id(run: Run, notebook: Path) -> None:
    args = {"notebook_path": "nb/analysis.ipynb", "cell_id": "code1", "new_source": "print(2)"}
    outcome = run("NotebookEdit", args)
    assert (outcome.tool, outcome.status) == ("notebookEdit", "ok")
    assert outcome.result == "Notebook nb/analysis.ipynb: replace done (2 cells)"
    after = cells(notebook)
    assert [c["source"] for c in after] == ["# Title", "print(2)"]
    assert after[1]["cell_type"] == "code"


def test_notebook_replace_can_change_type_and_use_an_index(run: Run, notebook: Path) -> None:
    args = {"path": "nb/analysis.ipynb", "cell_id": "1", "new_source": "text", "cell_type": "markdown"}
    assert run("notebookEdit", args).status == "ok"
    assert cells(notebook)[1]["cell_type"] == "markdown"
    assert cells(notebook)[1]["source"] == "text"


def test_notebook_insert(run: Run, notebook: Path) -> None:
    after_intro = {"notebook_path": "nb/analysis.ipynb", "cell_id": "intro", "edit_mode": "insert"}
    outcome = run("notebookEdit", {**after_intro, "new_source": "x = 1"})
    assert outcome.result == "Notebook nb/analysis.ipynb: insert done (3 cells)"
    inserted = cells(notebook)[1]
    assert inserted["source"] == "x = 1"
    assert inserted["cell_type"] == "code"
    assert inserted["outputs"] == []
    assert inserted["execution_count"] is None

    at_top = {"notebook_path": "nb/analysis.ipynb", "edit_mode": "insert", "new_source": "note"}
    assert run("notebookEdit", {**at_top, "cell_type": "markdown"}).status == "ok"
    first = cells(notebook)[0]
    assert (first["cell_type"], first["source"]) == ("markdown", "note")
    assert "outputs" not in first
    assert [c["source"] for c in cells(notebook)] == ["note", "# Title", "x = 1", "print(1)"]


def test_notebook_delete(run: Run, notebook: Path) -> None:
    outcome = run(
        "notebookEdit", {"notebook_path": "nb/analysis.ipynb", "cell_id": "intro", "edit_mode": "delete"}
    )
    assert outcome.result == "Notebook nb/analysis.ipynb: delete done (1 cells)"
    assert [c["id"] for c in cells(notebook)] == ["code1"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"cell_id": "nope", "new_source": "x"}, "no cell `nope` in nb/analysis.ipynb"),
        ({"cell_id": "7", "edit_mode": "delete"}, "no cell `7` in nb/analysis.ipynb"),
        ({"new_source": "x"}, "no cell `None` in nb/analysis.ipynb"),
        ({"cell_id": "intro", "edit_mode": "move"}, "edit_mode `move` is not one of replace, insert, delete"),
    ],
)
def test_notebook_bad_edits_change_nothing(
    run: Run, notebook: Path, args: dict[str, Any], message: str
) -> None:
    before = notebook.read_bytes()
    outcome = run("notebookEdit", {"notebook_path": "nb/analysis.ipynb", **args})
    assert (outcome.status, outcome.result) == ("error", message)
    assert notebook.read_bytes() == before


def test_notebook_that_is_not_one(run: Run, ws: Workspace) -> None:
    write(ws, "fake.ipynb", "[1, 2]")
    outcome = run("notebookEdit", {"notebook_path": "fake.ipynb", "cell_id": "0"})
    assert (outcome.status, outcome.result) == ("error", "fake.ipynb is not a Jupyter notebook")
    missing = run("notebookEdit", {"notebook_path": "none.ipynb", "cell_id": "0"})
    assert (missing.status, missing.result) == ("error", "notebook not found: none.ipynb")


# --------------------------------------------------------------------------- the rest


def test_todo_write(run: Run) -> None:
    todos = [{"content": "write tests", "status": "in_progress"}]
    outcome = run("TodoWrite", {"todos": todos})
    assert (outcome.tool, outcome.status, outcome.result) == (
        "todoWrite",
        "ok",
        "Todos updated\n[~] write tests",
    )
    assert outcome.details["todos"] == todos
    assert run("todoWrite", {"todos": []}, canned_result="Todos saved").result == "Todos saved"
    bad = run("todoWrite", {"todos": "not a list"})
    assert (bad.status, bad.result) == ("error", "`todos` must be a list")


@pytest.mark.parametrize(
    "name", ["webFetch", "WebFetch", "webSearch", "WebSearch", "task", "Task", "SlashCommand"]
)
def test_canned_tools_return_the_scenario_result(run: Run, ws: Workspace, name: str) -> None:
    before = snapshot_dir(ws.path)
    canned = {"content": f"canned for {name}"}
    outcome = run(name, {"url": "https://example.invalid", "query": "q", "prompt": "p"}, canned_result=canned)
    assert (outcome.status, outcome.result) == ("ok", canned)
    assert outcome.tool == ALIASES[name]
    assert snapshot_dir(ws.path) == before


def test_unknown_tool_returns_the_canned_result_with_a_note(run: Run) -> None:
    outcome = run("Frobnicate", {"x": 1}, canned_result="as scripted")
    assert (outcome.status, outcome.result, outcome.tool) == ("ok", "as scripted", "Frobnicate")
    assert outcome.details["note"] == "`Frobnicate` is not a tool the mock agent runs"


# --------------------------------------------------------------------------- escapes


ESCAPES = ["../planted.txt", "ABSOLUTE", "link/planted.txt", "sub/../../planted.txt"]


def escape_path(rel: str, outside: Path) -> str:
    return str(outside / "planted.txt") if rel == "ABSOLUTE" else rel


@pytest.mark.parametrize("rel", ESCAPES)
@pytest.mark.parametrize(
    ("tool", "extra"),
    [
        ("writeFile", {"content": "planted"}),
        ("appendFile", {"content": "planted"}),
        ("editFile", {"old_string": "secret", "new_string": "planted"}),
        ("notebookEdit", {"edit_mode": "insert", "new_source": "planted"}),
        ("sed", {"expression": "s/secret/planted/", "in_place": True}),
        ("readFile", {}),
    ],
)
def test_path_escapes_are_errors_and_write_nothing(
    run: Run, tmp_path: Path, outside: Path, rel: str, tool: str, extra: dict[str, Any]
) -> None:
    if (tool, rel) == ("readFile", "ABSOLUTE"):
        return  # reading an absolute path is allowed: test_read_file_reads_an_absolute_path_outside
    before = snapshot_dir(tmp_path)
    key = "notebook_path" if tool == "notebookEdit" else "path"
    outcome = run(tool, {key: escape_path(rel, outside), **extra})
    assert outcome.status == "error"
    assert "outside the workspace" in outcome.result
    if rel == "ABSOLUTE":  # the refusal says why
        assert (
            "only reading a file may leave it" in outcome.result
            and "isolated and repeatable" in outcome.result
        )
    assert snapshot_dir(tmp_path) == before


OUTSIDE_ARGS: dict[str, dict[str, Any]] = {
    "runCmd": {"cmd": "true"}, "grep": {"pattern": "secret"}, "readFile": {}, "listDir": {}, "find": {},
    "sed": {"expression": "p"}, "editFile": {"old_string": "secret", "new_string": "x"},
    "writeFile": {"content": "x"}, "notebookEdit": {"edit_mode": "insert", "new_source": "x"},
}  # fmt: skip


@pytest.mark.parametrize("tool", sorted(OUTSIDE_ARGS))
def test_only_the_tools_the_loader_lets_read_anywhere_take_an_absolute_path_outside(
    run: Run, outside: Path, tool: str
) -> None:
    """The loader warns about an absolute path outside the workspace for every tool but those of
    ``READS_ANYWHERE`` (a scenario expecting such a call to succeed cannot pass): the tools agree."""
    [key] = [a for a in EVENT_ARGUMENTS[tool] if a in TOOL_PATH_ARGS]
    outcome = run(tool, {key: str(outside / "secret.txt"), **OUTSIDE_ARGS[tool]})
    refused = outcome.status == "error" and "is outside the workspace" in outcome.result
    assert refused == (tool not in READS_ANYWHERE), outcome.result
    assert set(OUTSIDE_ARGS) == {t for t, args in EVENT_ARGUMENTS.items() if set(args) & set(TOOL_PATH_ARGS)}


def test_read_file_reads_an_absolute_path_outside(run: Run, outside: Path, ws: Workspace) -> None:
    """An absolute path may be read, anywhere ("relative to the workspace unless prefixed with /")."""
    outcome = run("readFile", {"path": str(outside / "secret.txt")})
    assert (outcome.status, outcome.result) == ("ok", "secret\n")
    write(ws, "inside.txt", "inside\n")
    outcome = run("writeFile", {"file_path": str(ws.path / "inside.txt"), "content": "absolute inside\n"})
    assert outcome.status == "ok", outcome.result  # an absolute path inside the workspace is the workspace
    assert (ws.path / "inside.txt").read_text() == "absolute inside\n"


@pytest.mark.parametrize("tool", ["readFile", "editFile", "sed", "writeFile"])
def test_symlinked_file_to_outside_is_an_error(run: Run, outside: Path, tool: str) -> None:
    args = {
        "path": "secret-link.txt",
        "old_string": "secret",
        "new_string": "x",
        "expression": "p",
        "content": "x",
    }
    outcome = run(tool, args)
    assert outcome.status == "error"
    assert "`secret-link.txt` leads outside the workspace" in outcome.result
    assert (outside / "secret.txt").read_text() == "secret\n"


@pytest.mark.parametrize("tool", ["grep", "listDir", "find"])
@pytest.mark.parametrize("rel", ["..", "link", "/"])
def test_search_tools_cannot_look_outside(run: Run, tool: str, rel: str) -> None:
    outcome = run(tool, {"path": rel, "pattern": "secret"})
    assert outcome.status == "error"
    assert f"`{rel}`" in outcome.result
    assert "leads outside the workspace" in outcome.result or "is outside the workspace" in outcome.result


# --------------------------------------------------------------------------- compare_result


@pytest.fixture
def echoed(run: Run) -> ToolOutcome:
    return run("runCmd", {"cmd": "echo hello"})


def test_compare_match(echoed: ToolOutcome) -> None:
    assert compare_result("hello", echoed, "ok") is None
    assert compare_result("hello\n", echoed, "completed") is None


def test_compare_mismatch_shows_both(echoed: ToolOutcome) -> None:
    assert compare_result("bye", echoed, "ok") == "expected result 'bye', got 'hello'"


def test_compare_ignores_trailing_whitespace_and_blank_end_lines(run: Run) -> None:
    outcome = run("runCmd", {"cmd": "printf 'a  \\nb\\t\\n\\n\\n'"})
    assert compare_result("\na\nb\n", outcome, "ok") is None
    assert compare_result("a\n  b", outcome, "ok") is not None  # leading whitespace inside still counts
    assert compare_result("a\n\nb", outcome, "ok") is not None  # and so do blank lines in the middle


def test_compare_mapping_checks_only_its_keys(run: Run, echoed: ToolOutcome) -> None:
    assert compare_result({"exitCode": 0}, echoed, "ok") is None
    assert compare_result({"exitCode": 1}, echoed, "ok") == "`exitCode`: expected '1', got '0'"
    assert compare_result({"output": "hello"}, echoed, "ok") is None
    assert compare_result({"stdout": "nope"}, echoed, "ok") == "`stdout`: expected 'nope', got 'hello'"
    failing = run("runCmd", {"cmd": "echo bad; exit 2"})
    assert compare_result({"exitCode": 2}, failing, "error") is None
    assert compare_result({"exitCode": 2, "result": "bad"}, failing, "failed") is None
    assert compare_result({"exitCode": 1}, failing, "error") == "`exitCode`: expected '1', got '2'"


@pytest.mark.parametrize("status", ["ok", "OK", "completed", "success", "succeeded"])
def test_compare_success_statuses(run: Run, echoed: ToolOutcome, status: str) -> None:
    assert compare_result(None, echoed, status) is None
    failed = run("runCmd", {"cmd": "echo broken; exit 1"})
    assert compare_result(None, failed, status) == "expected success, the tool failed (exit code 1): 'broken'"
    silent = run("runCmd", {"cmd": "exit 3"})  # nothing printed: the exit code is all there is to say
    assert compare_result(None, silent, status) == "expected success, the tool failed (exit code 3): ''"


@pytest.mark.parametrize("status", ["error", "failed", "failure", "Error"])
def test_compare_error_statuses(run: Run, echoed: ToolOutcome, status: str) -> None:
    assert compare_result(None, echoed, status) == "expected an error, the tool succeeded: 'hello'"
    failed = run("readFile", {"path": "missing"})
    assert compare_result("file not found: missing", failed, status) is None


@pytest.mark.parametrize("status", ["pending", "in_progress"])
def test_compare_pending_statuses_are_not_checked(run: Run, echoed: ToolOutcome, status: str) -> None:
    assert compare_result(None, echoed, status) is None
    assert compare_result(None, run("runCmd", {"cmd": "exit 1"}), status) is None
    assert compare_result("other", echoed, status) is not None  # the result still is


def test_compare_write_tools_do_not_compare_text(run: Run, ws: Workspace) -> None:
    wrote = run("writeFile", {"path": "a.txt", "content": "x"})
    assert compare_result("File written successfully", wrote, "ok") is None
    assert compare_result({"result": "anything"}, wrote, "ok") is None
    edited = run("editFile", {"path": "a.txt", "old_string": "zzz", "new_string": "y"})
    assert compare_result("whatever", edited, "ok") == (
        "expected success, the tool failed: '`old_string` not found in a.txt'"
    )


def test_compare_json_results(run: Run, project: Workspace) -> None:
    outcome = run("grep", {"pattern": "def", "output_mode": "count"})
    assert compare_result({"matches": 2}, outcome, "ok") is None
    assert compare_result({"matches": 3}, outcome, "ok") == "`matches`: expected '3', got '2'"


# --------------------------------------------------------------------------- perform_edit


def numstat(before: Path, after: Path) -> tuple[int, int]:
    """Lines added and removed, by git itself."""
    done = subprocess.run(
        ["git", "diff", "--no-index", "--numstat", str(before), str(after)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull},
    )
    added, removed, _ = done.stdout.split("\t", 2)
    return int(added), int(removed)


def test_perform_edit_adds_and_removes_lines(ws: Workspace, tmp_path: Path) -> None:
    path = write(ws, "five.txt", "".join(f"line {i}\n" for i in range(1, 6)))
    original = tmp_path / "original.txt"
    original.write_bytes(path.read_bytes())
    assert perform_edit(ws, "five.txt", 3, 1) is None
    assert path.read_text().splitlines() == [
        "line 1",
        "line 2",
        "line 3",
        "line 4",
        "// edited by agent (line 1)",
        "// edited by agent (line 2)",
        "// edited by agent (line 3)",
    ]
    assert numstat(original, path) == (3, 1)


def test_perform_edit_cannot_remove_more_than_exist(ws: Workspace) -> None:
    path = write(ws, "five.txt", "a\nb\nc\nd\ne\n")
    assert perform_edit(ws, "five.txt", 1, 7) == "cannot remove 7 lines: the file has 5"
    assert path.read_text() == "a\nb\nc\nd\ne\n"


def test_perform_edit_creates_a_file(ws: Workspace) -> None:
    assert perform_edit(ws, "new/dir/f.txt", 2, 0) is None
    assert (ws.path / "new" / "dir" / "f.txt").read_text() == (
        "// edited by agent (line 1)\n// edited by agent (line 2)\n"
    )
    assert perform_edit(ws, "other.txt", 0, 1) == "cannot remove 1 lines: the file has 0"
    assert not (ws.path / "other.txt").exists()


@pytest.mark.parametrize(("added", "removed"), [(1, 0), (0, 0), (2, 1), (0, 2)])
def test_perform_edit_on_a_file_without_a_final_newline(
    ws: Workspace, tmp_path: Path, added: int, removed: int
) -> None:
    path = write(ws, "f.txt", "a\nb")
    original = tmp_path / "original.txt"
    original.write_bytes(path.read_bytes())
    assert perform_edit(ws, "f.txt", added, removed) is None
    kept = ["a", "b"][: 2 - removed]
    assert path.read_text().splitlines() == kept + [
        f"// edited by agent (line {i + 1})" for i in range(added)
    ]


@pytest.mark.parametrize("rel", ["../x.txt", "link/x.txt", "/tmp/x.txt"])
def test_perform_edit_escapes(ws: Workspace, outside: Path, rel: str) -> None:
    problem = perform_edit(ws, rel, 1, 0)
    assert problem is not None
    assert "`agentEdits.path`" in problem
    assert not (outside / "x.txt").exists()
    assert not (outside.parent / "x.txt").exists()


def test_sed_expressions_cannot_write_or_run_outside_the_workspace(
    ws: Workspace, run: Run, outside: Path
) -> None:
    write(ws, "notes.txt", "hello\n")
    before = snapshot_dir(outside)
    for expression in (f"w {outside}/written.txt", "1e touch ../escaped.txt"):
        outcome = run("sed", {"expression": expression, "path": "notes.txt"})
        assert outcome.status == "error", outcome
    assert snapshot_dir(outside) == before
    assert not (ws.path.parent / "escaped.txt").exists()


# --------------------------------------------------------------------------- more runCmd and shells


def test_run_cmd_does_not_wait_for_what_it_left_running(run: Run, ws: Workspace) -> None:
    started = time.monotonic()
    outcome = run("runCmd", {"cmd": "sleep 60 & echo $! > child.pid; echo done", "timeout": 30_000})
    assert (outcome.status, outcome.result) == ("ok", "done\n")
    assert time.monotonic() - started < GENEROUS_S  # not 60 s: the child's output is a file, not a pipe
    child = int((ws.path / "child.pid").read_text())
    wait_for(lambda: is_dead(child), "the leftover child to be killed")


def test_run_cmd_timeout_keeps_the_output_so_far(run: Run) -> None:
    outcome = run("runCmd", {"cmd": "echo before; sleep 60", "timeout": 500})
    assert (outcome.status, outcome.result) == ("error", "before\nCommand timed out after 0.5 s")
    assert outcome.details["stdout"] == "before\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"cmd": "true", "timeout": "soon"}, "`timeout` must be a number, not 'soon'"),
        ({"cmd": "true", "timeout": 0}, "`timeout` must be positive, not 0"),
        ({"cmd": ["echo", "x"]}, "needs `cmd`"),
        ({"cmd": "true", "cwd": "file.txt"}, "`cwd` `file.txt` is not a folder"),
    ],
)
def test_run_cmd_bad_arguments(run: Run, ws: Workspace, args: dict[str, Any], message: str) -> None:
    write(ws, "file.txt", "x")
    outcome = run("runCmd", args)
    assert (outcome.status, outcome.result) == ("error", message)


def test_run_cmd_long_output_is_cut_for_the_agent(run: Run) -> None:
    outcome = run("runCmd", {"cmd": "head -c 40000 /dev/zero | tr '\\0' a"})
    assert outcome.status == "ok"
    assert outcome.result.startswith("a" * 30_000 + "\n... [10000 characters truncated]")
    assert outcome.details["truncated"] == 40_000
    assert len(outcome.details["stdout"]) == 40_000


def test_background_shells_write_nothing_into_the_workspace(run: Run, ws: Workspace) -> None:
    before = snapshot_dir(ws.path)
    shell = run("runCmd", {"cmd": "echo quiet", "run_in_background": True}).details["shell"]
    wait_for(lambda: not run("bashOutput", {"bash_id": shell}).details["running"], "the shell to end")
    assert snapshot_dir(ws.path) == before


def test_background_shell_ids_from_other_agents(run: Run) -> None:
    first = run("runCmd", {"cmd": "echo first; sleep 60", "run_in_background": True}).details["shell"]
    second = run("runCmd", {"cmd": "echo second; sleep 60", "run_in_background": True}).details["shell"]
    assert (first, second) == ("shell_1", "shell_2")

    def output_of(bash_id: str) -> str:
        seen: list[str] = []
        wait_for(
            lambda: bool(seen.append(run("bashOutput", {"bash_id": bash_id}).result) or "".join(seen)),
            bash_id,
        )
        return "".join(seen)

    assert output_of("bash_2") == "second\n"  # bash_N is shell_N
    assert output_of("b7e3f1") == "first\n"  # an unknown id names the oldest shell no id has named yet
    assert run("KillShell", {"shell_id": "b7e3f1"}).status == "ok"
    assert run("bashOutput", {"bash_id": "shell_1"}).details["status"] == "killed"
    unknown = run("bashOutput", {"bash_id": "c0ffee"})  # every shell is named now
    assert (unknown.status, unknown.result) == (
        "error",
        "no background shell `c0ffee` (running: shell_1, shell_2)",
    )


def test_bash_output_bad_filter(run: Run) -> None:
    shell = run("runCmd", {"cmd": "true", "run_in_background": True}).details["shell"]
    outcome = run("bashOutput", {"bash_id": shell, "filter": "("})
    assert outcome.status == "error"
    assert outcome.result.startswith("invalid `filter`:")


def test_bash_output_reports_a_failed_shell(run: Run) -> None:
    shell = run("runCmd", {"cmd": "echo no >&2; exit 4", "run_in_background": True}).details["shell"]
    wait_for(lambda: run("bashOutput", {"bash_id": shell}).details["status"] == "failed", "the shell to fail")
    final = run("bashOutput", {"bash_id": shell})
    assert (final.details["exitCode"], final.details["running"]) == (4, False)


def test_closing_the_registry_kills_every_shell(ws: Workspace) -> None:
    registry = ShellRegistry()
    registry.start("echo $$ > one.pid; sleep 60", ws.path)
    registry.start("echo $$ > two.pid; sleep 60", ws.path)
    for name in ("one.pid", "two.pid"):
        wait_for(lambda n=name: (ws.path / n).is_file() and (ws.path / n).read_text().strip() != "", name)
    pids = [int((ws.path / n).read_text()) for n in ("one.pid", "two.pid")]
    registry.close()
    for pid in pids:
        wait_for(lambda p=pid: is_dead(p), f"shell {pid} to die")
    assert registry.ids() == []


# --------------------------------------------------------------------------- more files


def test_edit_file_special_cases(run: Run, ws: Workspace) -> None:
    path = write(ws, "a.txt", "same")
    same = run("editFile", {"path": "a.txt", "old_string": "same", "new_string": "same"})
    assert (same.status, same.result) == (
        "error",
        "`old_string` and `new_string` are the same: no change to make",
    )
    created = run("Edit", {"file_path": "new.txt", "old_string": "", "new_string": "fresh\n"})
    assert (created.status, created.result) == ("ok", "Created new.txt")
    assert (ws.path / "new.txt").read_text() == "fresh\n"
    refused = run("Edit", {"file_path": "a.txt", "old_string": "", "new_string": "x"})
    assert (refused.status, refused.result) == (
        "error",
        "`old_string` is empty but a.txt is not: say what to replace",
    )
    assert path.read_text() == "same"


def test_write_file_onto_a_folder(run: Run, ws: Workspace) -> None:
    (ws.path / "dir").mkdir()
    outcome = run("writeFile", {"path": "dir", "content": "x"})
    assert (outcome.status, outcome.result) == ("error", "cannot write dir: it is a folder")


def test_sed_quiet_and_messages_without_temp_paths(run: Run, ws: Workspace) -> None:
    write(ws, "n.txt", "one\ntwo\nthree\n")
    assert run("sed", {"expression": "2p", "path": "n.txt", "quiet": True}).result == "two\n"
    missing = run("sed", {"expression": "p", "path": "sub/nope.txt"})
    assert missing.status == "error"
    assert "sub/nope.txt" in missing.result
    assert str(ws.path) not in missing.result  # the screen shows no temp folder name


def test_tool_arguments_of_the_wrong_type_are_errors(run: Run, ws: Workspace) -> None:
    write(ws, "x", "1\n")
    assert run("readFile", {"path": 7}).result == "needs `path`"
    assert (
        run("readFile", {"path": "x", "offset": "two"}).result == "`offset` must be a whole number, not 'two'"
    )
    assert run("grep", {"pattern": "x", "head_limit": []}).status == "error"
    assert run("listDir", {"ignore": 5}).status == "error"


# --------------------------------------------------------------------------- more search


def test_find_by_name_and_glob_by_path(run: Run, ws: Workspace) -> None:
    for rel in ("top.py", "pkg/mod.py", "pkg/sub/deep.py", "pkg/README.md"):
        write(ws, rel, "")
    assert run("find", {"name": "*.py"}).result == "pkg/mod.py\npkg/sub/deep.py\ntop.py"  # any depth
    assert run("Glob", {"pattern": "*.py"}).result == "top.py"  # Glob: a path pattern from `path`
    assert run("Glob", {"pattern": "**/*.py"}).result == "pkg/mod.py\npkg/sub/deep.py\ntop.py"
    assert run("Glob", {"pattern": "*.{py,md}", "path": "pkg"}).result == "pkg/README.md\npkg/mod.py"
    assert run("find", {"name": "*.py", "type": "file", "path": "pkg/sub"}).result == "pkg/sub/deep.py"
    assert run("find", {"type": "directory"}).result == "pkg\npkg/sub"
    assert run("find", {"path": "top.py"}).result == "not a folder: top.py"


def test_list_dir_ignore(run: Run, ws: Workspace) -> None:
    for rel in ("a.py", "b.log", "node_modules/x.js"):
        write(ws, rel, "")
    (ws.path / "link").unlink()
    (ws.path / "secret-link.txt").unlink()
    assert run("LS", {"path": ".", "ignore": ["*.log", "node_modules"]}).result == "a.py"
    assert run("LS", {"ignore": "*.log"}).result == "a.py\nnode_modules/"  # one glob, not its characters
    assert run("LS", {"ignore": 5}).result == "`ignore` must be a list of globs"


# --------------------------------------------------------------------------- more notebooks


def test_notebook_replace_clears_stale_outputs(run: Run, ws: Workspace) -> None:
    nb = json.loads(json.dumps(NOTEBOOK))
    nb["cells"][1].update(
        outputs=[{"output_type": "stream", "name": "stdout", "text": "1\n"}], execution_count=3
    )
    path = write(ws, "nb.ipynb", json.dumps(nb))
    assert (
        run(
            "notebookEdit", {"notebook_path": "nb.ipynb", "cell_id": "cell-1", "new_source": "print(5)"}
        ).status
        == "ok"
    )
    cell = json.loads(path.read_text())["cells"][1]
    assert (cell["source"], cell["outputs"], cell["execution_count"]) == ("print(5)", [], None)
    to_code = run(
        "notebookEdit",
        {"notebook_path": "nb.ipynb", "cell_id": "intro", "new_source": "1", "cell_type": "code"},
    )
    assert to_code.status == "ok"
    assert json.loads(path.read_text())["cells"][0]["outputs"] == []
    bad = run("notebookEdit", {"notebook_path": "nb.ipynb", "cell_id": "intro", "cell_type": "sql"})
    assert (bad.status, bad.result) == ("error", "cell_type `sql` is not one of code, markdown, raw")


def test_notebook_ids_only_where_the_format_has_them(run: Run, ws: Workspace) -> None:
    old = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    path = write(ws, "old.ipynb", json.dumps(old))
    assert (
        run("notebookEdit", {"notebook_path": "old.ipynb", "edit_mode": "insert", "new_source": "a"}).status
        == "ok"
    )
    assert "id" not in json.loads(path.read_text())["cells"][0]

    new = {"cells": [{"cell_type": "raw", "id": "cell-2", "metadata": {}, "source": ""}], "metadata": {},
           "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    path = write(ws, "new.ipynb", json.dumps(new))
    for _ in range(2):
        assert (
            run(
                "notebookEdit", {"notebook_path": "new.ipynb", "edit_mode": "insert", "new_source": "b"}
            ).status
            == "ok"
        )
    ids = [c["id"] for c in json.loads(path.read_text())["cells"]]
    assert len(ids) == len(set(ids)) == 3


# --------------------------------------------------------------------------- more canned tools and settings


def test_tools_without_a_scripted_result(run: Run) -> None:
    for name in ("webFetch", "webSearch"):
        outcome = run(name, {"url": "https://example.com/"})
        assert outcome.status == "error"
        assert outcome.result == "no network in the workbench: script what came back as the tool's `result`"
    assert (
        run("exitPlanMode", {"plan": "p"}).result == "User has approved your plan. You can now start coding."
    )
    assert run("slashCommand", {"command": "/review"}).result == "Launching command: /review"
    assert run("slashCommand", {}).result == "needs `command`"
    assert run("task", {"description": "find bugs"}).result == "Subagent finished: find bugs"


# --------------------------------------------------------------------------- more compare_result


def structured(result: Any, tool: str = "grep") -> ToolOutcome:
    return ToolOutcome("ok", result, tool)


def test_compare_structured_results() -> None:
    actual = structured({"files": ["a", "b"], "meta": {"n": 2, "extra": True}})
    assert compare_result({"files": ["a", "b"]}, actual, "ok") is None
    assert compare_result({"meta": {"n": 2.0}}, actual, "ok") is None  # JSON numbers
    assert compare_result({"meta": {"n": 3}}, actual, "ok") == "`meta.n`: expected '3', got '2'"
    assert compare_result({"meta": {"gone": 1}}, actual, "ok") == "`meta.gone`: expected '1', it is missing"
    assert compare_result({"files": ["a"]}, actual, "ok") == (
        '`files`: expected 1 items, got 2: \'["a", "b"]\''
    )
    assert compare_result({"files": ["a", "c"]}, actual, "ok") == "`files[1]`: expected 'c', got 'b'"
    assert compare_result([1, True], structured([1, True]), "ok") is None
    assert compare_result([1, 1], structured([1, True]), "ok") == "`[1]`: expected '1', got 'true'"
    assert compare_result(42, structured("42\n", "runCmd"), "ok") is None


@given(value=st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
))  # fmt: skip
def test_compare_any_json_result_matches_itself(value: Any) -> None:
    assert compare_result(value, structured(value), "ok") is None


@given(
    lines=st.lists(st.text(alphabet="ab \t", max_size=6), max_size=6),
    pads=st.lists(st.sampled_from(["", " ", "\t", "  "]), min_size=6, max_size=6),
    blank_end=st.integers(0, 3),
)
def test_compare_text_ignores_trailing_space_and_blank_ends(
    lines: list[str], pads: list[str], blank_end: int
) -> None:
    expected = "\n".join(lines)
    actual = "\n".join(line + pad for line, pad in zip(lines, pads, strict=False)) + "\n" * blank_end
    assert compare_result(expected, structured(actual, "runCmd"), "ok") is None


# --------------------------------------------------------------------------- more perform_edit


def test_perform_edit_again_and_again_on_one_file(ws: Workspace, tmp_path: Path) -> None:
    path = write(ws, "f.txt", "keep\n")
    for added, removed in [(3, 0), (2, 1), (0, 2), (4, 3), (1, 1)]:
        original = tmp_path / "original.txt"
        original.write_bytes(path.read_bytes())
        assert perform_edit(ws, "f.txt", added, removed) is None
        assert numstat(original, path) == (added, removed) or added == removed == 0


def test_perform_edit_on_lines_that_look_like_diff_headers(ws: Workspace, tmp_path: Path) -> None:
    path = write(ws, "f.txt", "--- a\n+++ b\n--x\n++y\n")
    original = tmp_path / "original.txt"
    original.write_bytes(path.read_bytes())
    assert perform_edit(ws, "f.txt", 1, 2) is None
    assert numstat(original, path) == (1, 2)


def test_perform_edit_on_a_long_repetitive_file(ws: Workspace, tmp_path: Path) -> None:
    path = write(ws, "big.txt", "same\n" * 500)
    original = tmp_path / "original.txt"
    original.write_bytes(path.read_bytes())
    assert perform_edit(ws, "big.txt", 7, 300) is None
    assert numstat(original, path) == (7, 300)


def test_perform_edit_problems(ws: Workspace) -> None:
    (ws.path / "bin.dat").write_bytes(b"\xff\xfe\x00")
    assert perform_edit(ws, "bin.dat", 1, 0).startswith("cannot read `bin.dat` as text")
    (ws.path / "dir").mkdir()
    assert perform_edit(ws, "dir", 1, 0) == "`dir` is a folder"
    assert perform_edit(ws, "x.txt", -1, 0) == "line counts must not be negative (+-1 -0)"
    assert perform_edit(ws, "nothing.txt", 0, 0) is None
    assert not (ws.path / "nothing.txt").exists()


# --------------------------------------------------------------------------- no scenario can crash a tool or escape


FUZZ_TOOLS = ["readFile", "writeFile", "appendFile", "editFile", "grep", "listDir", "find", "notebookEdit",
              "todoWrite", "exitPlanMode", "slashCommand", "task", "webFetch", "bashOutput", "killShell", "Nope"]  # fmt: skip
FUZZ_PATHS = st.sampled_from(
    ["a.txt", "../x", "/etc/passwd", "link/x", "secret-link.txt", "", ".", "d/../a.txt"]
)
FUZZ_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.text(max_size=6),
    FUZZ_PATHS,
    st.lists(st.integers(), max_size=2),
)
FUZZ_KEYS = st.sampled_from(
    ["path", "file_path", "notebook_path", "content", "old_string", "new_string", "replace_all", "pattern", "glob",
     "type", "output_mode", "-C", "-n", "head_limit", "offset", "limit", "cell_id", "edit_mode", "todos", "bash_id",
     "recursive", "name"]
)  # fmt: skip


@settings(
    max_examples=300,
    suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture],
)
@given(tool=st.sampled_from(FUZZ_TOOLS), args=st.dictionaries(FUZZ_KEYS, FUZZ_VALUES, max_size=6))
@example(tool="find", args={"name": "[]"})  # globs that were invalid regexes (issue #10)
@example(tool="find", args={"name": "[!]"})
@example(tool="grep", args={"pattern": "x", "glob": "[]a]"})
@example(tool="find", args={"name": "{" * 100})
def test_any_arguments_give_an_outcome_and_stay_inside(
    run: Run, ws: Workspace, outside: Path, tool: str, args: dict[str, Any]
) -> None:
    before = snapshot_dir(outside)
    outcome = run(tool, args)
    assert outcome.status in ("ok", "error")
    assert snapshot_dir(outside) == before
    assert not (ws.path.parent / "x").exists()


def test_a_grep_pattern_that_backtracks_without_end_fails_the_call(run: Run, ws: Workspace) -> None:
    """A file the program under test wrote, searched by a scenario's `(a|a)+$`, held the tool for ever."""
    (ws.path / "out.txt").write_text("a" * 42 + "!\n")
    outcome = run("grep", {"pattern": "(a|a)+$"})
    assert outcome.status == "error"
    assert outcome.result.startswith(
        "the `pattern` `(a|a)+$` was stopped after 1 s on a text of 43 characters"
    )
    assert outcome.result.endswith("(in out.txt)")
