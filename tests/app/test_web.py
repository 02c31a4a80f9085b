"""`workbench --web` and `workbench show --web RUN` in a real headless browser (Debian's Chromium, Selenium).

The page runs the app through textual-serve and xterm.js, which draws on a canvas,
so the test reads what the app sent to the page: the websocket frames Chromium
received (its performance log), with escape sequences removed. A key press in the
page must reach the app and step its timeline. Skipped when Chromium is absent.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NO_CHROMIUM, SCENARIOS, have_chromium

CSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")

pytestmark = pytest.mark.skipif(not have_chromium(), reason=NO_CHROMIUM)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """A `workbench ... --web` server of our own, stopped (its whole process group) at the end."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.port = _free_port()
        env = {**os.environ, "XDG_CONFIG_HOME": str(cwd / "config")}
        self.process = subprocess.Popen([sys.executable, "-m", "workbench", *argv, "--web", "--port", str(self.port)],
                                        cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise AssertionError("the web server did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)


class Page:
    """What the app sent to the page so far, as plain text."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.text = ""

    def read(self) -> str:
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] != "Network.webSocketFrameReceived":
                continue
            response = message["params"]["response"]
            data = response["payloadData"]
            if response.get("opcode") == 2:  # binary: the app's terminal output
                data = base64.b64decode(data).decode("utf-8", errors="replace")
            self.text += CSI.sub("", data)
        return self.text

    def wait_for(self, needle: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while needle not in self.read():
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} never reached the page; it got: {self.text[-2000:]!r}")
            time.sleep(0.2)
        return self.text

    def press(self, key: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains

        terminal = self.driver.find_element("id", "terminal")
        ActionChains(self.driver).move_to_element(terminal).click().perform()
        time.sleep(0.3)
        ActionChains(self.driver).send_keys(key).perform()


def _open(driver: Any, url: str) -> Page:
    driver.get(url)
    deadline = time.monotonic() + 30
    while "-first-byte" not in (driver.find_element("tag name", "body").get_attribute("class") or ""):
        assert time.monotonic() < deadline, "the page never showed the app"
        time.sleep(0.2)
    return Page(driver)


def test_the_app_in_a_browser_shows_the_scenario_and_steps(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    shutil.copytree(SCENARIOS, tmp_path / "scenarios")
    server = Served(["scenarios/hello-agent.yaml", "--goldens", "goldens", "--out", "runs"], tmp_path)
    try:
        page = _open(browser, server.url)
        for needle in ("workbench: scenarios/hello-agent.yaml", "name: hello-agent", "11 steps"):
            page.wait_for(needle)
        page.press(Keys.F8)  # a key in the page steps the app's timeline
        page.wait_for("step 1/11")
        page.wait_for("paused at")
    finally:
        server.stop()


def test_show_a_ci_trace_in_a_browser(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    from workbench.engine.runner import RunOptions, run_scenario

    shutil.copytree(SCENARIOS, tmp_path / "scenarios")
    options = RunOptions(goldens_dir=tmp_path / "goldens", out_dir=tmp_path / "runs")
    result = asyncio.run(run_scenario(tmp_path / "scenarios" / "hello-agent.yaml", options))
    server = Served(["show", str(result.run_dir)], tmp_path)
    try:
        page = _open(browser, server.url)
        for needle in ("workbench show: hello-agent", "read-only", "step 11/11"):
            page.wait_for(needle)
        page.press(Keys.F7)  # back one recorded step
        page.wait_for("step 10/11")
    finally:
        server.stop()
