"""The options of a run (`workbench run` flags, the app's choices), shared by the runner and its drivers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from workbench.names import DEFAULT_GOLDENS_DIR, DEFAULT_OUT_DIR
from workbench.records import record


@record
class RunOptions:
    speed: float | None = None  # None: as fast as possible
    ci: bool = False
    update_goldens: bool = False
    goldens_dir: Path = DEFAULT_GOLDENS_DIR
    out_dir: Path = DEFAULT_OUT_DIR
    defines: tuple[str, ...] = ()
    timeout_s: float = 120.0
    keep: bool = False
    settle_ms: int = 150
    mode: str = "mock-agent"  # a name of workbench.engine.drivers.DRIVERS
    mode_options: Mapping[str, str] = field(default_factory=dict)
    """The mode's own options (``--agent``, ``--checkpoint-cmd``...), as its registry line declares them."""
    masks: tuple[str, ...] = ()  # --mask: regexes blanked out of every screenshot (and the scenario's)
    command: tuple[str, ...] = ()  # --command: the program under test instead of every scenario's `command`
    # a driver factory from the caller (a playbook run) instead of `mode`'s
    driver: Callable[[Any], Any] | None = None
    # screen responders from the caller (a playbook's mock_ui, whose answers are Python) instead of `onScreen`
    on_screen: Any = None

    def option(self, name: str, default: str | None = None) -> str | None:
        """The value of the mode's option ``name`` (as declared: ``agent``, ``agent-ui``), else ``default``."""
        return self.mode_options.get(name, default)

    @property
    def speed_text(self) -> str:
        return "max" if self.speed is None else repr(self.speed)


def command_argv(line: str) -> tuple[str, ...]:
    """The argv of a ``--command`` line (the program under test instead of each scenario's `command`), split
    as a POSIX shell splits words; a ValueError says what is wrong with it."""
    import shlex

    try:
        argv = tuple(shlex.split(line))
    except ValueError as exc:  # an unclosed quote
        raise ValueError(f"{exc} (quote as in a shell: --command 'my-agent --url {{base_url}}')") from None
    if not argv:
        raise ValueError("no program: give the program and its arguments")
    return argv
