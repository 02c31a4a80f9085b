"""The layering of docs/design.md §7, read from the source: no headless module imports the app or Textual.

Only the CLI (the top layer) may import the app, and it does so inside the commands that open it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import REPO


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_nothing_outside_the_app_imports_the_app_or_textual() -> None:
    package = REPO / "workbench"
    offenders = []
    for path in package.rglob("*.py"):
        if path.relative_to(package).parts[0] in ("app", "cli"):
            continue
        for name in _imports(path):
            if (
                name.split(".")[0] == "textual"
                or name == "workbench.app"
                or name.startswith("workbench.app.")
            ):
                offenders.append(f"{path.relative_to(REPO)} imports {name}")
    assert offenders == []
    assert len(list(package.rglob("*.py"))) > 40  # the scan saw the package


def test_timing_decides_no_property_test() -> None:
    """Hypothesis's deadline and its "too slow" check fail a test on a loaded machine; the suite's profile
    turns both off, and no test turns them back on: neither a deadline nor a list of suppressed health
    checks that replaces the profile's (and so leaves "too slow" out)."""
    from hypothesis import HealthCheck, settings

    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
    assert settings.default.database is None
    lines = [
        (f"{path.relative_to(REPO)}:{n}", line)
        for path in (REPO / "tests").rglob("*.py")
        if path != REPO / "tests" / "conftest.py"  # the profile itself
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "re.search" not in line
    ]
    assert [where for where, line in lines if re.search(r"\bdeadline=", line)] == []
    assert [
        where
        for where, line in lines
        if re.search(r"\bsuppress_health_check=\[", line)
        and not re.search(r"settings\.default\.suppress_health_check|HealthCheck\.too_slow\]\)$", line)
    ] == []
