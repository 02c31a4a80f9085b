"""Running an SCP-style scenario folder: ``mock_user.py``'s script against ``mock_agent.py``.

``mock_user.py`` defines ``async def mock_user(ctx)`` (see :mod:`.scp`).
``mock_agent.py`` is an ACP agent program; for the in-process runner it also
defines ``make_agent()`` returning the agent object. ``scenario.json`` says
which runners to use (``direct`` by default); the same script runs under each.

A failing ``assert`` (or any exception) in the script fails the scenario at its
line in ``mock_user.py``; an ACP error (the agent closed the connection,
answered with an error, never answered in time) fails it with the protocol's
words and, for a timeout, the last messages. Each runner's messages go to
``acp-<runner>.jsonl`` in the run folder.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import reprlib
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from workbench.scenario.scp_folder import AGENT_FILE, USER_FILE

from .scp import AcpError, AcpTimeout, DirectRunner, InProcessRunner, Script


@dataclass
class FolderFailure:
    runner: str
    file: str
    line: int
    kind: str  # assert | process | timing
    message: str


def _module(path: Path, tag: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_wb_scp_{tag}_{abs(hash(path))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _where(exc: BaseException, path: Path) -> int:
    """The line in ``path`` where ``exc`` went through last (0 when it did not)."""
    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path.resolve():
            line = frame.lineno or 0
    return line


async def run_folder(
    folder: Path, run_dir: Path, workspace: Path, settings: dict[str, Any]
) -> list[FolderFailure]:
    """Run the folder's script under each runner it names; the failures (none: it passed)."""
    folder = folder.resolve()  # the agent runs in the workspace: a relative path would not reach it
    user_path, agent_path = folder / USER_FILE, folder / AGENT_FILE
    failures: list[FolderFailure] = []
    try:
        script: Script = _module(user_path, "user").mock_user
    except Exception as exc:  # the user's file: any error is reported at its line
        return [FolderFailure("-", str(user_path), _where(exc, user_path), "process", _describe(exc))]
    for runner_name in settings.get("runners", ["direct"]):
        wire = run_dir / f"acp-{runner_name}.jsonl"
        timeout = float(settings.get("timeout", 60))
        runner: DirectRunner | InProcessRunner
        try:
            if runner_name == "in-process":
                make = getattr(_module(agent_path, "agent"), "make_agent", None)
                if make is None:
                    failures.append(FolderFailure(runner_name, str(agent_path), 0, "process",
                                                  "the in-process runner needs `make_agent()` in mock_agent.py"))  # fmt: skip
                    continue
                runner = InProcessRunner(make(), workspace, timeout=timeout, wire=wire)
            else:
                runner = DirectRunner(
                    [sys.executable, str(agent_path)], workspace, timeout=timeout, wire=wire
                )
            await runner.run(script)
        except AssertionError as exc:
            failures.append(
                FolderFailure(runner_name, str(user_path), _where(exc, user_path), "assert", _describe(exc))
            )
        except AcpError as exc:
            kind = "timing" if isinstance(exc, AcpTimeout) else "process"
            line = (exc.line if isinstance(exc, AcpTimeout) else 0) or _where(exc, user_path)
            crashed = 0 if line else _crash_line(str(exc), agent_path)  # the agent's traceback, quoted
            failures.append(FolderFailure(runner_name, str(agent_path if crashed else user_path), line or crashed,
                                          kind, str(exc)))  # fmt: skip
        except Exception as exc:  # the user's script: any error fails the scenario
            failures.append(
                FolderFailure(runner_name, str(user_path), _where(exc, user_path), "process", _describe(exc))
            )
    return failures


def _crash_line(message: str, agent_path: Path) -> int:
    """The line of ``mock_agent.py`` its quoted traceback went through last (0 when it names none): where an
    agent that died failed, rather than the user script's first line."""
    lines = re.findall(rf'File "{re.escape(str(agent_path))}", line (\d+)', message)
    return int(lines[-1]) if lines else 0


def _describe(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, AssertionError):
        frames = traceback.extract_tb(exc.__traceback__)
        source = (frames[-1].line or "").strip() if frames else ""
        if source and not text:
            text = _values(source, exc)
        return f"{source}: {text}" if text and source else (source or text or "assertion failed")
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _values(source: str, exc: AssertionError) -> str:
    """``name = value`` for each name, attribute or constant subscript a failed ``assert`` line reads, as
    the script's frame holds them (what pytest's rewritten asserts show); nothing that calls or awaits is
    evaluated again."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    try:
        statement = ast.parse(source).body[0]
    except (SyntaxError, IndexError):  # an assert over several lines: its first line alone does not parse
        return ""
    if not isinstance(statement, ast.Assert):
        return ""
    scope = {**tb.tb_frame.f_globals, **tb.tb_frame.f_locals}
    shown: dict[str, str] = {}
    inner: set[int] = set()  # the parts of what is shown (`turn` of `turn.text`)
    for node in ast.walk(statement.test):  # outer nodes first
        if (
            id(node) in inner
            or not isinstance(node, ast.Name | ast.Attribute | ast.Subscript)
            or not _plain(node)
        ):
            continue
        inner.update(id(part) for part in ast.walk(node))
        text = ast.unparse(node)
        if text in shown or (isinstance(node, ast.Name) and node.id not in tb.tb_frame.f_locals):
            continue  # a module, a builtin or a global function says nothing about the failure
        try:
            shown[text] = reprlib.repr(eval(compile(ast.Expression(node), "<assert>", "eval"), {}, scope))
        except Exception:  # a property that raises: leave it out
            continue
    return ", ".join(f"{name} = {value}" for name, value in shown.items())


def _plain(node: ast.AST) -> bool:
    """Whether evaluating ``node`` again only reads (names, attributes, constant subscripts)."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _plain(node.value)
    if isinstance(node, ast.Subscript):
        return _plain(node.value) and isinstance(node.slice, ast.Constant)
    return False
