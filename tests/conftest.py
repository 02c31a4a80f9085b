"""Shared test helpers: where the repository and the shared corpus are, a private temp root, and a browser.

Every test session (and every pytest-xdist worker) gets its own ``TMPDIR``, so that
what one test leaves behind, or another program on the machine writes to the
system temp folder, never shows in a test that looks at temp files; and so that
no test depends on how long the machine's own ``TMPDIR`` is.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Timing never decides whether a test passes: Hypothesis's deadline (200 ms an example) and its "too slow"
# health check are turned off for every property test, which failed one now and then on a loaded machine
# (an example that took 277 ms once and 0.05 ms when Hypothesis tried it again). No example database
# either: it would be state shared by every run in the checkout (examples that fail are pinned with
# @example instead). A test's own settings keep these: `suppress_health_check` replaces the profile's
# list, so one that adds a check writes `[*settings.default.suppress_health_check, ...]`.
settings.register_profile(
    "workbench", deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("workbench")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
SCENARIOS = REPO / "scenarios"


@pytest.fixture(scope="session", autouse=True)
def private_tmpdir() -> Iterator[Path]:
    """A fresh TMPDIR for this session (or xdist worker), removed at the end."""
    root = Path(tempfile.mkdtemp(prefix="wbt-"))
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(root)
    tempfile.tempdir = None  # forget the cached folder: gettempdir() now answers `root`
    try:
        yield root
    finally:
        if saved is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved
        tempfile.tempdir = None
        shutil.rmtree(root, ignore_errors=True)


def require_corpus() -> Path:
    """The compatibility corpus lives beside the repo; skip when it is absent."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return CORPUS


@pytest.fixture
def corpus() -> Path:
    return require_corpus()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
NO_CHROMIUM = "Debian's chromium and chromium-driver are not installed (.ci/run installs them with CI=true)"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,1000")  # fmt: skip


def have_chromium() -> bool:
    return CHROMIUM.is_file() and CHROMEDRIVER.is_file() and shutil.which("chromium") is not None


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """Debian's Chromium (never a downloaded one) through Selenium, headless, with a profile of the test's
    own, logging every network event it sees (``get_log("performance")``) and the page's console
    (``get_log("browser")``); skipped when Chromium is not installed."""
    if not have_chromium():
        pytest.skip(NO_CHROMIUM)
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(params=["bubblewrap", "landlock"])
def each_level(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The test at each confinement level this machine has (Landlock alone: bubblewrap set aside)."""
    from workbench.workspace import sandbox

    if request.param == "landlock":
        monkeypatch.setenv(sandbox.DISABLE_VAR, "1")
    sandbox._bwrap.cache_clear()
    if sandbox.level() != request.param:
        pytest.skip(f"no {request.param} here")
    yield request.param
    sandbox._bwrap.cache_clear()
