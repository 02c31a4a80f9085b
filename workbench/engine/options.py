"""The options of a run (`workbench run` flags, the app's choices), shared by the runner and its drivers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.names import DEFAULT_GOLDENS_DIR, DEFAULT_OUT_DIR


@dataclass
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
    checkpoint_cmd: str | None = None
    mode: str = "mock-agent"  # a name of workbench.engine.drivers.DRIVERS
    agent: str | None = None  # real-agent mode: a preset of workbench.llm.presets
    agent_ui: str = "tui"  # real-agent mode: `tui` or `print`
    drift: str | None = None  # real-agent mode: `warn` or `fail` on requests that differ from the recording's
    masks: tuple[str, ...] = ()  # --mask: regexes blanked out of every screenshot (and the scenario's)
    # a driver factory from the caller (a playbook run) instead of `mode`'s
    driver: Callable[[Any], Any] | None = None

    @property
    def speed_text(self) -> str:
        return "max" if self.speed is None else repr(self.speed)
