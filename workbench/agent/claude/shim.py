"""``workbench mock-agent --install-shim DIR [RULES]``: an executable ``DIR/claude``.

Put ``DIR`` first on ``PATH`` and a program that runs ``claude -p ...`` gets
answers from Claudeless rules. The launcher is a few lines of Python run with
``-S -E`` (no site initialisation, no ``PYTHON*`` variables): it puts this
package's folder, the standard library and the site folders on ``sys.path``
itself (no zip archive to probe) and
imports only the light print-mode modules, so a scripted answer takes tens of
milliseconds rather than the hundreds a full interpreter start with the
scenario loader would.

The rules are ``--scenario FILE``, else ``$CLAUDELESS_SCENARIO``, else the
``RULES`` given when the shim was installed.
"""

from __future__ import annotations

import os
import site
import sys
from pathlib import Path

import workbench

_LAUNCHER = '''\
#!{python} -SE
"""claude: answers Claude Code's print mode from Claudeless rules (installed by `workbench mock-agent --install-shim`)."""
import sys
sys.path[:] = [{root!r}, *(p for p in sys.path[1:] if p.endswith(("python{ver}", "lib-dynload"))), *{sites!r}]
from workbench.agent.claude.main import shim_main
raise SystemExit(shim_main(sys.argv[1:], default_scenario={rules!r}))
'''


def install(folder: Path, rules: Path | None) -> Path:
    """Write ``folder/claude`` (made executable) and return its path."""
    if rules is not None and not rules.is_file():
        raise FileNotFoundError(f"{rules}: no such rules file")
    root = str(Path(workbench.__file__).resolve().parent.parent)
    sites = [p for p in [*site.getsitepackages(), site.getusersitepackages()] if os.path.isdir(p)]
    ver = f"{sys.version_info.major}.{sys.version_info.minor}"
    text = _LAUNCHER.format(python=sys.executable, root=root, sites=sites, ver=ver,
                            rules=str(rules.resolve()) if rules is not None else None)  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "claude"
    tmp = folder / f".claude.{os.getpid()}"
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, target)
    return target
