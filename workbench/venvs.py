"""A fresh venv that can import what the running interpreter can, without fetching anything.

`verify-install` and the packaging tests install a built wheel into a fresh venv, away from the
checkout, and want the dependencies already installed here rather than a download. `python3 -m venv
--system-site-packages` only shows the *base* interpreter's packages: run from inside a venv (which is
how users and CI run us), the dependencies are in the venv's site-packages and the fresh venv cannot
import them. So the fresh venv gets a `.pth` file naming every site-packages folder the running
interpreter reads. Those folders come after the venv's own in ``sys.path``, so a package installed into
the fresh venv (the wheel under test) wins over any copy here, and the `.pth` files inside them (an
editable install of the checkout among them) are not run: only the folders are added.
"""

from __future__ import annotations

import site
import subprocess
import sys
import sysconfig
from pathlib import Path

PTH_NAME = "_workbench_parent_site_packages.pth"


def parent_site_packages() -> list[str]:
    """The site-packages folders of the running interpreter, its venv's first, without duplicates."""
    folders = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    seen: dict[str, None] = {}
    for folder in folders:
        if Path(folder).is_dir():
            seen.setdefault(folder)
    return list(seen)


def make_venv(root: Path, *, timeout: float = 300) -> Path:
    """Create a venv at ``root`` that also sees this interpreter's packages; its ``python``."""
    subprocess.run(
        [sys.executable, "-m", "venv", str(root)], check=True, capture_output=True, timeout=timeout
    )
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True, timeout=timeout,
    ).stdout.strip()  # fmt: skip
    (Path(purelib) / PTH_NAME).write_text("\n".join(parent_site_packages()) + "\n", encoding="utf-8")
    return python
