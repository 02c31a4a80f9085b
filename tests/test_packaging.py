"""The package as a user installs it: a built wheel (and sdist) in a fresh venv, outside the checkout.

The venv sees the running interpreter's site-packages for the dependencies (no network; from inside a
venv too, where `--system-site-packages` would not show them: `workbench.venvs`), but
the workbench itself comes from the wheel: the test checks where it was imported
from, so a data file that only exists in the source tree (themes, stylesheets)
fails here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO
from workbench.venvs import make_venv

pytestmark = pytest.mark.slow

THEMES = ("workbench-dark", "workbench-light", "workbench-high-contrast")


def _source_copy(dest: Path) -> Path:
    """The checkout's tracked files (symlinks kept) in ``dest``: a build writes ``build/`` and ``*.egg-info``
    into its source tree, so two builds of one tree (``pytest -n 2``) would remove each other's files, and
    a test must not write into the user's checkout."""
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=False)
    if listed.returncode != 0:  # not a git checkout (an unpacked sdist): everything but build leftovers
        shutil.copytree(REPO, dest, symlinks=True, ignore=shutil.ignore_patterns(
            ".*", "build", "dist", "*.egg-info", "__pycache__", "target", "node_modules"))  # fmt: skip
        return dest
    for name in filter(None, listed.stdout.decode().split("\0")):
        source, target = REPO / name, dest / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree, not yet committed
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    return dest


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    source = _source_copy(tmp_path_factory.mktemp("source") / "scenario-workbench")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", str(out), str(source)],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv") / "v"
    python = make_venv(root)
    wheel = next(dist.glob("*.whl"))
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return root


def _in_venv(venv: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=300)


def test_the_wheel_and_sdist_hold_every_data_file(dist: Path) -> None:
    # pure Python by default: the mypyc build of the screen's loop is opt-in (setup.py), so no compiler is needed
    assert next(dist.glob("*.whl")).name.endswith("-py3-none-any.whl")
    wheel = zipfile.ZipFile(next(dist.glob("*.whl"))).namelist()
    for theme in ("dark", "light", "high-contrast"):
        assert f"workbench/themes/{theme}.toml" in wheel  # the top-level themes/ folder
    assert any(name.endswith(".tcss") for name in wheel)
    with tarfile.open(next(dist.glob("*.tar.gz"))) as sdist:
        names = sdist.getnames()
    assert any(name.endswith("workbench/themes/dark.toml") for name in names)


def test_the_installed_wheel_runs_an_example_and_prints_the_schema(venv: Path, tmp_path: Path) -> None:
    where = _in_venv(
        venv, [str(venv / "bin" / "python"), "-c", "import workbench; print(workbench.__file__)"], tmp_path
    )
    assert where.stdout.strip().startswith(str(venv)), where.stdout + where.stderr
    (tmp_path / "scenarios").mkdir()
    example = (REPO / "scenarios" / "hello-agent.yaml").read_text(encoding="utf-8")
    (tmp_path / "scenarios" / "hello-agent.yaml").write_text(example, encoding="utf-8")
    done = _in_venv(venv, ["workbench", "run", "scenarios/hello-agent.yaml"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "screenshots").is_dir()
    schema = _in_venv(venv, ["workbench", "schema"], tmp_path)
    assert schema.returncode == 0 and '"timeline"' in schema.stdout


def test_the_installed_app_starts_headless_with_each_theme(venv: Path, tmp_path: Path) -> None:
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from workbench.app.app import WorkbenchApp\n"
        "async def main(theme):\n"
        "    app = WorkbenchApp(Path('s.yaml'), theme_name=theme)\n"
        "    async with app.run_test(size=(120, 40)) as pilot:\n"
        "        await pilot.pause()\n"
        "        assert app.theme == theme, (app.theme, theme)\n"
        "for theme in sys.argv[1:]:\n"
        "    asyncio.run(main(theme))\n"
        "print('ok')\n"
    )
    (tmp_path / "s.yaml").write_text("name: s\ntimeline:\n  - assistant: [[10, hi]]\n", encoding="utf-8")
    done = _in_venv(venv, [str(venv / "bin" / "python"), "-c", script, *THEMES], tmp_path)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), (
        done.stdout[-2000:] + done.stderr[-3000:]
    )
