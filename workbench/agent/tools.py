"""The tools the mock agent executes for real, in the workspace.

Each scenario tool (by its Agent Harbor name or a known alias: ``runCmd``,
``run_command``, ``Bash``, ...) runs against real files and real processes, with
every path confined to the workspace. The real outcome is then compared with the
scenario's expected ``result`` and ``status``:

* the result is compared for tools whose output is the point (``runCmd``,
  ``readFile``, ``grep``, ``listDir``, ``find``, ``sed``, ``bashOutput``):
  strings after trimming trailing whitespace on each line and blank lines at the
  ends; objects by the keys the scenario gives;
* for tools that change files (``writeFile``, ``editFile``, ``notebookEdit``, ...)
  the result text is what the agent prints, the status is compared, and the
  change itself is on disk for ``assert`` to check;
* ``webFetch``/``webSearch``/``task``/``slashCommand`` have no network or
  subagent here: they return the scenario's canned ``result``.

``status`` ``ok``/``completed``/``success`` mean success, ``error``/``failed``
failure; ``pending``/``in_progress`` are not checked. A ``runCmd`` ``timeout``
of 1000 or more is in milliseconds (as Claude Code's Bash tool), smaller values
are seconds. Claudeless ``tool_execution``: mode ``mock`` never executes and
returns the configured or canned result; per tool, ``error`` fails it with that
message, ``result`` replaces the result, and ``auto_approve: false`` denies it.
"""

from __future__ import annotations

import contextlib
import difflib
import fnmatch
import json
import os
import re
import signal
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.scenario import model as m
from workbench.workspace import Workspace, WorkspaceError

Json = Any
DEFAULT_TIMEOUT_S = 120.0
OUTPUT_LIMIT = 30000

ALIASES = {
    "runCmd": "runCmd", "run_command": "runCmd", "run_cmd": "runCmd", "Bash": "runCmd", "bash": "runCmd",
    "shell": "runCmd", "readFile": "readFile", "read_file": "readFile", "Read": "readFile", "read": "readFile",
    "writeFile": "writeFile", "write_file": "writeFile", "Write": "writeFile", "write": "writeFile",
    "appendFile": "appendFile", "append_file": "appendFile", "editFile": "editFile", "Edit": "editFile",
    "edit": "editFile", "replaceInFile": "editFile", "replace_in_file": "editFile", "replace_text": "editFile",
    "grep": "grep", "Grep": "grep", "listDir": "listDir", "list_dir": "listDir", "LS": "listDir", "ls": "listDir",
    "find": "find", "Glob": "find", "glob": "find", "sed": "sed", "notebookEdit": "notebookEdit",
    "NotebookEdit": "notebookEdit", "todoWrite": "todoWrite", "TodoWrite": "todoWrite",
    "exitPlanMode": "exitPlanMode", "ExitPlanMode": "exitPlanMode", "slashCommand": "slashCommand",
    "SlashCommand": "slashCommand", "task": "task", "Task": "task", "webFetch": "webFetch",
    "WebFetch": "webFetch", "webSearch": "webSearch", "WebSearch": "webSearch", "bashOutput": "bashOutput",
    "BashOutput": "bashOutput", "killShell": "killShell", "KillShell": "killShell",
}  # fmt: skip
OUTPUT_TOOLS = {"runCmd", "readFile", "grep", "listDir", "find", "sed", "bashOutput"}
OK_STATUSES = {"ok", "completed", "success", "succeeded"}
ERROR_STATUSES = {"error", "failed", "failure"}


class ToolError(Exception):
    """The tool ran and failed (a missing file, a string not found): status `error`."""


@dataclass
class ToolOutcome:
    status: str  # ok | error
    result: Json
    tool: str = ""
    details: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- background shells


@dataclass
class _Shell:
    process: subprocess.Popen[bytes]
    output: Path
    offset: int = 0


class ShellRegistry:
    """Background shells (``runCmd`` with ``run_in_background``) for ``bashOutput``/``killShell``."""

    def __init__(self) -> None:
        self._shells: dict[str, _Shell] = {}

    def start(self, cmd: str, cwd: Path, log_dir: Path) -> str:
        shell_id = f"shell_{len(self._shells) + 1}"
        log_dir.mkdir(parents=True, exist_ok=True)
        output = log_dir / f"{shell_id}.log"
        with output.open("wb") as sink:
            process = subprocess.Popen(["bash", "-c", cmd], cwd=cwd, stdout=sink, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
        self._shells[shell_id] = _Shell(process, output)
        return shell_id

    def output(self, shell_id: str) -> tuple[str, bool, int | None]:
        """New output since the last call, whether it still runs, and its exit code."""
        shell = self._get(shell_id)
        code = shell.process.poll()
        data = shell.output.read_bytes()
        new, shell.offset = data[shell.offset :], len(data)
        return new.decode("utf-8", "replace"), code is None, code

    def kill(self, shell_id: str) -> None:
        shell = self._get(shell_id)
        _kill_group(shell.process)

    def _get(self, shell_id: str) -> _Shell:
        if shell_id not in self._shells:
            known = ", ".join(self._shells) or "none"
            raise ToolError(f"no background shell `{shell_id}` (running: {known})")
        return self._shells[shell_id]

    def close(self) -> None:
        for shell in self._shells.values():
            _kill_group(shell.process)
        self._shells.clear()


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()


# --------------------------------------------------------------------------- execution


def execute_tool(
    name: str,
    args: Mapping[str, Json],
    workspace: Workspace,
    *,
    canned_result: Json = None,
    shells: ShellRegistry,
    setting: m.ToolSetting | None = None,
    mode: str = "live",
) -> ToolOutcome:
    """Run one tool for real (or, per the Claudeless settings, not) and return its outcome."""
    tool = ALIASES.get(name, name)
    if setting is not None:
        if setting.auto_approve is False:
            return ToolOutcome("error", f"permission denied: {name} needs approval", tool)
        if setting.error is not None:
            return ToolOutcome("error", setting.error, tool)
        if setting.result is not None and mode == "mock":
            return ToolOutcome("ok", setting.result, tool)
    if mode == "mock":
        return ToolOutcome("ok", canned_result if canned_result is not None else f"{name}: mocked", tool)
    runner = _TOOLS.get(tool)
    if runner is None:
        return ToolOutcome("ok", canned_result, tool, {"note": f"`{name}` is not a tool the mock agent runs"})
    try:
        outcome = runner(dict(args), workspace, canned_result, shells)
    except (ToolError, WorkspaceError) as exc:
        return ToolOutcome("error", str(exc), tool)
    except OSError as exc:
        return ToolOutcome("error", f"{exc.strerror or exc}", tool)
    outcome.tool = tool
    if setting is not None and setting.result is not None:
        outcome.result = setting.result
    return outcome


def _arg(args: Mapping[str, Json], *names: str, default: Json = None) -> Json:
    for n in names:
        if n in args and args[n] is not None:
            return args[n]
    return default


def _path(
    args: Mapping[str, Json], ws: Workspace, *names: str, default: str | None = None
) -> tuple[str, Path]:
    rel = _arg(args, *names, default=default)
    if not isinstance(rel, str) or not rel:
        raise ToolError(f"needs `{names[0]}`")
    return rel, ws.resolve(rel, what=f"`{names[0]}`")


def _run_cmd(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    cmd = _arg(args, "cmd", "command")
    if not isinstance(cmd, str):
        raise ToolError("needs `cmd`")
    cwd = ws.resolve(str(_arg(args, "cwd", default=".")), what="`cwd`")
    if _arg(args, "run_in_background", "background", default=False):
        shell_id = shells.start(cmd, cwd, ws.path / ".workbench" / "shells")
        return ToolOutcome(
            "ok", f"Command running in background with ID: {shell_id}", details={"shell": shell_id}
        )
    timeout = float(_arg(args, "timeout", default=DEFAULT_TIMEOUT_S))
    if timeout >= 1000:
        timeout /= 1000
    with subprocess.Popen(["bash", "-c", cmd], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, start_new_session=True) as done:  # fmt: skip
        try:
            out, err = done.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # the whole session, not just bash: its children would otherwise live on (and hold the pipes)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(done.pid, signal.SIGKILL)
            done.communicate()
            return ToolOutcome("error", f"Command timed out after {timeout:g} s", details={"exitCode": None})
    stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    output = (stdout + stderr)[:OUTPUT_LIMIT]
    details = {"stdout": stdout, "stderr": stderr, "exitCode": done.returncode, "exit_code": done.returncode}
    return ToolOutcome("ok" if done.returncode == 0 else "error", output, details=details)


def _read_file(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    rel, path = _path(args, ws, "path", "file_path")
    if not path.is_file():
        raise ToolError(f"file not found: {rel}")
    text = path.read_text(encoding=str(_arg(args, "encoding", default="utf-8")), errors="replace")
    offset, limit = _arg(args, "offset"), _arg(args, "limit")
    if offset is not None or limit is not None:
        lines = text.splitlines(keepends=True)
        start = max(0, int(offset or 1) - 1)
        end = len(lines) if limit is None else start + int(limit)
        text = "".join(lines[start:end])
    return ToolOutcome("ok", text)


def _write_file(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    rel, path = _path(args, ws, "path", "file_path")
    content = _arg(args, "content", "text", default="")
    path.parent.mkdir(parents=True, exist_ok=True)
    existed = path.exists()
    path.write_text(str(content), encoding="utf-8")
    verb = "Updated" if existed else "Created"
    return ToolOutcome("ok", f"{verb} {rel} ({len(str(content).encode())} bytes)")


def _append_file(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    rel, path = _path(args, ws, "path", "file_path")
    content = str(_arg(args, "content", "text", default=""))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(content)
    return ToolOutcome("ok", f"Appended to {rel}")


def _edit_file(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    rel, path = _path(args, ws, "path", "file_path")
    old = _arg(args, "old_string", "old_str", "oldText", "old", "search")
    new = _arg(args, "new_string", "new_str", "newText", "new", "replace", default="")
    if old is None and isinstance(_arg(args, "text", "content"), str):
        return _append_file(args, ws, canned, shells)  # the legacy mock agent's `Edit {path, text}` appends
    if not isinstance(old, str):
        raise ToolError("needs `old_string`")
    if not path.is_file():
        raise ToolError(f"file not found: {rel}")
    text = path.read_text(encoding="utf-8")
    count = text.count(old)
    if count == 0:
        raise ToolError(f"`old_string` not found in {rel}")
    replace_all = bool(_arg(args, "replace_all", default=False))
    if count > 1 and not replace_all:
        raise ToolError(f"`old_string` occurs {count} times in {rel}; give more context or set replace_all")
    path.write_text(
        text.replace(old, str(new)) if replace_all else text.replace(old, str(new), 1), encoding="utf-8"
    )
    return ToolOutcome(
        "ok",
        f"Updated {rel} ({count if replace_all else 1} replacement{'s' if count > 1 and replace_all else ''})",
    )


def _walk(root: Path, ws: Workspace) -> list[Path]:
    if root.is_file():
        return [root]
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", ".workbench"))
        out += [Path(dirpath) / f for f in sorted(filenames)]
    return out


_TYPES = {"py": ("*.py", "*.pyi"), "js": ("*.js", "*.mjs", "*.cjs"), "ts": ("*.ts", "*.tsx"), "rust": ("*.rs",),
          "go": ("*.go",), "md": ("*.md",), "json": ("*.json",), "yaml": ("*.yaml", "*.yml"), "txt": ("*.txt",)}  # fmt: skip


def _grep(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    pattern = _arg(args, "pattern")
    if not isinstance(pattern, str):
        raise ToolError("needs `pattern`")
    flags = re.IGNORECASE if _arg(args, "-i", "i", "ignore_case", default=False) else 0
    if _arg(args, "multiline", default=False):
        flags |= re.MULTILINE | re.DOTALL
    try:
        regex = re.compile(pattern, flags)
    except re.error as exc:
        raise ToolError(f"invalid pattern: {exc}") from None
    rel_root = str(_arg(args, "path", default="."))
    root = ws.resolve(rel_root, what="`path`")
    glob, ftype = _arg(args, "glob"), _arg(args, "type")
    mode = str(_arg(args, "output_mode", default="files_with_matches"))
    numbered = bool(_arg(args, "-n", "n", "line_numbers", default=False))
    context = int(_arg(args, "-C", "C", "context", default=0))
    before, after = int(_arg(args, "-B", "B", default=context)), int(_arg(args, "-A", "A", default=context))
    out: list[str] = []
    for path in _walk(root, ws):
        rel = str(path.relative_to(ws.path))
        if glob and not (fnmatch.fnmatch(path.name, str(glob)) or fnmatch.fnmatch(rel, str(glob))):
            continue
        if ftype and not any(fnmatch.fnmatch(path.name, g) for g in _TYPES.get(str(ftype), (f"*.{ftype}",))):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if flags & re.DOTALL:
            hits = [text.count("\n", 0, mt.start()) for mt in regex.finditer(text)]
        else:
            hits = [i for i, line in enumerate(text.splitlines()) if regex.search(line)]
        if not hits:
            continue
        if mode == "files_with_matches":
            out.append(rel)
        elif mode == "count":
            out.append(f"{rel}:{len(hits)}")
        else:
            lines = text.splitlines()
            shown = sorted(
                {j for i in hits for j in range(max(0, i - before), min(len(lines), i + after + 1))}
            )
            for j in shown:
                out.append(f"{rel}:{j + 1}:{lines[j]}" if numbered else f"{rel}:{lines[j]}")
    head = _arg(args, "head_limit")
    if head is not None:
        out = out[: int(head)]
    return ToolOutcome("ok", "\n".join(out) if out else "No matches found", details={"matches": len(out)})


def _list_dir(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    rel, root = _path(args, ws, "path", default=".")
    if not root.is_dir():
        raise ToolError(f"not a folder: {rel}")
    pattern = _arg(args, "pattern")
    if _arg(args, "recursive", default=False):
        entries = [str(p.relative_to(root)) for p in _walk(root, ws)]
    else:
        entries = sorted(
            p.name + ("/" if p.is_dir() else "")
            for p in root.iterdir()
            if p.name not in (".git", ".workbench")
        )
    if pattern:
        entries = [e for e in entries if fnmatch.fnmatch(e.rstrip("/"), str(pattern))]
    return ToolOutcome("ok", "\n".join(entries))


def _find(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    _rel_root, root = _path(args, ws, "path", default=".")
    name = str(_arg(args, "name", "pattern", default="*"))
    kind = _arg(args, "type")
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", ".workbench"))
        candidates = ([] if kind == "f" else dirnames) + ([] if kind == "d" else sorted(filenames))
        for entry in candidates:
            path = Path(dirpath) / entry
            rel = str(path.relative_to(ws.path))
            if fnmatch.fnmatch(entry, name) or (
                "/" in name and fnmatch.fnmatch(rel, name.replace("**/", "*"))
            ):
                found.append(rel)
    return ToolOutcome("ok", "\n".join(sorted(found)))


def _sed(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    expression = _arg(args, "expression", "script")
    if not isinstance(expression, str):
        raise ToolError("needs `expression`")
    _rel, path = _path(args, ws, "path", "file_path")
    argv = [
        "sed",
        "--sandbox",  # GNU sed: no `w` file or `e` command, so the expression cannot reach outside the workspace
        *(["-i"] if _arg(args, "inplace", "in_place", default=False) else []),
        "-e",
        expression,
        str(path),
    ]
    done = subprocess.run(argv, cwd=ws.path, capture_output=True, text=True, check=False, timeout=60)
    if done.returncode != 0:
        raise ToolError(done.stderr.strip() or f"sed exited {done.returncode}")
    return ToolOutcome("ok", done.stdout)


def _notebook_edit(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    rel, path = _path(args, ws, "notebook_path", "path")
    if not path.is_file():
        raise ToolError(f"notebook not found: {rel}")
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        cells: list[dict[str, Any]] = notebook["cells"]
    except (ValueError, KeyError, TypeError):
        raise ToolError(f"{rel} is not a Jupyter notebook") from None
    mode = str(_arg(args, "edit_mode", default="replace"))
    cell_id = _arg(args, "cell_id")
    index = next((i for i, c in enumerate(cells) if c.get("id") == cell_id), None)
    if index is None and isinstance(cell_id, int | str) and str(cell_id).isdigit():
        index = int(cell_id)
    source = str(_arg(args, "new_source", default=""))
    cell_type = str(_arg(args, "cell_type", default="code"))
    if mode == "insert":
        at = 0 if index is None else index + 1
        new_cell: dict[str, Any] = {"cell_type": cell_type, "id": f"cell-{len(cells) + 1}", "metadata": {},
                                    "source": source}  # fmt: skip
        if cell_type == "code":
            new_cell.update(outputs=[], execution_count=None)
        cells.insert(at, new_cell)
    elif index is None or not 0 <= index < len(cells):
        raise ToolError(f"no cell `{cell_id}` in {rel}")
    elif mode == "delete":
        del cells[index]
    elif mode == "replace":
        cells[index]["source"] = source
        if "cell_type" in args:
            cells[index]["cell_type"] = cell_type
    else:
        raise ToolError(f"edit_mode `{mode}` is not one of replace, insert, delete")
    path.write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")
    return ToolOutcome("ok", f"Notebook {rel}: {mode} done ({len(cells)} cells)")


def _bash_output(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    shell_id = str(_arg(args, "bash_id", "shell_id", default=""))
    text, running, code = shells.output(shell_id)
    pattern = _arg(args, "filter")
    if pattern:
        text = "\n".join(line for line in text.splitlines() if re.search(str(pattern), line))
    return ToolOutcome("ok", text, details={"running": running, "exitCode": code})


def _kill_shell(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    shell_id = str(_arg(args, "shell_id", "bash_id", default=""))
    shells.kill(shell_id)
    return ToolOutcome("ok", f"Killed {shell_id}")


def _todo_write(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    todos = _arg(args, "todos", default=[])
    if not isinstance(todos, list):
        raise ToolError("`todos` must be a list")
    return ToolOutcome("ok", canned if canned is not None else "Todos updated", details={"todos": todos})


def _canned(args: dict[str, Json], ws: Workspace, canned: Json, shells: ShellRegistry) -> ToolOutcome:
    """No network and no subagents: the scenario's result is the result."""
    return ToolOutcome("ok", canned)


_TOOLS: dict[str, Callable[[dict[str, Json], Workspace, Json, ShellRegistry], ToolOutcome]] = {
    "runCmd": _run_cmd, "readFile": _read_file, "writeFile": _write_file, "appendFile": _append_file,
    "editFile": _edit_file, "grep": _grep, "listDir": _list_dir, "find": _find, "sed": _sed,
    "notebookEdit": _notebook_edit, "bashOutput": _bash_output, "killShell": _kill_shell, "todoWrite": _todo_write,
    "exitPlanMode": _canned, "slashCommand": _canned, "task": _canned, "webFetch": _canned, "webSearch": _canned,
}  # fmt: skip


# --------------------------------------------------------------------------- checking


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()).strip("\n")


def compare_result(expected: Json, outcome: ToolOutcome, expected_status: str) -> str | None:
    """None if the real outcome is what the scenario says; else what differs."""
    want_status = expected_status.lower()
    if want_status in OK_STATUSES and outcome.status != "ok":
        return f"expected success, the tool failed: {_short(outcome.result)}"
    if want_status in ERROR_STATUSES and outcome.status != "error":
        return f"expected an error, the tool succeeded: {_short(outcome.result)}"
    if expected is None or outcome.tool not in OUTPUT_TOOLS:
        return None
    if isinstance(expected, Mapping):
        actual = {**outcome.details, "output": outcome.result, "result": outcome.result}
        for key, value in expected.items():
            if key in actual and _differs(value, actual[key]):
                return f"`{key}`: expected {_short(value)}, got {_short(actual[key])}"
        return None
    if _differs(expected, outcome.result):
        return f"expected result {_short(expected)}, got {_short(outcome.result)}"
    return None


def _differs(expected: Json, actual: Json) -> bool:
    if isinstance(expected, str) or isinstance(actual, str):
        return _norm(str(expected)) != _norm(str(actual))
    return bool(expected != actual)


def _short(value: Json, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    text = _norm(text).replace("\n", "⏎")
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def perform_edit(ws: Workspace, rel: str, lines_added: int, lines_removed: int) -> str | None:
    """`agentEdits`: remove the last ``lines_removed`` lines, append ``lines_added``, check with a real diff."""
    try:
        path = ws.resolve(rel, what="`agentEdits.path`")
    except WorkspaceError as exc:
        return str(exc)
    before = path.read_text(encoding="utf-8").splitlines(keepends=True) if path.is_file() else []
    if lines_removed > len(before):
        return f"cannot remove {lines_removed} lines: the file has {len(before)}"
    after = before[: len(before) - lines_removed]
    if after and not after[-1].endswith("\n"):
        after[-1] += "\n"
    after += [f"edited by agent (line {i + 1})\n" for i in range(lines_added)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(after), encoding="utf-8")
    # a missing newline at the end is completed above; that is not a changed line
    diff = list(difflib.unified_diff([line.rstrip("\n") + "\n" for line in before], after, n=0))
    added = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
    removed = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
    if (added, removed) != (lines_added, lines_removed):
        return f"the edit added {added} and removed {removed} lines, expected +{lines_added} -{lines_removed}"
    return None
