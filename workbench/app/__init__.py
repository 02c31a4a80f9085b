"""The Textual app: `workbench edit`, `workbench [PATH]` and `workbench show RUN`.

The app is one more observer of :class:`workbench.engine.runner.ScenarioRun`
plus a controller of its virtual clock; it never runs a scenario any other way.
Nothing outside this package imports it: the CLI loads it by name with
``importlib`` so the headless layers never depend on Textual.

Layout (by domain): ``app.py`` (the App, global bindings, themes, keymap),
``commands.py`` (command palette), ``model.py`` (headless helpers: atomic save,
validation of unsaved text, last verdicts, screenshot pairs), ``screens/`` (main,
help, confirm), ``widgets/`` (browser, editor, timeline, and the run panes: terminal, inspector, diff,
failures as tabs of ``run_panes.py``). Styles
are ``.tcss`` files beside the code; themes are TOML files in the top-level ``themes/`` (package data).
"""

from __future__ import annotations

import gc
from pathlib import Path

from workbench.names import DEFAULT_GOLDENS_DIR, DEFAULT_OUT_DIR


def main(
    path: Path | None = None,
    *,
    goldens_dir: Path = DEFAULT_GOLDENS_DIR,
    out_dir: Path = DEFAULT_OUT_DIR,
    run_dir: Path | None = None,
    theme: str | None = None,
    mode: str = "mock-agent",
    agent: str | None = None,
) -> int:
    """Open the app on a scenario file or folder, or read-only on a recorded run folder."""
    # Start-up makes ~100k objects that live as long as the app (modules, CSS, widgets); scanning them
    # as they are made costs ~45 ms of collections before the first frame. The app freezes them and
    # turns the collector back on once that frame is drawn (WorkbenchApp.on_mount).
    gc.disable()
    from .app import WorkbenchApp

    app = WorkbenchApp(path, goldens_dir=goldens_dir, out_dir=out_dir, run_dir=run_dir, theme_name=theme,
                       mode=mode, agent=agent)  # fmt: skip
    app.run()
    return int(app.return_code or 0)
