"""Themes are TOML files the user owns: the top-level ``themes/`` folder (shipped in the wheel as the
package data ``workbench/themes``), then the user's ``$XDG_CONFIG_HOME/workbench/themes/``, then
``$WORKBENCH_THEMES`` (a folder). A theme of the same name later in that order replaces the earlier one,
as Posting loads users' themes.

Each file holds the keys of :class:`textual.theme.Theme` (``name``, ``primary``,
``background``, ...) and an optional ``[variables]`` table of extra CSS
variables (``actor-agent``, ``actor-user``, ``actor-control``, ``diff-changed``)
that the app's stylesheets and the timeline use. A broken file is a diagnostic
with its ``file:line:col`` (bad TOML, an unknown key with the nearest valid
one, a colour that does not parse) and is skipped; the app never stops for it.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path

from rich.style import Style
from textual.color import Color, ColorParseError
from textual.theme import Theme
from textual.widgets.text_area import TextAreaTheme

from workbench.names import Env
from workbench.scenario.diagnostics import Pos, did_you_mean

THEME_KEYS = (
    "primary", "secondary", "accent", "foreground", "background", "surface", "panel",
    "success", "warning", "error", "boost", "dark", "luminosity_spread", "text_alpha",
)  # fmt: skip
COLOUR_KEYS = frozenset(THEME_KEYS) - {"dark", "luminosity_spread", "text_alpha"}
FILE_KEYS = ("name", *THEME_KEYS, "variables", "syntax")
DEFAULT_THEME = "workbench-dark"
DEFAULT_VARIABLES = {
    "actor-agent": "#4FA3E0",
    "actor-user": "#5FBF77",
    "actor-control": "#C678DD",
    "diff-changed": "#7A2E2E",
}
SHIPPED = Path(__file__).resolve().parent.parent / "themes"  # workbench/themes: the top-level themes/ folder


class ThemeError(ValueError):
    """A theme file that cannot be used; ``str()`` is ``file:line:col: message``."""

    def __init__(self, pos: Pos, message: str) -> None:
        super().__init__(f"{pos}: {message}")
        self.pos = pos


def user_theme_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "workbench" / "themes"


def theme_dirs() -> list[Path]:
    dirs = [SHIPPED, user_theme_dir()]
    extra = os.environ.get(Env.THEMES)
    if extra:
        dirs.append(Path(extra))
    return dirs


def _key_pos(text: str, path: Path, key: str, table: str | None = None) -> Pos:
    """Where ``key`` is written (in ``[table]`` when given): its line and column, else the file's start."""
    in_table = table is None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = table is not None and stripped.strip("[] ") == table
            if table is None:
                break  # the top-level keys come before the first table
            continue
        match = re.match(rf'\s*"?{re.escape(key)}"?\s*=', line)
        if in_table and match:
            return Pos(str(path), number, len(line) - len(line.lstrip()) + 1)
    return Pos(str(path), 1, 1)


def load_theme(path: Path) -> Theme:
    """Raises :class:`ThemeError` (``file:line:col: ...``) or OSError."""
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        pos = Pos(str(path), int(where.group(1)), int(where.group(2))) if where else Pos(str(path))
        raise ThemeError(pos, re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))) from None
    for key in data:
        if key not in FILE_KEYS:
            raise ThemeError(
                _key_pos(text, path, key),
                f"unknown key `{key}`; {did_you_mean(key, FILE_KEYS, every='docs/app.md lists them')}",
            )
    if "primary" not in data:
        raise ThemeError(Pos(str(path)), 'a theme needs at least `primary` (a colour such as "#1A5F99")')
    variables = data.get("variables") or {}
    if not isinstance(variables, dict):
        raise ThemeError(_key_pos(text, path, "variables"), "`variables` is a table of CSS variable = colour")
    for key, table in [
        *((k, None) for k in COLOUR_KEYS if k in data),
        *((k, "variables") for k in variables),
    ]:
        value = data[key] if table is None else variables[key]
        try:
            Color.parse(value if isinstance(value, str) else repr(value))
        except ColorParseError:
            raise ThemeError(_key_pos(text, path, key, table),
                             f"`{key}` = {value!r} is not a colour (e.g. \"#1A5F99\" or \"rgb(26, 95, 153)\")") from None  # fmt: skip
    merged = {**DEFAULT_VARIABLES, **{str(k): str(v) for k, v in variables.items()}}
    kwargs = {key: data[key] for key in THEME_KEYS if key in data}
    try:
        return Theme(name=str(data.get("name", path.stem)), variables=merged, **kwargs)
    except (TypeError, ValueError) as exc:
        raise ThemeError(Pos(str(path)), str(exc)) from None


def load_themes(dirs: list[Path] | None = None) -> tuple[list[Theme], list[str]]:
    """Every theme found (a later folder's theme replaces an earlier one of the same name), and one
    ``file:line:col: message`` per file that could not be loaded."""
    themes: dict[str, Theme] = {}
    warnings: list[str] = []
    for folder in theme_dirs() if dirs is None else dirs:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = load_theme(path)
            except ThemeError as exc:
                warnings.append(f"theme skipped: {exc}")
                continue
            except OSError as exc:
                warnings.append(f"theme skipped: {path}: {exc.strerror or exc}")
                continue
            themes[theme.name] = theme
    return list(themes.values()), warnings


# --------------------------------------------------------------------------- contrast (WCAG 2.x)

AA = 4.5
AAA = 7.0
SYNTAX_ROLES = {  # syntax capture -> the theme colour it is drawn in (a theme file may override: [syntax])
    "string": "syntax-string", "string.documentation": "syntax-string", "inline_code": "syntax-string",
    "info_string": "syntax-string", "comment": "syntax-comment", "heading.marker": "syntax-comment",
    "list.marker": "syntax-comment", "number": "syntax-number", "float": "syntax-number",
    "boolean": "syntax-number", "constant.builtin": "syntax-number", "json.null": "syntax-number",
    "yaml.field": "syntax-key", "json.label": "syntax-key", "toml.type": "syntax-key", "css.property": "syntax-key",
    "heading": "syntax-key", "link.label": "syntax-key", "link.uri": "syntax-key", "keyword": "syntax-keyword",
    "conditional": "syntax-keyword", "repeat": "syntax-keyword", "exception": "syntax-keyword",
    "include": "syntax-keyword", "keyword.function": "syntax-keyword", "keyword.return": "syntax-keyword",
    "keyword.operator": "syntax-keyword", "toml.datetime": "syntax-keyword", "tag": "syntax-keyword",
    "type": "syntax-keyword", "type.class": "syntax-keyword", "type.builtin": "syntax-keyword",
    "class": "syntax-keyword", "function": "syntax-keyword", "function.call": "syntax-keyword",
    "method": "syntax-keyword", "method.call": "syntax-keyword", "constructor": "syntax-keyword",
    "operator": "foreground", "punctuation.bracket": "foreground", "punctuation.delimiter": "foreground",
    "punctuation.special": "foreground",
}  # fmt: skip
# Every text colour the app draws, on every background it draws it on: (text variable, background variable).
TEXT_PAIRS: tuple[tuple[str, str], ...] = (
    *((fg, bg) for fg in ("foreground", "text", "text-muted") for bg in ("background", "surface", "panel")),
    *((fg, bg) for fg in ("primary", "secondary", "accent", "success", "warning", "error", "text-primary",
                          "text-error", "text-success", "text-warning", "text-accent", "actor-agent", "actor-user",
                          "actor-control") for bg in ("background", "surface")),
    ("footer-key-foreground", "footer-background"), ("footer-description-foreground", "footer-background"),
    ("block-cursor-foreground", "block-cursor-background"),
    ("block-cursor-blurred-foreground", "block-cursor-blurred-background"),
    ("foreground", "diff-changed"), ("foreground", "step-line"), ("foreground", "panel-lighten-1"),
    *(("syntax-" + role, "surface") for role in ("string", "comment", "number", "key", "keyword")),
)  # fmt: skip


def _luminance(colour: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = colour.rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast_ratio(fg: Color, bg: Color) -> float:
    """The WCAG contrast ratio of two opaque colours (1 .. 21)."""
    a, b = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def theme_colours(theme: Theme, only: Iterable[str] | None = None) -> dict[str, Color]:
    """Every CSS variable of ``theme`` (or those named in ``only``) as an opaque colour.

    Translucent colours are blended over the theme's background.
    """
    raw = {**theme.to_color_system().generate(), **syntax_defaults(theme), **theme.variables}
    base = Color.parse(raw["background"])
    resolved: dict[str, Color] = {}

    def resolve(name: str, under: Color = base) -> Color:
        value = raw[name].strip()
        if value.startswith("auto"):
            alpha = float(value.split()[1].rstrip("%")) / 100 if " " in value else 1.0
            return under.blend(under.get_contrast_text(1.0), alpha)
        colour = Color.parse(value)
        return under.blend(colour.with_alpha(1.0), colour.a) if colour.a < 1 else colour

    for name in raw if only is None else [n for n in only if n in raw]:
        try:
            resolved[name] = resolve(name)
        except Exception:  # not a colour (a size, a number): not ours to check
            continue
    if only is not None:
        return resolved
    for fg, bg in TEXT_PAIRS:  # "auto" and translucent text depend on what they are drawn on
        if fg in raw and bg in resolved:
            resolved[f"{fg}@{bg}"] = resolve(fg, resolved[bg])
    return resolved


def required_ratio(theme: Theme) -> float:
    return AAA if "high-contrast" in theme.name else AA


def contrast_report(theme: Theme) -> list[tuple[str, str, float]]:
    """(text, background, ratio) for every pair of :data:`TEXT_PAIRS` in ``theme``."""
    colours = theme_colours(theme)
    out = []
    for fg, bg in TEXT_PAIRS:
        text = colours.get(f"{fg}@{bg}") or colours.get(fg)
        if text is None or bg not in colours:
            raise KeyError(f"theme {theme.name} has no colour for {fg if text is None else bg}")
        out.append((fg, bg, contrast_ratio(text, colours[bg])))
    return out


def syntax_defaults(theme: Theme) -> dict[str, str]:
    """Syntax colours from the theme's own signal colours, unless its file sets ``syntax-*`` variables."""
    return {
        "syntax-string": theme.success or "#5FBF77", "syntax-comment": theme.secondary or "#7F8FA6",
        "syntax-number": theme.accent or "#E0A84F", "syntax-key": theme.primary,
        "syntax-keyword": theme.warning or theme.primary, "step-line": theme.panel or "#262B33",
    }  # fmt: skip


def syntax_theme(theme: Theme) -> TextAreaTheme:
    """The editor's highlighting in ``theme``'s colours (the `css` theme would keep the dark theme's)."""
    colours = theme_colours(theme, only=set(SYNTAX_ROLES.values()))
    styles: dict[str, Style] = {}
    for capture, role in SYNTAX_ROLES.items():
        colour = colours.get(role)
        if colour is not None:
            styles[capture] = Style(
                color=colour.hex6, bold=role == "syntax-key" and capture.endswith((".field", ".label"))
            )
    styles.update(
        {"bold": Style(bold=True), "italic": Style(italic=True), "strikethrough": Style(strike=True)}
    )
    return TextAreaTheme(name=theme.name, syntax_styles=styles)


# --------------------------------------------------------------------------- the user's choice


def config_path() -> Path:
    """``$XDG_CONFIG_HOME/workbench/config.toml`` (``~/.config`` when unset)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "workbench" / "config.toml"


def saved_theme(path: Path | None = None) -> str | None:
    """The theme the user chose last time, if the config says one."""
    try:
        data = tomllib.loads((path or config_path()).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    value = data.get("theme")
    return value if isinstance(value, str) else None


def save_theme(name: str, path: Path | None = None) -> None:
    """Remember ``name`` in the config (other keys kept); a config we cannot write is not an error."""
    from workbench.atomic import write_atomic

    target = path or config_path()
    try:
        data = tomllib.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}
    except (OSError, tomllib.TOMLDecodeError):
        return  # never overwrite a file the user wrote and we cannot read
    data["theme"] = name
    lines = [f"{key} = {_toml_value(value)}" for key, value in data.items() if not isinstance(value, dict)]
    tables = [(key, value) for key, value in data.items() if isinstance(value, dict)]
    for key, table in tables:
        lines += ["", f"[{key}]", *(f"{k} = {_toml_value(v)}" for k, v in table.items())]
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, "\n".join(lines) + "\n")
    except OSError:
        return


def _toml_value(value: object) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value))
