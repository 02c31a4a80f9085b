"""Optional compiled build: ``WORKBENCH_MYPYC=1`` compiles the screen model's hot loop with mypyc.

Everything is plain Python by default (``pip install .`` needs no compiler).
With ``WORKBENCH_MYPYC=1 pip install --no-build-isolation -e .`` (mypy from
the ``test`` extra installed, and a C compiler) the module below is compiled
too: the same source, a faster screen model (figures in BENCHMARKS.md). The
rest of the metadata is in pyproject.toml.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import setup

COMPILED = ["workbench/terminal/fastpath.py"]


def ext_modules() -> list[Any]:
    if os.environ.get("WORKBENCH_MYPYC", "") in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit(
            "WORKBENCH_MYPYC=1 needs mypy in the build environment: pip install mypy, then "
            "WORKBENCH_MYPYC=1 pip install --no-build-isolation -e ."
        )
    return list(mypycify(COMPILED, opt_level="3"))


setup(ext_modules=ext_modules())
