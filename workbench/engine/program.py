"""Which program a scenario tests, and with what environment.

In order: the scenario's own ``command:`` (any terminal program; `run --command` puts its own there,
see the runner); else, when the
scenario has an ``ah:`` section, ``$WORKBENCH_AH`` (default ``ah``) with
``ah.cmd`` and ``ah.flags`` verbatim and ``ah.env``; else the built-in mock agent,
paced by the engine over its control channel.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from workbench.names import Env
from workbench.records import frozen
from workbench.scenario import model as m


@frozen
class Program:
    argv: tuple[str, ...]
    env: dict[str, str]
    mock_agent: bool
    agent_args: tuple[str, ...] | None = None
    """The built-in mock agent's arguments (``argv`` after `workbench mock-agent`): the engine may fork it
    from its own, already warm, process instead of starting ``argv`` (see workbench.engine.fork)."""


def base_env(width: int, height: int, home: Path | None = None) -> dict[str, str]:
    """A fixed, small environment so screens do not depend on the user's shell setup."""
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "SSL_CERT_FILE")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    env.update(
        {
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "COLUMNS": str(width),
            "LINES": str(height),
            "HOME": str(home.resolve()) if home else os.environ.get("HOME", "/tmp"),  # absolute: cwd differs
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "GIT_AUTHOR_NAME": "Workbench",
            "GIT_AUTHOR_EMAIL": "workbench@example.invalid",
            "GIT_COMMITTER_NAME": "Workbench",
            "GIT_COMMITTER_EMAIL": "workbench@example.invalid",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "PS1": "$ ",
        }
    )
    return env


def program_for(
    scenario: m.Scenario,
    scenario_path: Path,
    workspace: Path,
    *,
    speed: str,
    defines: tuple[str, ...],
    environ: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> Program:
    environ = os.environ if environ is None else environ
    profile = scenario.terminal
    env = base_env(profile.width, profile.height, home)
    if scenario.command:
        return Program(scenario.command, env, mock_agent=False)
    if scenario.ah is not None:
        ah = environ.get(Env.AH, "ah")
        argv = (ah, *([scenario.ah.cmd] if scenario.ah.cmd else []), *scenario.ah.flags)
        env.update(scenario.ah.env)
        return Program(argv, env, mock_agent=False)
    if home is not None:
        env[Env.WRITABLE] = env["HOME"]  # the agent's commands may write the run's private HOME
    args = [str(scenario_path.resolve()), "--workspace", str(workspace), "--speed", speed]
    for d in defines:
        args += ["--define", d]
    return Program(
        (sys.executable, "-m", "workbench", "mock-agent", *args), env, mock_agent=True, agent_args=tuple(args)
    )


@contextlib.contextmanager
def unsaved_text(
    text: str | None, env: Mapping[str, str]
) -> Iterator[tuple[dict[str, str], tuple[int, ...]]]:
    """The environment and descriptors that hand an unsaved scenario's text (``text``; None: the file is on
    disk) to a mock agent started as a new process: an anonymous in-memory file it inherits and reads
    (``$WORKBENCH_SCENARIO_FD``), so that no copy of the scenario is written anywhere. A forked agent needs
    none of this: it has the engine's compiled scenario (:func:`workbench.engine.fork.fork_session`)."""
    if text is None:
        yield dict(env), ()
        return
    fd = os.memfd_create("workbench-scenario", 0)  # inheritable: the child reads it
    try:
        with open(fd, "wb", closefd=False) as out:
            out.write(text.encode("utf-8"))
        yield {**env, Env.SCENARIO_FD: str(fd)}, (fd,)
    finally:
        os.close(fd)
