"""Load any scenario file into the canonical model.

The file's suffix picks the parser (YAML, JSON, TOML); its keys pick the format:
TOML is always Claudeless, and a JSON or YAML document with `responses`,
`default_response` and friends is Claudeless too; everything else is the Agent
Harbor family. `rules` blocks are resolved before the format loader runs, with
symbols from ``--define`` and ``AH_SCENARIO_DEFINES``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import field
from pathlib import Path

from workbench.names import SCENARIO_SUFFIXES
from workbench.records import record

from .diagnostics import Diagnostic, Pos, Reporter, ScenarioError
from .formats import looks_like_claudeless
from .model import Scenario
from .scp_folder import is_scp_folder, load_scp_folder
from .source import TOML_SUFFIXES, parse_document, read_text

SKIPPED_DIRS = {".git", "node_modules", "__pycache__", ".venv", "target", "screenshots"}


@record
class LoadResult:
    """A scenario, or the errors that stopped it, plus warnings either way."""

    path: Path
    scenario: Scenario | None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.scenario is not None


def display_name(path: Path) -> str:
    """Paths in diagnostics are relative to the working directory when possible. Bytes of a file name that
    are not UTF-8 (Python's ``\udcff`` stand-ins, which no UTF-8 file or terminal takes) read as ``\xff``:
    a trace, a report or a message that names the file must not fail on its name."""
    try:
        return readable(str(path.resolve().relative_to(Path.cwd().resolve())))
    except (ValueError, RuntimeError, OSError):  # elsewhere; a symlink loop (RuntimeError in Python 3.11)
        return readable(str(path))


def readable(name: str) -> str:
    """A file name (or part of one) from the file system with its bytes that are not UTF-8 as ``\xff``."""
    if name.isprintable() or name.isascii():
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def load_scenario(
    path: Path,
    *,
    defines: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    reporter: Reporter | None = None,
    text: str | None = None,
) -> Scenario:
    """Load one file; raise ScenarioError with diagnostics if it is invalid.

    ``text`` lets an editor validate unsaved contents of ``path``. Errors found
    along the way (one per bad timeline item) are raised together at the end.
    """
    env = os.environ if env is None else env
    reporter = reporter or Reporter()
    name = display_name(path)
    if is_scp_folder(path):
        return load_scp_folder(path, name)
    if text is None:
        text = read_text(path, name)
    doc = parse_document(text, name, path.suffix)
    base_dir = path.parent
    if path.suffix.lower() in TOML_SUFFIXES or looks_like_claudeless(doc):
        from . import claudeless  # each dialect's loader only for a file written in it

        scenario = claudeless.load_claudeless(doc, name, base_dir, reporter, env)
    else:
        from . import agent_harbor, rules

        if doc is None:
            raise ScenarioError.at(Pos(name), "the file is empty; a scenario needs at least `timeline`")
        doc = rules.resolve(doc, rules.symbols_from(defines, env))
        scenario = agent_harbor.load_agent_harbor(doc, name, base_dir, reporter)
    from .cannot_pass import check_cannot_pass

    check_cannot_pass(scenario, reporter)  # also beside items that failed to load: every finding at once
    reporter.raise_if_errors()
    result: Scenario = scenario
    return result


def try_load(
    path: Path,
    *,
    defines: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    strict: bool = False,
) -> LoadResult:
    """Load without raising: the shape the CLI, the runner and the app all want.

    ``strict`` (``run --ci``) makes unknown keys inside known structures errors.
    """
    reporter = Reporter(strict=strict)
    try:
        scenario = load_scenario(path, defines=defines, env=env, reporter=reporter)
    except ScenarioError as exc:
        return LoadResult(path, None, everything_found(reporter, exc))
    return LoadResult(path, scenario, list(reporter.diagnostics))


def everything_found(reporter: Reporter, exc: ScenarioError) -> list[Diagnostic]:
    """The warnings and deferred errors of ``reporter`` and the errors of ``exc``, each once."""
    found = list(reporter.diagnostics)
    found += [d for d in exc.diagnostics if d not in found]
    return found


def discover(paths: Iterable[Path]) -> Iterator[Path]:
    """Expand folders into the scenario files below them, in a stable order."""
    for path in paths:
        if is_scp_folder(path):
            yield path
        elif path.is_dir():
            scp: list[Path] = []
            for child in sorted(path.rglob("*")):
                rel = child.relative_to(path).parts
                if _skipped(rel):
                    continue
                if any(folder in child.parents for folder in scp):
                    continue  # the files of an SCP folder are that one scenario
                if is_scp_folder(child):
                    scp.append(child)
                    yield child
                elif child.is_file() and is_scenario_name(child):
                    yield child
        else:
            yield path


def is_discovered(path: Path, root: Path) -> bool:
    """Whether discovery of the folder ``root`` yields ``path``, a file or an SCP folder (the pytest plugin
    asks this of what pytest walks past, so both find the same scenarios); the files of an SCP folder
    are that one scenario, never scenarios of their own."""
    if not path.is_relative_to(root) or _skipped(path.relative_to(root).parts):
        return False
    if any(is_scp_folder(folder) for folder in path.parents if folder.is_relative_to(root)):
        return False
    return is_scp_folder(path) or is_scenario_name(path)


def _skipped(rel: tuple[str, ...]) -> bool:
    return any(part in SKIPPED_DIRS or part.startswith((".", "_")) for part in rel)


def is_scenario_name(path: Path) -> bool:
    """A scenario suffix and not a sidecar: screenshot style sidecars live beside goldens, and a recorded
    scenario's request sidecar (``workbench record``, for ``--drift``) beside the scenario.

    Data a scenario refers to (`$file` inputs, patches, terminal profiles) goes in
    files or folders whose name starts with `_`, which discovery skips.
    """
    sidecar = path.name.endswith((".style.json", ".requests.json"))
    return path.suffix.lower() in SCENARIO_SUFFIXES and not sidecar
