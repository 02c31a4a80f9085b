"""The assertion evaluator: what `assert`, `assertGit` and `userCommand.expect` check, written once.

The engine evaluates assertions after a step has settled; the mock LLM server
evaluates the workspace part of an `assert` before it sends its next reply (a
real agent runs the tools, so the files change between two requests). Both use
these functions, so the two modes can never disagree on what a check means.
What needs the screen is passed in as text: ``screen=None`` means "no screen
here" and leaves ``text.contains`` to whoever has one.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.scenario import model as m
from workbench.scenario.outcomes import CheckOutcome

from .git import git
from .workspace import Workspace


def assert_checks(
    event: m.Assert, ws: Workspace | None, screen: str | None, *, files: bool = True
) -> list[CheckOutcome]:
    """The outcomes of an `assert`: its ``text.contains`` (when a ``screen`` is given) and its workspace
    checks (when ``files`` and a workspace are given)."""
    outcomes: list[CheckOutcome] = []
    if screen is not None:
        for text in event.text_contains:
            ok = text in screen or text in screen.replace("\n", "")
            outcomes.append(
                CheckOutcome(ok, f"the screen {'contains' if ok else 'does not contain'} {text!r}")
            )
    if files and ws is not None:
        outcomes += [check for _, check in workspace_checks(event, ws)]
    return outcomes


def workspace_checks(event: m.Assert, ws: Workspace) -> list[tuple[str, CheckOutcome]]:
    """The workspace part of an `assert`, each outcome with the key that asked for it (`fs.exists`...)."""
    checks = [("fs.exists", ws.check_fs_exists(p)) for p in event.fs_exists]
    checks += [("fs.notExists", ws.check_fs_not_exists(p)) for p in event.fs_not_exists]
    checks += [("json.file", ws.check_json_file(c.path, c.pointer, c.equals)) for c in event.json_file]
    checks += [
        ("git.commit", ws.check_git_commit_message_contains(t)) for t in event.git_commit_message_contains
    ]
    return checks


def has_workspace_checks(event: m.Assert) -> bool:
    return bool(
        event.fs_exists or event.fs_not_exists or event.json_file or event.git_commit_message_contains
    )


def _git(path: Path, *args: str) -> str:
    """git's output in the workspace, never a parent repository's (workspace.git's environment); "" on failure."""
    done = git(path, *args, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def git_checks(path: Path, checks: Mapping[str, Any]) -> list[CheckOutcome]:
    """The ah-cli `assertGit` form: `branch` names the subject (default HEAD)."""
    branch = str(checks.get("branch", "HEAD"))
    out: list[CheckOutcome] = []
    if "exists" in checks:
        exists = bool(_git(path, "rev-parse", "--verify", "--quiet", branch))
        want = bool(checks["exists"])
        out.append(
            CheckOutcome(exists == want, f"branch {branch!r} {'exists' if exists else 'does not exist'}")
        )
    if "commitsAheadOf" in checks:
        base = str(checks["commitsAheadOf"])
        count = int(_git(path, "rev-list", "--count", f"{base}..{branch}") or 0)
        want_count = int(checks.get("commitCount", 1))
        ok = count == want_count if "commitCount" in checks else count > 0
        out.append(CheckOutcome(ok, f"{branch!r} is {count} commits ahead of {base!r}"))
    elif "commitCount" in checks:
        count = int(_git(path, "rev-list", "--count", branch) or 0)
        wanted = int(checks["commitCount"])
        out.append(CheckOutcome(count == wanted, f"{branch!r} has {count} commits, expected {wanted}"))
    if "headMessageContains" in checks:
        message = _git(path, "log", "-1", "--format=%B", branch)
        text = str(checks["headMessageContains"])
        out.append(CheckOutcome(text in message, f"the last commit message on {branch!r} contains {text!r}"))
    if "remoteExists" in checks:
        remotes = _git(path, "remote").split()
        wanted_remote = checks["remoteExists"]
        if isinstance(wanted_remote, bool):
            expected = "some" if wanted_remote else "none"
            out.append(
                CheckOutcome(
                    bool(remotes) == wanted_remote, f"remotes: {remotes or 'none'}, expected {expected}"
                )
            )
        else:
            out.append(
                CheckOutcome(
                    str(wanted_remote) in remotes, f"remote {wanted_remote!r} exists (remotes: {remotes})"
                )
            )
    if "branch" in checks and len(checks) == 1:
        current = _git(path, "rev-parse", "--abbrev-ref", "HEAD")
        out.append(CheckOutcome(current == branch, f"the current branch is {current!r}, expected {branch!r}"))
    return out


def command_checks(
    event: m.UserCommand, done: subprocess.CompletedProcess[str], ws: Workspace
) -> list[CheckOutcome]:
    """A `userCommand`'s `expect`: exit code, output, files."""
    expect = event.expect
    checks: list[CheckOutcome] = []
    if "exitCode" in expect:
        ok = done.returncode == expect["exitCode"]
        detail = "" if ok else f" (stderr: {done.stderr.strip()[:300]})"
        checks.append(
            CheckOutcome(ok, f"userCommand exited {done.returncode}, expected {expect['exitCode']}{detail}")
        )
    for key, stream in (("stdoutContains", done.stdout), ("stderrContains", done.stderr)):
        if key in expect:
            wanted = expect[key] if isinstance(expect[key], list) else [expect[key]]
            for text in wanted:
                checks.append(CheckOutcome(str(text) in stream, f"userCommand {key[:6]} contains {text!r}"))
    fs = expect.get("fs") or {}
    checks += [ws.check_fs_exists(p) for p in fs.get("exists", [])]
    checks += [ws.check_fs_not_exists(p) for p in fs.get("notExists", [])]
    for item in fs.get("contains", []):
        path = ws.resolve(item["path"], what="fs.contains path")
        text = path.read_text(errors="replace") if path.is_file() else ""
        checks.append(
            CheckOutcome(item["substring"] in text, f"{item['path']} contains {item['substring']!r}")
        )
    return checks
