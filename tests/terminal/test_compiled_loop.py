"""The optional mypyc build of the parse loop: the same screens as its source, and never stale.

With ``WORKBENCH_MYPYC=1`` at install time the screen runs the compiled
:mod:`workbench.terminal.fastpath` (every other test then runs on it). The
property here plays random agent-TUI streams through the compiled loop and
through its source; without an installed build it compiles one of its own in
a temp folder (mypyc comes with the ``test`` extra's mypy), so the compiled
path is checked wherever a C compiler is, not only where someone opted in.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench
from tests.terminal.test_against_pyte import sizes, streams
from workbench.terminal import Screen, fastpath, loop, vt


def _state(stream: str, size: tuple[int, int], reads: int) -> object:
    screen = Screen(*size)
    step = max(1, len(stream) // reads)
    for start in range(0, len(stream), step):
        screen.feed(stream[start : start + step])
    shot = screen.snapshot()
    return shot, shot.cells, [list(row) for row in screen.vt.style_rows], screen.history_rows()


def _extension(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        name, path, loader=importlib.machinery.ExtensionFileLoader(name, str(path))
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(root: Path) -> Callable[..., Any]:
    """fastpath compiled by mypyc in ``root`` (a copy of the package's sources), loaded beside the source one."""
    try:
        import mypyc  # noqa: F401
    except ImportError:
        pytest.skip("mypyc is not installed (it comes with mypy: pip install -e '.[test]')")
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")[:1]
    if not compiler or shutil.which(compiler[0]) is None:
        pytest.skip(
            f"no C compiler ({compiler[0] if compiler else 'CC'}) to build the optional mypyc loop with"
        )
    package = Path(workbench.__file__).parent
    for source in package.rglob("*.py"):
        target = root / "workbench" / source.relative_to(package)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    (root / "workbench" / "py.typed").touch()
    # The project's mypy settings (pyte untyped), as `pip install` reads them: mypy's defaults type pyte's
    # Char against our Style whenever PYTHONPATH is set, and the build fails.
    shutil.copy2(Path(__file__).parents[2] / "pyproject.toml", root)
    done = subprocess.run([sys.executable, "-m", "mypyc", "workbench/terminal/fastpath.py"], cwd=root,
                          capture_output=True, text=True, check=False, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    built = root / "workbench" / "terminal"
    saved = sys.modules.get(fastpath.__name__)
    try:  # the shim imports its library by name: load that first; then put the source module back
        sys.modules[fastpath.__name__ + "__mypyc"] = _extension(
            fastpath.__name__ + "__mypyc", next(built.glob("fastpath__mypyc.*.so"))
        )
        compiled = _extension(fastpath.__name__, next(built.glob("fastpath.*.so")))
    finally:
        if saved is not None:
            sys.modules[fastpath.__name__] = saved
    assert not str(compiled.__file__).endswith(".py")
    return compiled.feed_tokens  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def compiled_loop(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Any]:
    """The compiled loop: the installed build when it is current, else one built here."""
    if loop.COMPILED:
        return loop.feed_tokens
    return _build(tmp_path_factory.mktemp("mypyc"))


@pytest.mark.slow
def test_the_compiled_loop_gives_the_source_s_screens(compiled_loop: Callable[..., Any]) -> None:
    source = loop.source_module().feed_tokens

    @settings(max_examples=300)
    @given(stream=streams, size=sizes, reads=st.integers(1, 7))
    def same_screens(stream: str, size: tuple[int, int], reads: int) -> None:
        with mock.patch.object(vt, "feed_tokens", compiled_loop):
            compiled = _state(stream, size, reads)
        with mock.patch.object(vt, "feed_tokens", source):
            assert _state(stream, size, reads) == compiled

    same_screens()


def test_a_build_older_than_its_source_is_set_aside(tmp_path: Path) -> None:
    built, source = tmp_path / "fastpath.so", tmp_path / "fastpath.py"
    built.write_bytes(b"")
    source.write_text("")
    os.utime(built, (1_000_000, 1_000_000))
    os.utime(source, (1_000_001, 1_000_001))  # the same install: files written a moment apart
    assert loop.is_current(built, source)
    os.utime(source, (1_000_600, 1_000_600))  # edited ten minutes after the build
    assert not loop.is_current(built, source)
    source.unlink()
    assert loop.is_current(built, source)  # nothing beside it to be stale against


def test_the_source_loop_is_the_module_s_own_code() -> None:
    module = loop.source_module()
    assert module.__file__ == str(loop.SOURCE) and module.__name__ == "workbench.terminal.fastpath"
    screen = Screen(10, 2)
    with mock.patch.object(vt, "feed_tokens", module.feed_tokens):
        screen.feed("\x1b[31mab\x1b[0mc\r\nd")
    assert screen.text_rows() == ["abc       ", "d         "] and screen.cursor_position() == (1, 1)
