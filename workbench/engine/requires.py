"""Programs a scenario needs that this machine does not have: such a run is skipped, not failed.

Agent Harbor's corpus drives its own ``ah`` CLI (``userCommand`` task files) and
runs project tools such as ``cargo`` through ``runCmd``. Where those programs
are not installed the scenario cannot pass or fail on its merits, so it is
reported as skipped with the reason ("needs `ah`, which is not on PATH").

A ``userCommand``'s ``env`` values may take values from the caller's
environment as a shell would (``${AH_BIN}``, ``${AH_BIN:-default}``, ``$HOME``;
:func:`expand_env`): a variable such a value needs that is unset, with no
default, also skips the run ("needs `$AH_BIN` set"), since the command cannot
run as its author meant.

What counts: the ``ah`` program an ``ah:`` scenario starts (``$WORKBENCH_AH``, else
``ah`` on PATH), the program of every ``userCommand`` (``program``, else the
first word of ``cmd``), and the first word of every ``runCmd`` the scenario
expects to succeed (a command scripted to fail may well be testing a missing
program). Shell builtins and keywords never count. A program found on PATH that
is a proxy for another binary (a link to a different name, such as rustup's
``cargo``) counts as missing when ``PROGRAM --version`` answers in this
environment but fails in the isolated one a run gives its programs (its own
empty HOME): the toolchain behind it is not set up there.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping

from workbench.scenario import model as m

_SHELL_WORDS = frozenset(
    ["cd", "echo", "export", "set", "unset", "true", "false", "test", "[", "[[", "exit", "return", "source", ".", "eval", "exec", "read", "printf", "pwd", "type", "command", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "function", "time", "ulimit", "umask", "wait", "kill", "trap", "shift", "alias", "unalias", "local", "declare", "typeset", "let"]
)  # fmt: skip
_RUN_CMD = frozenset({"runCmd", "run_command", "run_cmd", "Bash", "bash", "shell"})


def first_program(command: str) -> str | None:
    """The program a shell command line starts with (after ``VAR=value`` assignments), if plain."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    for word in words:
        if "=" in word.split("/")[0] and not word.startswith("="):
            continue  # an environment assignment
        if word in _SHELL_WORDS or any(c in word for c in "$`(){};|&<>*?"):
            return None
        return word
    return None


def missing_programs(
    scenario: m.Scenario, environ: Mapping[str, str] | None = None, *, tools_run: bool = True
) -> list[tuple[str, int]]:
    """(program, line) for each needed program not found on PATH, first mention of each.
    ``tools_run=False``: the mode only describes tool calls (simulation), so their programs are not needed."""
    environ = os.environ if environ is None else environ
    path = environ.get("PATH", "")
    found: dict[str, int] = {}
    if tools_run and scenario.ah is not None and not scenario.command:  # the program under test is `ah`
        # (simulation starts its own client, the scenario's command or the built-in viewer, never `ah`)
        ah = environ.get("WORKBENCH_AH", "ah")
        if not (os.access(ah, os.X_OK) if "/" in ah else usable(ah, path)):
            found[ah] = scenario.ah.pos.line if scenario.ah.pos else 0
    for event in scenario.timeline:
        program: str | None = None
        if isinstance(event, m.UserCommand):
            program = event.program or (first_program(event.cmd) if event.cmd else None)
        elif (
            tools_run
            and isinstance(event, m.ToolUse)
            and event.tool_name in _RUN_CMD
            and event.status != "error"
        ):
            cmd = event.args.get("cmd", event.args.get("command"))
            program = first_program(cmd) if isinstance(cmd, str) else None
        if program is None or program in found or "/" in program:
            continue
        if not usable(program, path):
            found[program] = event.pos.line
    return list(found.items())


_VARIABLE = re.compile(
    r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?::?-(?P<default>[^}]*))?\}|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))"
)


def expand_env(value: str, environ: Mapping[str, str]) -> str:
    """``value`` with ``$NAME``, ``${NAME}`` and ``${NAME:-default}`` taken from ``environ``, as a shell would."""

    def one(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("bare")
        found = environ.get(name, "")
        default = match.group("default")
        return found if found or default is None else default

    return _VARIABLE.sub(one, value)


def unset_variables(scenario: m.Scenario, environ: Mapping[str, str] | None = None) -> list[tuple[str, int]]:
    """(NAME, line) for each variable a ``userCommand`` env value takes, unset here and with no default."""
    environ = os.environ if environ is None else environ
    found: dict[str, int] = {}
    for event in scenario.timeline:
        if not isinstance(event, m.UserCommand):
            continue
        for value in event.env.values():
            for match in _VARIABLE.finditer(value):
                name = match.group("braced") or match.group("bare")
                if not environ.get(name) and not match.group("default") and name not in found:
                    found[name] = event.pos.line
    return list(found.items())


def usable(program: str, path: str) -> bool:
    where = shutil.which(program, path=path)
    if where is None:
        return False
    if os.path.basename(os.path.realpath(where)) == program:
        return True
    # A link to another binary may be a toolchain proxy (rustup's cargo) that works for the user
    # but not in a run's isolated environment; a program that fails `--version` everywhere (dash
    # as `sh`) tells nothing, so only "works here, fails there" counts as missing.
    return _answers(where, dict(os.environ)) is not True or _answers(where, None) is not False


def _answers(where: str, env: dict[str, str] | None) -> bool | None:
    with tempfile.TemporaryDirectory(prefix="wb-probe-") as home:
        isolated = {"PATH": os.environ.get("PATH", ""), "HOME": home, "LANG": "C.UTF-8"}
        try:
            done = subprocess.run([where, "--version"], capture_output=True, timeout=10, check=False,
                                  stdin=subprocess.DEVNULL, env=env if env is not None else isolated,
                                  cwd=home)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            return None
    return done.returncode == 0


def skip_reason(
    scenario: m.Scenario, environ: Mapping[str, str] | None = None, *, tools_run: bool = True
) -> str | None:
    """Why the run is skipped ("needs `ah` (line 12), ..."), or None when everything is here."""
    reasons = []
    missing = missing_programs(scenario, environ, tools_run=tools_run)
    if missing:
        names = ", ".join(f"`{name}` (line {line})" for name, line in missing)
        reasons.append(f"needs {names}, not installed here (not on PATH, or its toolchain is not set up)")
    unset = unset_variables(scenario, environ)
    if unset:
        names = ", ".join(f"`${name}` (line {line})" for name, line in unset)
        reasons.append(f"needs {names} set in the environment (a userCommand's env takes its value)")
    return "; ".join(reasons) or None
