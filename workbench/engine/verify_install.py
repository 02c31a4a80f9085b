"""`workbench verify-install PATH`: does the package work once it is published and installed?

A package that passes its tests in the source tree can still be broken for its
users: a file left out of the package, a command not declared, an import that
only works from the checkout. This command does what a user does, away from
the source tree:

1. builds the package as it would be published: `npm pack` for a Node package
   (`package.json`), an sdist and a wheel made from it with `python3 -m build`
   for a Python one (`pyproject.toml` or `setup.py`), or, where `build` is not
   installed, the wheel with `pip wheel` (every venv has pip);
2. installs the result into a fresh folder under the system's temp root: a
   global npm prefix, or a venv (with this interpreter's site-packages visible, so
   dependencies already installed are not fetched again; the package itself
   is always installed into the venv and wins over any other copy);
3. checks that each ``--expect-command`` is among the commands the package
   installed (`Expected command "x" not found. Available: a, b`);
4. with ``--smoke SCENARIO``, runs the scenario with the installed commands
   first on PATH, from the current folder (so its goldens are found as usual);
   a ``.py`` file is a playbook smoke test (it defines ``playbook``, and may
   define ``command`` or ``agent``), as in the pi harness's `verifySandboxInstall`.
   When the package under test is the workbench itself, its installed
   `workbench` runs the smoke scenario, so the whole installed product is used.

Everything is made in one temp folder, removed at the end unless ``--keep``.
Exit codes: 0 ok, 1 a check or the smoke scenario failed, 2 invalid input.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.usage import path_arg
from workbench.venvs import make_venv

STEP_TIMEOUT_S = 600.0


class InstallError(Exception):
    """A step of the build or install failed; the message says which and shows its output."""


class InvalidInput(Exception):
    """PATH is not a package, or a flag is wrong."""


@dataclass
class Installed:
    """What an install left behind."""

    kind: str  # node | python
    artifact: Path  # the tarball or wheel
    bin_dir: Path
    commands: list[str]  # the package's own commands, sorted
    python: Path | None = None  # the venv's interpreter (Python packages)
    log: list[str] = field(default_factory=list)


def package_kind(path: Path) -> str:
    if not path.is_dir():
        raise InvalidInput(f"{path}: no such folder (PATH is the folder of a Node or Python package)")
    if (path / "package.json").is_file():
        return "node"
    if (path / "pyproject.toml").is_file() or (path / "setup.py").is_file():
        return "python"
    raise InvalidInput(
        f"{path}: neither a Node package (package.json) nor a Python package (pyproject.toml or setup.py)"
    )


def _run(argv: Sequence[str], what: str, *, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run one build or install step; its output is the error message when it fails."""
    try:
        done = subprocess.run(list(argv), cwd=cwd, env=env, capture_output=True, text=True, check=False,
                              timeout=STEP_TIMEOUT_S, start_new_session=True)  # fmt: skip
    except FileNotFoundError:
        raise InstallError(f"{what}: `{argv[0]}` not found on PATH") from None
    except subprocess.TimeoutExpired:
        raise InstallError(f"{what}: `{' '.join(argv)}` did not finish in {STEP_TIMEOUT_S:g} s") from None
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip()
        tail = "\n".join(output.splitlines()[-30:])
        raise InstallError(f"{what}: `{' '.join(argv)}` exited {done.returncode}:\n{tail}")
    return done.stdout


def install_node(source: Path, root: Path) -> Installed:
    """`npm pack` the package, then `npm install --global` the tarball into a fresh prefix."""
    dist, prefix = root / "dist", root / "prefix"
    dist.mkdir()
    out = _run(["npm", "pack", "--json", "--pack-destination", str(dist), str(source.resolve())],
               "npm pack", cwd=root)  # fmt: skip
    try:
        tarball = dist / json.loads(out)[0]["filename"]
    except (ValueError, LookupError, TypeError):
        packed = sorted(dist.glob("*.tgz"))
        if not packed:
            raise InstallError(f"npm pack: no tarball in {dist}; it printed:\n{out[-2000:]}") from None
        tarball = packed[0]
    _run(["npm", "install", "--global", "--no-audit", "--no-fund", "--prefix", str(prefix), str(tarball)],
         "npm install", cwd=root)  # fmt: skip
    bin_dir = prefix / "bin"
    commands = sorted(p.name for p in bin_dir.iterdir()) if bin_dir.is_dir() else []
    return Installed("node", tarball, bin_dir, commands)


def python_builder() -> str:
    """`build` when it is installed (an sdist, then a wheel from it, as published); else `pip`, which every
    venv has: `pip wheel` builds the wheel through the same PEP 517 backend (the README's install has no
    `build`, and verify-install must work with what the package depends on)."""
    import importlib.util

    return "build" if importlib.util.find_spec("build") is not None else "pip"


def install_python(source: Path, root: Path, builder: str | None = None) -> Installed:
    """A wheel (`python3 -m build`: from an sdist; or `pip wheel`), installed into a fresh venv."""
    dist, venv = root / "dist", root / "venv"
    builder = builder or python_builder()
    if builder == "build":
        what = "python3 -m build"
        argv = [sys.executable, "-m", "build", "--outdir", str(dist), str(source.resolve())]
    else:
        what = "pip wheel"
        argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "--no-input",
                "--wheel-dir", str(dist), str(source.resolve())]  # fmt: skip
    _run(argv, what, cwd=root)
    wheels = sorted(dist.glob("*.whl"))
    if not wheels:
        raise InstallError(f"{what}: no wheel in {dist}")
    wheel = wheels[0]
    try:
        python = make_venv(venv)
    except subprocess.CalledProcessError as exc:
        output = (exc.stdout or b"").decode(errors="replace") + (exc.stderr or b"").decode(errors="replace")
        raise InstallError(
            f"python3 -m venv {venv}: exited {exc.returncode}:\n{output.strip()[-3000:]}"
        ) from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise InstallError(f"python3 -m venv {venv}: {exc}") from None
    # --force-reinstall: the venv sees this interpreter's site-packages, which may hold this very package
    # (an editable install of the checkout); the copy under test must be the wheel's.
    _run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
          "--force-reinstall", "--no-deps", str(wheel)], "pip install", cwd=root)  # fmt: skip
    _run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", str(wheel)],
         "pip install (dependencies)", cwd=root)  # fmt: skip
    return Installed("python", wheel, venv / "bin", wheel_commands(wheel), python)


def wheel_commands(wheel: Path) -> list[str]:
    """The console and GUI scripts a wheel declares (its `entry_points.txt`)."""
    import configparser

    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if n.endswith(".dist-info/entry_points.txt")]
        if not names:
            return []
        text = zf.read(names[0]).decode("utf-8")
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    commands: set[str] = set()
    for section in ("console_scripts", "gui_scripts"):
        if parser.has_section(section):
            commands.update(parser.options(section))
    return sorted(commands)


def check_commands(installed: Installed, expected: Sequence[str]) -> list[str]:
    """One message per expected command the package did not install (or installed but not as a file)."""
    available = ", ".join(installed.commands) or "(none)"
    problems = []
    for name in expected:
        if name not in installed.commands or not (installed.bin_dir / name).exists():
            problems.append(f'Expected command "{name}" not found. Available: {available}')
    return problems


def smoke_env(installed: Installed) -> dict[str, str]:
    """The environment of the smoke run: the install's commands first, nothing of the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = f"{installed.bin_dir}{os.pathsep}{env.get('PATH', '')}"
    if installed.python is not None:
        env["VIRTUAL_ENV"] = str(installed.python.parent.parent)
    return env


def smoke_argv(installed: Installed, scenario: Path, extra: Sequence[str]) -> list[str]:
    """The installed `workbench` when the package is the workbench; else this one. A playbook (``.py``)
    runs through :mod:`workbench.playbook.smoke`, a scenario through `workbench run`."""
    own = installed.python is not None and "workbench" in installed.commands
    python = str(installed.python) if own and installed.python is not None else sys.executable
    if scenario.suffix == ".py":
        return [python, "-m", "workbench.playbook.smoke", str(scenario.resolve())]
    runner = [str(installed.bin_dir / "workbench")] if own else [sys.executable, "-m", "workbench"]
    return [*runner, "run", str(scenario.resolve()), *extra]


# --------------------------------------------------------------------------- the command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=path_arg, metavar="PATH", help="the folder of a Node or Python package")
    parser.add_argument("--expect-command", action="append", default=[], metavar="NAME",
                        help="a command the installed package must provide (repeatable)")  # fmt: skip
    parser.add_argument("--smoke", type=path_arg, metavar="SCENARIO",
                        help="a scenario, or a playbook (.py defining `playbook`), run with the installed "
                             "commands first on PATH")  # fmt: skip
    parser.add_argument(
        "--ci", action="store_true", help="run the smoke scenario with --ci (goldens must exist)"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the build and install folder (its path is printed)"
    )


def run(args: argparse.Namespace) -> int:
    try:
        kind = package_kind(args.path)
        if args.smoke is not None and not args.smoke.exists():
            raise InvalidInput(f"--smoke {args.smoke}: no such scenario or playbook file")
    except InvalidInput as exc:
        print(f"workbench verify-install: error: {exc}", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="wb-install-"))
    if root.resolve().is_relative_to(args.path.resolve()):
        shutil.rmtree(root, ignore_errors=True)
        print(f"workbench verify-install: error: the temp folder {root} is inside {args.path}; "
              "set TMPDIR to a folder outside the package", file=sys.stderr)  # fmt: skip
        return 2
    try:
        return _verify(args, kind, root)
    finally:
        if args.keep:
            print(f"build and install kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


def _verify(args: argparse.Namespace, kind: str, root: Path) -> int:
    start = time.monotonic()
    try:
        installed = (install_node if kind == "node" else install_python)(args.path, root)
    except InstallError as exc:
        print(f"workbench verify-install: {exc}", file=sys.stderr)
        return 1
    print(f"built {installed.artifact.name}; installed into {installed.bin_dir.parent} "
          f"({time.monotonic() - start:.1f} s)")  # fmt: skip
    print(f"commands: {', '.join(installed.commands) or '(none)'}")
    problems = check_commands(installed, args.expect_command)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    if args.smoke is None:
        return 0
    argv = smoke_argv(installed, args.smoke, ["--ci"] if args.ci else [])
    print(f"smoke: {' '.join(argv)}", flush=True)
    done = subprocess.run(argv, env=smoke_env(installed), check=False)
    if done.returncode != 0:
        print(f"workbench verify-install: the smoke scenario {args.smoke} failed (exit {done.returncode})",
              file=sys.stderr)  # fmt: skip
        return 1 if done.returncode in (1, 3) else done.returncode
    return 0
