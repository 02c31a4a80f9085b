"""What every agent preset is made of, and how its program is found.

A preset installs nothing. It finds the agent's program (in the npm prefixes
listed in ``$WORKBENCH_AGENTS``, separated by ``:``, then on ``PATH``), writes a
fresh HOME under the run folder with the config files that skip onboarding,
trust and login prompts, and sets the base URL and API key for the server.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from workbench.llm.profiles import ToolProfile
from workbench.names import Env

MODEL = "mock-model"
UIS = ("tui", "print")


class PresetError(Exception):
    """The agent is not installed, or the preset name is unknown."""


@dataclass(frozen=True)
class Endpoint:
    """Where the agent finds the model, and what it runs on."""

    base_url: str
    api_key: str
    workspace: Path
    home: Path
    prompt: str = ""

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"


@dataclass(frozen=True)
class Launch:
    argv: tuple[str, ...]
    env: dict[str, str]
    ready: str | None = None  # text the TUI shows once it takes input


Builder = Callable[[str, Endpoint, str], Launch]


@dataclass(frozen=True)
class AcpAdapter:
    """How an agent is played over ACP (``--mode acp --agent NAME``): the adapter program, its npm package and
    verified version. It runs the agent's core, so its HOME is written as the agent's preset writes it."""

    name: str  # the name ``--agent`` takes in acp mode
    program: str
    package: str
    version: str
    profile: ToolProfile | None  # the mock LLM server's tool profile (None: detect it from the request)
    # (file under HOME, lines put first in it): what its flags would say
    settings: tuple[tuple[str, str], ...] = ()
    args: tuple[str, ...] = ()  # after the program: what puts it in ACP mode

    def install_hint(self) -> str:
        return f"npm install -g {self.package}@{self.version}"


@dataclass(frozen=True)
class Agent:
    """One known agent, all of it in its own module: its preset (program, npm
    package, the version it was verified with, how to launch it), the API style
    styles it speaks (registered wires, :data:`workbench.llm.wire.WIRES`),
    the tool profile the mock LLM server speaks to it, how it states its working
    directory, its side requests that only a phrase identifies, the masks its
    TUI needs in goldens, and its ACP adapter if it has one."""

    name: str
    program: str  # the executable's name
    package: str  # the npm package
    version: str  # the version this preset was verified with
    wires: tuple[
        str, ...
    ]  # the API styles it speaks, the one `build` configures first: registered wires' `style`
    profile: ToolProfile  # how the mock LLM server speaks its tools
    build: Builder
    summary: str = ""  # one line for help texts and docs
    cwd_patterns: tuple[str, ...] = ()  # regexes whose group 1 is the working directory its prompt states
    side_markers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # kind -> phrases
    masks: tuple[str, ...] = ()  # volatile text on its TUI, for a scenario's `masks`
    acp: AcpAdapter | None = None  # its ACP adapter, if it has one

    def install_hint(self) -> str:
        return f"npm install -g {self.package}@{self.version}"

    def launch(self, endpoint: Endpoint, ui: str, environ: Mapping[str, str] | None = None) -> Launch:
        """argv and environment for this agent; writes its HOME. Raises PresetError when not installed."""
        if ui not in UIS:
            raise PresetError(f"unknown agent UI `{ui}`; known: {', '.join(UIS)}")
        exe = find_program(self.program, environ)
        if exe is None:
            raise PresetError(
                f"{self.name}: `{self.program}` is not installed: `{self.install_hint()}` "
                "(or list npm prefixes in WORKBENCH_AGENTS)"
            )
        endpoint.home.mkdir(parents=True, exist_ok=True)
        return self.build(exe, endpoint, ui)


def find_program(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """``name`` in the npm prefixes of ``$WORKBENCH_AGENTS``, else on ``PATH``."""
    environ = os.environ if environ is None else environ
    for prefix in filter(None, environ.get(Env.AGENTS, "").split(":")):
        for candidate in (Path(prefix) / "node_modules" / ".bin" / name, Path(prefix) / "bin" / name):
            if candidate.exists():
                return str(candidate)
    return shutil.which(name, path=environ.get("PATH"))


def stderr_to_log(argv: tuple[str, ...], env: dict[str, str], e: Endpoint) -> tuple[str, ...]:
    """Run ``argv`` with its stderr appended to ``agent-stderr.log`` beside HOME: for print
    modes whose stderr carries timings and machine-dependent notices the screen must not show."""
    env[Env.AGENT_LOG] = str(e.home.parent / "agent-stderr.log")
    return ("sh", "-c", 'exec "$0" "$@" 2>>"$WORKBENCH_AGENT_LOG"', *argv)
