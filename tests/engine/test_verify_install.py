"""`workbench verify-install`: a tiny npm package made here, and this package itself, are
built as published, installed away from the source tree, checked and smoke-run.

The npm tests need `npm` (skipped without it; it is installed wherever the real
agents are). The test on this package builds a wheel and makes a venv: slow, but
it is the check that the published workbench works, so it stays in the run.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, write
from tests.engine.test_run_e2e import workbench

needs_npm = pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")

SMOKE = """\
name: hello-cli-smoke
command: [hello-wb, --name, smoke]
timeline:
  - advanceMs: 100
  - assert:
      text: {contains: ["hello, smoke from hello-wb"]}
expect:
  exitCode: 0
"""


def npm_package(root: Path, *, bin_field: object = None) -> Path:
    """A Node CLI whose `files` ships `bin/` only: `lib/` exists in the source tree but not once installed."""
    pkg = root / "hello-wb"
    manifest = {"name": "hello-wb", "version": "1.0.0", "files": ["bin/"],
                "bin": bin_field if bin_field is not None else {"hello-wb": "bin/hello.js"}}  # fmt: skip
    write(pkg, "package.json", json.dumps(manifest))
    write(pkg, "bin/hello.js", "#!/usr/bin/env node\n"
          "const i = process.argv.indexOf('--name');\n"
          "console.log(`hello, ${i > 0 ? process.argv[i + 1] : 'world'} from hello-wb`);\n")  # fmt: skip
    write(pkg, "lib/greet.js", "module.exports = () => 'hi';\n")
    (pkg / "bin/hello.js").chmod(0o755)
    return pkg


@needs_npm
@pytest.mark.slow
def test_an_npm_package_is_packed_installed_checked_and_smoke_run(tmp_path: Path) -> None:
    pkg = npm_package(tmp_path)
    smoke = write(tmp_path, "smoke.yaml", SMOKE)
    done = workbench("verify-install", str(pkg), "--expect-command", "hello-wb", "--smoke", str(smoke),
                     cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "built hello-wb-1.0.0.tgz" in done.stdout
    assert "commands: hello-wb" in done.stdout
    assert "1 passed, 0 failed" in done.stdout, "the smoke scenario ran the installed command"
    assert not list((tmp_path / ".tmp").glob("wb-install-*")), "the install folder is removed"
    assert not list(pkg.glob("*.tgz")), "nothing is written into the package's folder"


@needs_npm
@pytest.mark.slow
def test_a_missing_command_names_the_ones_available(tmp_path: Path) -> None:
    pkg = npm_package(tmp_path, bin_field={"hello-wb": "bin/hello.js", "hi-wb": "bin/hello.js"})
    done = workbench("verify-install", str(pkg), "--expect-command", "hello-wb", "--expect-command", "greet",
                     cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1
    assert 'Expected command "greet" not found. Available: hello-wb, hi-wb' in done.stderr
    assert 'Expected command "hello-wb"' not in done.stderr


@needs_npm
@pytest.mark.slow
def test_a_smoke_scenario_that_needs_what_was_not_published_fails(tmp_path: Path) -> None:
    """The source tree has lib/greet.js; the published package does not: the smoke run must see that."""
    pkg = npm_package(tmp_path)
    smoke = write(tmp_path, "smoke.yaml", """\
name: needs-lib
command: [bash, --norc, --noprofile]
timeline:
  - userInputs: [[0, "ls \\"$(dirname \\"$(readlink -f \\"$(command -v hello-wb)\\")\\")/../lib\\" && echo LIB-$((40+2))<Enter>"]]
  - advanceMs: 200
  - assert:
      text: {contains: ["LIB-42"]}
""")  # fmt: skip
    done = workbench("verify-install", str(pkg), "--smoke", str(smoke), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"the smoke scenario {smoke} failed (exit 1)" in done.stderr
    assert "the screen does not contain 'LIB-42'" in done.stdout


@needs_npm
def test_a_package_whose_pack_fails_shows_npm_s_own_words(tmp_path: Path) -> None:
    pkg = write(tmp_path, "broken/package.json", "{ not json")
    done = workbench("verify-install", str(pkg.parent), cwd=tmp_path)
    assert done.returncode == 1
    assert "workbench verify-install: npm pack: `npm pack --json" in done.stderr
    assert "JSON" in done.stderr, "npm's own complaint is shown"


def test_what_is_not_a_package_is_invalid_input(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = workbench("verify-install", "empty", cwd=tmp_path)
    assert done.returncode == 2
    assert ("workbench verify-install: error: empty: neither a Node package (package.json) "
            "nor a Python package (pyproject.toml or setup.py)") in done.stderr  # fmt: skip
    done = workbench("verify-install", "nowhere", cwd=tmp_path)
    assert done.returncode == 2 and "error: nowhere: no such folder" in done.stderr
    write(tmp_path, "p/setup.py", "")
    done = workbench("verify-install", "p", "--smoke", "missing.yaml", cwd=tmp_path)
    assert (
        done.returncode == 2
        and "error: --smoke missing.yaml: no such scenario or playbook file" in done.stderr
    )


@pytest.mark.slow
def test_this_package_installs_as_published_and_its_installed_workbench_runs_a_scenario(
    tmp_path: Path,
) -> None:
    """The wheel of this repository in a fresh venv: `workbench` exists, the smoke scenario passes with the
    installed workbench (its mock agent included), and nothing is imported from the checkout."""
    probe = write(tmp_path, "probe.yaml", """\
name: where-from
command: [bash, --norc, --noprofile]
timeline:
  - userInputs: [[0, "python -c 'import workbench; print(\\"FROM\\", workbench.__file__)'<Enter>"]]
  - waitFor: {regex: 'FROM /', timeoutMs: 60000}
  - assert:
      text: {contains: ["/venv/lib/"]}
""")  # fmt: skip
    done = workbench("verify-install", str(REPO), "--expect-command", "workbench", "--smoke", str(probe),
                     cwd=tmp_path, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "built scenario_workbench-" in done.stdout and "commands: workbench" in done.stdout
    assert "/bin/workbench run" in done.stdout, "the installed workbench ran the smoke scenario"


def python_package(root: Path) -> Path:
    """A tiny Python CLI, `hello-py`, built with setuptools."""
    pkg = root / "hello-py"
    write(pkg, "pyproject.toml", """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "hello-py"
version = "1.0"

[project.scripts]
hello-py = "hello_py:main"
""")  # fmt: skip
    write(pkg, "hello_py/__init__.py", "def main() -> None:\n    print('hello from hello-py')\n")
    return pkg


@pytest.mark.slow
def test_without_build_the_wheel_is_made_with_pip(tmp_path: Path) -> None:
    """Right after the README's install `build` is absent; pip, which every venv has, builds the wheel."""
    from workbench.engine.verify_install import install_python

    (tmp_path / "root").mkdir()
    installed = install_python(python_package(tmp_path), tmp_path / "root", builder="pip")
    assert installed.artifact.name == "hello_py-1.0-py3-none-any.whl"
    assert installed.commands == ["hello-py"] and (installed.bin_dir / "hello-py").is_file()


SMOKE_PLAYBOOK = """\
from workbench.playbook import Playbook, ToolResultRecord, call, say, when


def greets(result: ToolResultRecord) -> None:
    assert result.text.strip() == "hello from hello-py", result.text


playbook = Playbook(
    when("Run the installed tool", [call("runCmd", {"cmd": "hello-py"}).then(greets), say("It works.")]),
    name="hello-py-smoke",
)
"""


@pytest.mark.slow
def test_a_playbook_is_a_smoke_test_of_the_installed_commands(tmp_path: Path) -> None:
    pkg = python_package(tmp_path)
    write(tmp_path, "smoke.py", SMOKE_PLAYBOOK)
    done = workbench("verify-install", str(pkg), "--expect-command", "hello-py", "--smoke", "smoke.py",
                     cwd=tmp_path, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "playbook hello-py-smoke: passed (2 of 2 actions)" in done.stdout
    write(tmp_path, "broken.py", SMOKE_PLAYBOOK.replace("hello from hello-py", "hello from elsewhere"))
    done = workbench("verify-install", str(pkg), "--smoke", "broken.py", cwd=tmp_path, timeout=600)
    assert done.returncode == 1
    assert "playbook hello-py-smoke: failed" in done.stdout
    assert "AssertionError: hello from hello-py" in done.stdout, "the .then check's traceback"
    write(tmp_path, "empty.py", "x = 1\n")
    done = workbench("verify-install", str(pkg), "--smoke", "empty.py", cwd=tmp_path, timeout=600)
    assert done.returncode == 2 and "empty.py: error: defines no `playbook = Playbook(...)`" in done.stderr
