"""Themes from TOML files: ``themes_data/*.toml`` inside the package, plus ``$WORKBENCH_THEMES`` (a folder).

The built-in themes ship inside the package (package data), so a wheel has them too.

Each file holds the keys of :class:`textual.theme.Theme` (``name``, ``primary``,
``background``, ...) and an optional ``[variables]`` table of extra CSS
variables (``actor-agent``, ``actor-user``, ``actor-control``, ``diff-changed``)
that the app's stylesheets and the timeline use. A broken file is skipped with a
warning instead of stopping the app.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from textual.theme import Theme

THEME_KEYS = (
    "primary", "secondary", "accent", "foreground", "background", "surface", "panel",
    "success", "warning", "error", "boost", "dark", "luminosity_spread", "text_alpha",
)  # fmt: skip
DEFAULT_THEME = "workbench-dark"
DEFAULT_VARIABLES = {
    "actor-agent": "#4FA3E0",
    "actor-user": "#5FBF77",
    "actor-control": "#C678DD",
    "diff-changed": "#7A2E2E",
}


def theme_dirs() -> list[Path]:
    dirs = [Path(__file__).resolve().parent / "themes_data"]
    extra = os.environ.get("WORKBENCH_THEMES")
    if extra:
        dirs.append(Path(extra))
    return dirs


def load_theme(path: Path) -> Theme:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if "primary" not in data:
        raise ValueError(f"{path}: a theme needs at least `primary`")
    variables = {**DEFAULT_VARIABLES, **{str(k): str(v) for k, v in (data.get("variables") or {}).items()}}
    kwargs = {key: data[key] for key in THEME_KEYS if key in data}
    return Theme(name=str(data.get("name", path.stem)), variables=variables, **kwargs)


def load_themes(dirs: list[Path] | None = None) -> tuple[list[Theme], list[str]]:
    """Every theme found, and a warning per file that could not be loaded."""
    themes: list[Theme] = []
    warnings: list[str] = []
    for folder in theme_dirs() if dirs is None else dirs:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                themes.append(load_theme(path))
            except (OSError, ValueError, TypeError) as exc:
                warnings.append(f"theme {path.name} skipped: {exc}")
    return themes, warnings
