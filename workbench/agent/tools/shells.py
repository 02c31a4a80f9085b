"""`runCmd`, and background shells for `bashOutput` and `killShell`.

Commands run in real bash, in the workspace (``cwd`` confined to it), each in
its own session (process group) so a timeout or a kill ends the command *and*
everything it started. Output goes to anonymous temp files, never pipes: a
command that leaves a child holding its output open cannot hang the agent, and
nothing is written into the workspace (a shell's log is not a change the
scenario made).

When a foreground command finishes, whatever it left running in its process
group is killed: a scenario that wants something to keep running uses
``run_in_background``. ``timeout`` is in milliseconds, as both formats write it
(Agent Harbor's ``runCmd.timeout`` and Claude Code's Bash tool); the default is
two minutes.

Background shells are named ``shell_1``, ``shell_2``... in start order;
``bash_N`` means the same shell. An id the registry does not know (say, one
copied from a recorded Claude Code session) is bound, on first use, to the
oldest shell no id has named yet, so recorded scenarios keep working.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import IO

from workbench.records import record
from workbench.scenario.user_regex import PatternTooSlow, UserRegex
from workbench.workspace.landlock import default_writable, scratch_folder
from workbench.workspace.sandbox import Sandbox

from .base import Json, ToolContext, ToolError, ToolOutcome, arg, flag_arg, text_arg

DEFAULT_TIMEOUT_MS = 120_000
OUTPUT_LIMIT = 30_000  # characters of output the agent is shown, as Claude Code's Bash tool
_READ_CHUNK = 1 << 16


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the command's whole process group (it may be gone already), then reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _spawn(
    cmd: str, cwd: Path, stdout: IO[bytes], stderr: IO[bytes] | int, root: Path, scratch: Path
) -> subprocess.Popen[bytes]:
    """bash in its own process group; where Landlock allows, it writes only under ``root`` and ``scratch``
    (its TMPDIR)."""
    with Sandbox(default_writable(root, scratch)) as sandbox:
        return sandbox.run(
            lambda: subprocess.Popen(
                sandbox.wrap(["bash", "-c", cmd]),
                cwd=cwd,
                env={**os.environ, "TMPDIR": str(scratch)},
                stdout=stdout,
                stderr=stderr,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        )


def wait_for_exit(process: subprocess.Popen[bytes], timeout: float) -> int:
    """``process.wait(timeout)``, woken the moment the process ends (Linux: a pidfd), where ``Popen.wait``
    with a timeout looks after 0.5, 1, 2, 4... ms: a command of 3 ms was seen done after 7.5 ms (the 30
    commands of benchmarks/run.py's 30 s scenario waited about 60 ms more than they ran)."""
    pidfd_open = getattr(os, "pidfd_open", None)
    try:
        pidfd = -1 if pidfd_open is None else pidfd_open(process.pid)
    except OSError:  # a kernel before 5.3
        pidfd = -1
    if pidfd < 0:
        return process.wait(timeout=timeout)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        if not poller.poll(timeout * 1000):
            raise subprocess.TimeoutExpired(process.args, timeout)
    finally:
        os.close(pidfd)
    return process.wait()


def _read_all(sink: IO[bytes]) -> str:
    return os.pread(sink.fileno(), os.fstat(sink.fileno()).st_size, 0).decode("utf-8", "replace")


# --------------------------------------------------------------------------- background shells


@record
class _Shell:
    process: subprocess.Popen[bytes]
    sink: IO[bytes]
    offset: int = 0
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace")
    )


class ShellRegistry:
    """The background shells of one agent and their scratch folder; :meth:`close` kills them all."""

    def __init__(self) -> None:
        self._shells: dict[str, _Shell] = {}
        self._aliases: dict[str, str] = {}
        self._named: set[str] = set()
        self._scratch: Path | None = None

    def scratch(self) -> Path:
        """The commands' private TMPDIR (made on first use, removed by :meth:`close`)."""
        if self._scratch is None or not self._scratch.is_dir():
            self._scratch = scratch_folder()
        return self._scratch

    def start(self, cmd: str, cwd: Path, root: Path | None = None) -> str:
        """Start ``cmd`` in bash in the background (writing only under ``root``, default ``cwd``); return its id."""
        shell_id = f"shell_{len(self._shells) + 1}"
        sink = tempfile.TemporaryFile(prefix="wb-shell-")  # noqa: SIM115 -- the shell owns it; close() closes it
        try:
            process = _spawn(cmd, cwd, sink, subprocess.STDOUT, root or cwd, self.scratch())
        except BaseException:
            sink.close()
            raise
        self._shells[shell_id] = _Shell(process, sink)
        return shell_id

    def output(self, shell_id: str) -> tuple[str, bool, int | None]:
        """New output since the last call, whether the shell still runs, and its exit code."""
        shell = self._get(shell_id)
        code = shell.process.poll()  # before reading: output written before the exit is all there
        fd = shell.sink.fileno()
        chunks = []
        while chunk := os.pread(fd, _READ_CHUNK, shell.offset):
            chunks.append(chunk)
            shell.offset += len(chunk)
        return shell.decoder.decode(b"".join(chunks), final=code is not None), code is None, code

    def kill(self, shell_id: str) -> None:
        _kill_group(self._get(shell_id).process)

    def ids(self) -> list[str]:
        return list(self._shells)

    def _get(self, name: str) -> _Shell:
        shell_id = self._resolve(name)
        self._named.add(shell_id)
        return self._shells[shell_id]

    def _resolve(self, name: str) -> str:
        if name in self._shells:
            return name
        match = re.fullmatch(r"bash_(\d+)", name)
        if match and f"shell_{match.group(1)}" in self._shells:
            return f"shell_{match.group(1)}"
        if name in self._aliases:
            return self._aliases[name]
        unnamed = [s for s in self._shells if s not in self._named and s not in self._aliases.values()]
        if name and unnamed and not re.fullmatch(r"(shell|bash)_\d+", name):
            self._aliases[name] = unnamed[0]
            return unnamed[0]
        known = ", ".join(self._shells) or "none"
        raise ToolError(f"no background shell `{name}` (running: {known})")

    def close(self) -> None:
        """Kill every background shell (and what it started) and forget them."""
        for shell in self._shells.values():
            _kill_group(shell.process)
            shell.sink.close()
        self._shells.clear()
        self._aliases.clear()
        self._named.clear()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


# --------------------------------------------------------------------------- tools


def timeout_seconds(value: Json) -> float:
    """A ``timeout`` argument (milliseconds) in seconds."""
    try:
        timeout = float(value)
    except (TypeError, ValueError):
        raise ToolError(f"`timeout` must be a number, not {value!r}") from None
    if not timeout > 0:
        raise ToolError(f"`timeout` must be positive, not {value!r}")
    return timeout / 1000


def run_cmd(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    cmd = text_arg(args, "cmd", "command")
    cwd = ctx.workspace.resolve(str(arg(args, "cwd", default=".")), what="`cwd`")
    if not cwd.is_dir():
        raise ToolError(f"`cwd` `{arg(args, 'cwd')}` is not a folder")
    if flag_arg(args, "run_in_background", "background"):
        shell_id = ctx.shells.start(cmd, cwd, ctx.workspace.path)
        return ToolOutcome(
            "ok", f"Command running in background with ID: {shell_id}", details={"shell": shell_id}
        )
    timeout = timeout_seconds(arg(args, "timeout", default=DEFAULT_TIMEOUT_MS))
    with (
        tempfile.TemporaryFile(prefix="wb-out-") as out,
        tempfile.TemporaryFile(prefix="wb-err-") as err,
    ):
        process = _spawn(cmd, cwd, out, err, ctx.workspace.path, ctx.shells.scratch())
        try:
            code: int | None = wait_for_exit(process, timeout)
        except subprocess.TimeoutExpired:
            code = None
        _kill_group(process)  # the command's leftovers (or the command itself, on a timeout)
        stdout, stderr = _read_all(out), _read_all(err)
    output = stdout + stderr
    details = {"stdout": stdout, "stderr": stderr, "exitCode": code, "exit_code": code}
    if code is None:
        tail = f"Command timed out after {timeout:g} s"
        return ToolOutcome("error", f"{output}{tail}" if output else tail, details=details)
    if len(output) > OUTPUT_LIMIT:
        details["truncated"] = len(output)
        output = output[:OUTPUT_LIMIT] + f"\n... [{len(output) - OUTPUT_LIMIT} characters truncated]"
    return ToolOutcome("ok" if code == 0 else "error", output, details=details)


def bash_output(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    shell_id = text_arg(args, "bash_id", "shell_id", "id")
    text, running, code = ctx.shells.output(shell_id)
    pattern = arg(args, "filter")
    if pattern:
        try:
            re.compile(str(pattern))
        except re.error as exc:
            raise ToolError(f"invalid `filter`: {exc}") from None
        regex = UserRegex(str(pattern), "the `filter`")
        try:  # the shell's output: a pattern too slow for it fails the call
            text = "\n".join(line for line in text.splitlines() if regex.search(line))
        except PatternTooSlow as exc:
            raise ToolError(str(exc)) from None
    details = {
        "running": running,
        "exitCode": code,
        "exit_code": code,
        "status": _shell_status(running, code),
    }
    return ToolOutcome("ok", text, details=details)


def _shell_status(running: bool, code: int | None) -> str:
    if running:
        return "running"
    return "completed" if code == 0 else ("killed" if code is not None and code < 0 else "failed")


def kill_shell(args: Mapping[str, Json], ctx: ToolContext) -> ToolOutcome:
    shell_id = text_arg(args, "shell_id", "bash_id", "id")
    ctx.shells.kill(shell_id)
    return ToolOutcome("ok", f"Killed {shell_id}")
