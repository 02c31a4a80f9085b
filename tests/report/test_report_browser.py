"""The HTML report in Debian's Chromium (Selenium), opened from file:// after being moved elsewhere.

What a person does with a failed CI run: open the summary, click the failed
scenario, step through it with the keys, read the screen, the diff of the file a
step wrote, the failure messages and the screenshot diff, play the recording.
Each page is saved as a PNG in the test's folder (``pages/``). The browser's
performance log shows every request the page made: all of them must be files of
the moved report folder, none to any other host.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.chat_agent import CHAT_AGENT
from tests.cli_process import workbench
from tests.conftest import SCENARIOS, write
from tests.report.conftest import data_of

pytestmark = pytest.mark.slow
WAIT_S = 30  # only an upper bound for the page to react: no assertion depends on how fast it does


def _wait(driver: Any, condition: Any, what: str) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT_S).until(lambda d: condition(d), message=what)


def _css(driver: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(driver.find_elements(By.CSS_SELECTOR, selector))


def _text(driver: Any, selector: str) -> str:
    found = _css(driver, selector)
    return str(found[0].text) if found else ""


def _save(driver: Any, folder: Path, name: str) -> Path:
    """A PNG of the whole page (the window grows to the page's height first)."""
    folder.mkdir(exist_ok=True)
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.set_window_size(1400, max(900, min(height + 120, 6000)))
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    driver.set_window_size(1400, 1000)
    return path


def _requests(driver: Any) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def _key(driver: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def _moved(report: Path, tmp_path: Path) -> Path:
    """The report folder, moved as a CI artifact is: somewhere else, alone."""
    target = tmp_path / "downloaded artifact" / "html-report"
    shutil.copytree(report, target)
    return target


def test_a_failed_scenario_is_understood_from_the_report_alone(
    failed_run: Path, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.keys import Keys

    folder = _moved(failed_run / "report", tmp_path)
    pages = tmp_path / "pages"
    browser.get("about:blank")
    _requests(browser)  # what Chromium loaded for itself (its new-tab page) is not the report's
    browser.get((folder / "index.html").as_uri())
    _wait(browser, lambda d: len(_css(d, "#scenarios tr.row")) == 2, "the summary's two rows")
    rows = _css(browser, "#scenarios tr.row")
    assert [r.get_attribute("class").split()[-1] for r in rows] == ["failed", "passed"], "failures first"
    assert (
        "broken-agent" in rows[0].text
        and "screenshot (line 31): screenshot `done` does not match" in rows[0].text
    )
    assert _text(browser, "#scenarios tr.row td.msg .more") == "and 1 more failure on the scenario's page"
    _save(browser, pages, "summary")

    rows[0].click()
    _wait(browser, lambda d: _text(d, "#step-title").startswith("Step"), "the scenario page")
    failures = _text(browser, "#failures")
    assert (
        "screenshot `done` does not match" in failures and "the screen does not contain 'Goodbye'" in failures
    )
    report = json.loads((failed_run / "report.json").read_text())
    [broken] = [s for s in report["scenarios"] if s["name"] == "broken-agent"]
    first_bad = broken["failures"][0]["step"]
    assert _text(browser, "#step-title") == f"Step {first_bad}", "the page opens at the first failing step"
    assert "Done: hello.py prints Hello, World!" in _text(browser, "#detail pre.screen")
    assert _css(browser, "#source .ln.hl")[0].get_attribute("data-n") == str(broken["failures"][0]["line"])
    # the step that took the screenshot shows how it differs from its golden, where the page opens
    head = " ".join(_text(browser, "#detail .shot-here .step-head").split())
    assert head == "screenshot done mismatch differs from its golden: 1 cell differ, row 9", head
    here = [
        [e.text for e in _css(browser, f"#detail .shot-here pre.{side} .x")] for side in ("golden", "actual")
    ]
    assert here == [["a"], ["e"]], here
    _save(browser, pages, "scenario-failed-step")

    _key(browser, Keys.HOME)
    _wait(browser, lambda d: _text(d, "#step-title") == "Step 0", "Home: the first step")
    assert "Create hello.py that prints Hello, World!" in _text(browser, "#detail pre.screen")
    _key(browser, Keys.ARROW_RIGHT)
    _wait(browser, lambda d: _text(d, "#step-title") == "Step 1", "the right arrow: step 1")
    _css(browser, "#mark-changes")[0].click()  # the cells the step changed on the screen
    _wait(browser, lambda d: _css(d, "#detail pre.screen .x"), "the changed cells marked")
    marked = "".join(e.text for e in _css(browser, "#detail pre.screen .x"))
    assert "Theuserwantsahello-worldscript." in marked, marked  # (blanks that stay blank are no change)
    _save(browser, pages, "scenario-changes-marked")
    while not _css(browser, "#files"):  # step on with the right arrow until a step wrote a file
        title = _text(browser, "#step-title")
        _key(browser, Keys.ARROW_RIGHT)
        _wait(browser, lambda d, t=title: _text(d, "#step-title") != t, "the right arrow: the next step")
        assert _text(browser, "#step-title") != "Step 10", "no step showed a changed file"
    assert "tool writeFile" in _text(browser, "#detail .what")
    assert "added: hello.py" in _text(browser, "#files")
    assert "+print('Hello, World!')" in _text(browser, "#files pre.diff")
    _save(browser, pages, "scenario-file-diff")
    title = _text(browser, "#step-title")
    _key(browser, Keys.ARROW_LEFT)
    _wait(browser, lambda d: _text(d, "#step-title") != title, "the left arrow: the step before")
    _key(browser, Keys.END)
    _wait(browser, lambda d: _text(d, "#step-title") == "Step 10", "End: the last step")

    golden_marks = [e.text for e in _css(browser, ".shot-diff pre.golden .x")]
    actual_marks = [e.text for e in _css(browser, ".shot-diff pre.actual .x")]
    assert (golden_marks, actual_marks) == (["a"], ["e"]), "one changed cell, marked on both sides"
    assert [e.text for e in _css(browser, "pre.combined .x")] == ["e"]
    assert "1 cell differ, row 9" in _text(browser, "#shots")
    browser.set_window_size(1280, 1000)  # a laptop's window: the Screenshots' golden and actual side by side
    golden, actual = (_css(browser, f"#shots .shot-diff pre.{side}")[0] for side in ("golden", "actual"))
    assert golden.location["y"] == actual.location["y"] and golden.location["x"] < actual.location["x"]
    browser.set_window_size(1400, 1000)

    _css(browser, "#cast-play")[0].click()
    end = _css(browser, "#cast-time")[0].get_attribute("max")
    _wait(
        browser,
        lambda d: _css(d, "#cast-time")[0].get_attribute("value") == end,
        "the recording played to its end",
    )
    assert "Done: hello.py prints Hello, World!" in _text(browser, "pre.cast")
    _save(browser, pages, "scenario-end")

    urls = _requests(browser)
    assert urls and all(u.startswith(folder.as_uri() + "/") for u in urls), urls
    assert {u.rsplit("/", 1)[-1] for u in urls} >= {"index.html", "report.js", "screens.js"}
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors


def test_the_summary_filters_by_status_tag_and_text(failed_run: Path, browser: Any) -> None:
    from selenium.webdriver.support.ui import Select

    browser.get((failed_run / "report" / "index.html").as_uri())
    _wait(browser, lambda d: len(_css(d, "#scenarios tr.row")) == 2, "the summary")

    def names() -> list[str]:
        return [r.find_element("css selector", "a.name").text for r in _css(browser, "#scenarios tr.row")]

    _css(browser, '#filters button[data-status="passed"]')[0].click()
    _wait(browser, lambda d: names() == ["hello-agent"], "only the passed scenario")
    _css(browser, '#filters button[data-status="all"]')[0].click()
    search = _css(browser, "#search")[0]
    search.send_keys("goodbye")
    _wait(browser, lambda d: names() == ["broken-agent"], "the text filter finds the failure message")
    search.clear()
    search.send_keys("x")
    search.clear()
    search.send_keys("scenarios/")
    _wait(browser, lambda d: len(names()) == 2, "both files match")
    Select(_css(browser, "#tag")[0]).select_by_visible_text("mock-agent")
    _wait(browser, lambda d: len(names()) == 2, "both carry the tag")
    search.send_keys("nothing like this")
    _wait(browser, lambda d: "No scenario matches" in _text(d, "#scenarios"), "an empty result says so")


def test_several_agents_make_a_matrix_of_scenarios_by_agent(
    failed_run: Path, browser: Any, tmp_path: Path
) -> None:
    report = json.loads((failed_run / "report.json").read_text())
    entries = []
    for agent, statuses in (("claude-code", ("passed", "failed")), ("codex", ("passed", "passed"))):
        for entry, status in zip(report["scenarios"], statuses, strict=True):
            entries.append({**entry, "agent": agent, "status": status})
    alone = {**report["scenarios"][0], "name": "no-agent"}  # a scenario run under no agent: not in the matrix
    (tmp_path / "matrix.json").write_text(json.dumps({**report, "scenarios": [*entries, alone]}))
    done = workbench(
        "report", "html", str(tmp_path / "matrix.json"), "-o", str(tmp_path / "m"), cwd=failed_run
    )
    assert done.returncode == 0, done.stderr
    browser.get((tmp_path / "m" / "index.html").as_uri())
    _wait(browser, lambda d: _css(d, "#matrix tbody tr"), "the matrix")
    header = [th.text for th in _css(browser, "#matrix thead th")]
    assert header == ["Scenario", "claude-code", "codex"]
    cells = {tr.find_elements("css selector", "td")[0].text: [td.text for td in tr.find_elements("css selector", "td")[1:]]
             for tr in _css(browser, "#matrix tbody tr")}  # fmt: skip
    assert cells == {"broken-agent": ["passed", "passed"], "hello-agent": ["failed", "passed"]} or cells == {
        "broken-agent": ["failed", "passed"],
        "hello-agent": ["passed", "passed"],
    }
    _save(browser, tmp_path / "pages", "matrix")


def chat_scenario(folder: Path, agent_source: str, prompt: str) -> Path:
    """``chat.yaml``: a real agent (``agent_source``, on the official Anthropic SDK) is typed ``prompt``,
    the model answers "Hi there"; the input is at line 6."""
    agent = write(folder, "chat_agent.py", agent_source)
    return write(folder, "chat.yaml", f"""\
name: chat
mode: real-agent
command: [{sys.executable}, {agent}]
terminal: {{width: 60, height: 8}}
timeline:
  - userInputs: [[0, "{prompt}<Enter>"]]
  - llmResponse:
      - assistant: [[50, "Hi there"]]
  - waitFor: "[asked 1] Hi there"
""")  # fmt: skip


def test_the_model_requests_of_a_real_agent_show_at_their_step(browser: Any, tmp_path: Path) -> None:
    """A real agent (our own, on the official Anthropic SDK) asks the mock model; the report shows the request."""
    chat_scenario(tmp_path, CHAT_AGENT, "hello")
    done = workbench("run", "chat.yaml", "--html", "report", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (page,) = [data_of(p)[1] for p in (tmp_path / "report" / "data" / "s").glob("*.js")]
    [step] = [s for s in page["steps"] if s["traffic"]]
    assert step["action"] == "assistant" or "llmResponse" in step["summary"] or step["line"] == 8, step
    browser.get((tmp_path / "report" / "index.html").as_uri() + f"#/s/0/{page['steps'].index(step)}")
    _wait(browser, lambda d: _css(d, "#traffic details"), "the step's model traffic")
    summary = _css(browser, "#traffic details summary")[0]
    assert "POST /v1/messages" in summary.text
    summary.click()
    body = _text(browser, "#traffic details pre")
    assert '"prompt": "hello"' in body and '"style": "anthropic"' in body
    _save(browser, tmp_path / "pages", "model-traffic")


MARKUP = """\
name: markup
timeline:
  - userInputs: [[0, "show <b>this</b>"]]
  - llmResponse:
      - assistant: [[10, "<img src=x onerror=\\"document.title='pwned'\\">"]]
  - writeFile:
      path: page.html
      content: "<script>document.title='pwned'</script>\\n"
      status: ok
  - log: "</script><script>document.title='pwned'</script>"
  - llmResponse:
      - assistant: [[10, '<img src="http://127.0.0.1:9/pixel.png"> <link rel=stylesheet href="https://example.com/x.css">']]
"""


def test_markup_in_what_the_agent_wrote_is_shown_as_text_never_run(browser: Any, tmp_path: Path) -> None:
    write(tmp_path, "markup.yaml", MARKUP)
    done = workbench("run", "markup.yaml", "--html", "report", cwd=tmp_path)
    assert "HTML report" in done.stdout, done.stdout + done.stderr
    browser.get("about:blank")
    _requests(browser)  # Chromium's own
    browser.get((tmp_path / "report" / "index.html").as_uri() + "#/s/0/0")
    _wait(browser, lambda d: _text(d, "#step-title") == "Step 0", "the scenario page")
    steps = len(_css(browser, "#steps li"))
    from selenium.webdriver.common.keys import Keys

    seen = []
    for n in range(steps):
        _wait(browser, lambda d, n=n: _text(d, "#step-title").startswith(f"Step {n}"), f"step {n}")
        seen.append(_text(browser, "#detail"))
        _key(browser, Keys.ARROW_RIGHT)
    text = "\n".join(seen)
    assert "<img src=x onerror=" in text and "+<script>document.title='pwned'</script>" in text
    assert "show <b>this</b>" in text
    assert browser.title != "pwned" and not _css(
        browser, "#detail img, #detail b, #detail script, #detail link"
    )
    assert '<img src="http://127.0.0.1:9/pixel.png">' in text
    assert all(u.startswith((tmp_path / "report").as_uri()) for u in _requests(browser)), (
        "no request elsewhere"
    )
    _save(browser, tmp_path / "pages", "markup")


BANDS = """\
name: bands
terminal: {width: 20, height: 6}
command: [sh, -c, "printf '\\\\033[44m%20s\\\\n\\\\033[41m%20s\\\\n\\\\033[44m%20s\\\\033[0m\\\\n' '' '' ''; echo done; exec cat"]
timeline:
  - waitFor: done
  - screenshot: bands
"""


def test_a_background_colour_fills_its_cells_from_row_to_row(browser: Any, tmp_path: Path) -> None:
    """A TUI's coloured panels show as solid blocks: each row of background is as tall as the row pitch
    (a terminal's cells touch), not the font's glyph box with a seam of the page between rows."""
    write(tmp_path, "bands.yaml", BANDS)
    done = workbench("run", "bands.yaml", "--html", "report", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    browser.get((tmp_path / "report" / "index.html").as_uri() + "#/s/0/1")
    _wait(browser, lambda d: _css(d, "pre.term.screen span[style*=background]"), "the coloured rows")
    geometry = browser.execute_script("""
        const pre = document.querySelector('pre.term.screen');
        const spans = [...pre.querySelectorAll('span[style*=background]')].map((s) => s.getBoundingClientRect());
        const style = getComputedStyle(pre);
        const inner = pre.getBoundingClientRect().height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
        return {pitch: inner / 6, tops: spans.map((r) => r.top), bottoms: spans.map((r) => r.bottom)};
    """)
    tops, bottoms, pitch = geometry["tops"], geometry["bottoms"], geometry["pitch"]
    assert len(tops) == 3, geometry
    for above, below in zip(bottoms, tops[1:], strict=False):
        assert below - above < 0.5, f"a seam of {below - above:.2f} px between coloured rows: {geometry}"
    assert all(abs((b - t) - pitch) < 0.5 for t, b in zip(tops, bottoms, strict=True)), geometry
    _save(browser, tmp_path / "pages", "bands")


def test_a_scenario_that_did_not_load_shows_its_source_at_the_failing_line(
    browser: Any, tmp_path: Path
) -> None:
    lines = ["name: typo", "timeline:", *(f"  - log: step {n}" for n in range(60)), "  - writeFile:",
             "      path: x.txt", "      contnt: hi"]  # fmt: skip
    write(tmp_path, "typo.yaml", "\n".join(lines) + "\n")
    done = workbench("run", "--ci", "typo.yaml", "--html", "report", cwd=tmp_path)
    assert done.returncode == 2 and "HTML report" in done.stdout, done.stdout + done.stderr
    browser.get(_moved(tmp_path / "report", tmp_path).joinpath("index.html").as_uri() + "#/s/0")
    _wait(browser, lambda d: _css(d, "#failed-source .hl"), "the source at the failing line")
    assert _text(browser, "#failed-source h3").lower() == "source · typo.yaml:65"
    assert _text(browser, "#no-trace") == "It did not load, so it did not run: fix it at the line below."
    assert "0.00 s" not in _text(browser, ".scn-head"), "it did not run: no duration, not 0.00 s"
    (marked,) = _css(browser, "#failed-source .hl")
    assert marked.get_attribute("data-n") == "65" and marked.text.strip() == "contnt: hi"
    assert marked.is_displayed() and browser.execute_script(  # scrolled to, inside its box
        "const hl = arguments[0], box = hl.parentNode.getBoundingClientRect(), r = hl.getBoundingClientRect();"
        "return r.top >= box.top && r.bottom <= box.bottom;",
        marked,
    )
    _save(browser, tmp_path / "pages", "did-not-load")


SCREENFUL = """\
name: screenful
command: [sh, -c, "seq 1 40"]
timeline:
  - waitFor: never shown
"""


def test_a_failure_that_quotes_a_screen_takes_a_few_lines_of_the_summary(
    browser: Any, tmp_path: Path
) -> None:
    """A timeout quotes the whole screen; its summary row shows the first lines, its page all of them."""
    write(tmp_path, "screenful.yaml", SCREENFUL)
    done = workbench("run", "screenful.yaml", "--html", "report", cwd=tmp_path)
    assert done.returncode == 1 and "the screen was:" in done.stdout, done.stdout + done.stderr
    browser.get((tmp_path / "report" / "index.html").as_uri())
    _wait(browser, lambda d: _css(d, "#scenarios tr.row td.msg"), "the summary")
    cell = _text(browser, "#scenarios tr.row td.msg")
    assert len(cell.splitlines()) == 4 and "more lines on the scenario's page" in cell, cell
    assert cell.startswith(
        "timing (line 4): the program exited with 0 before the screen showed 'never shown'"
    )
    _css(browser, "#scenarios a.name")[0].click()
    _wait(browser, lambda d: _text(d, "#step-title").startswith("Step"), "the scenario page")
    assert "\n40" in _text(browser, "#failures"), "the page shows the whole message"


WIDE = """\
name: wide
terminal: {width: 20, height: 5}
command: [sh, -c, "printf '漢字|\\\\nabcd|\\\\n🎉ab|\\\\nend\\\\n'; exec cat"]
timeline:
  - waitFor: end
"""
MARKS = """
// where each `|` of the screen is ({left, top}), and the height of one row of the screen's arguments[1] rows
const marks = [];
const walker = document.createTreeWalker(arguments[0], NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode;
  for (let i = node.data.indexOf("|"); i >= 0; i = node.data.indexOf("|", i + 1)) {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const rect = range.getBoundingClientRect();
    marks.push({left: rect.left, top: rect.top});
  }
}
const style = getComputedStyle(arguments[0]);
const rect = arguments[0].getBoundingClientRect();
return {marks, pitch: (rect.height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)) / arguments[1]};
"""


def test_wide_characters_keep_the_columns_of_the_terminal(browser: Any, tmp_path: Path) -> None:
    """A wide character takes two cells on the page as in the terminal, whatever font draws it (here,
    often none: a box), so what follows it on its row stays in its column."""
    write(tmp_path, "wide.yaml", WIDE)
    done = workbench("run", "wide.yaml", "--html", "report", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    browser.get((tmp_path / "report" / "index.html").as_uri() + "#/s/0")
    _wait(browser, lambda d: "abcd|" in _text(d, "#detail pre.screen"), "the scenario's screen")
    xs = [
        m["left"] for m in browser.execute_script(MARKS, _css(browser, "#detail pre.screen")[0], 5)["marks"]
    ]
    assert len(xs) == 3 and max(xs) - min(xs) < 1, xs
    _save(browser, tmp_path / "pages", "wide")


def test_a_recording_too_long_for_the_report_says_it_is_cut(browser: Any, tmp_path: Path) -> None:
    from workbench.report.cast import MAX_EVENTS

    write(tmp_path, "wide.yaml", WIDE)
    done = workbench("run", "wide.yaml", "--out", "runs", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    [cast] = (tmp_path / "runs").rglob("terminal.cast")
    header = cast.read_text(encoding="utf-8").splitlines()[0]
    events = "".join(json.dumps([n / 1000, "o", f"{n}\r\n"]) + "\n" for n in range(MAX_EVENTS + 1))
    cast.write_text(header + "\n" + events, encoding="utf-8")
    html = workbench("report", "html", str(cast.parent), "-o", "report", cwd=tmp_path)
    assert html.returncode == 0, html.stderr
    browser.get((tmp_path / "report" / "index.html").as_uri() + "#/s/0")
    _wait(browser, lambda d: _css(d, "#recording"), "the recording")
    assert "The recording is cut" in _text(browser, "#cast-cut")


def test_a_program_that_cannot_start_shows_its_command_line_and_no_empty_film(
    browser: Any, tmp_path: Path
) -> None:
    write(tmp_path, "nocmd.yaml", "name: nocmd\ncommand: [no-such-program-here]\ntimeline:\n  - waitFor: x\n")
    done = workbench("run", "nocmd.yaml", "--html", "report", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    browser.get((tmp_path / "report" / "index.html").as_uri() + "#/s/0")
    _wait(browser, lambda d: _text(d, "#step-title").startswith("Step"), "the scenario page")
    assert "cannot start 'no-such-program-here'" in _text(browser, "#detail")
    assert _css(browser, "#source .ln.hl")[0].get_attribute("data-n") == "2", "the line of `command`"
    assert not _css(browser, "#strip") and not _css(browser, "#play"), "no film strip without a screen"


def test_a_missing_golden_says_where_it_would_be_and_how_to_make_it(browser: Any, tmp_path: Path) -> None:
    shutil.copy(SCENARIOS / "hello-agent.yaml", tmp_path / "hello-agent.yaml")
    done = workbench("run", "hello-agent.yaml", "--ci", "--html", "report", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    browser.get((tmp_path / "report" / "index.html").as_uri() + "#/s/0")
    _wait(browser, lambda d: _text(d, "#step-title").startswith("Step"), "the scenario page")
    note = _text(browser, "#failures details.console pre")
    assert "no golden at screenshots/hello-agent/80x24/done.golden" in note and "without --ci" in note, note


def test_a_report_served_under_jenkins_default_policy_says_why_it_is_blank(
    failed_run: Path, browser: Any, tmp_path: Path
) -> None:
    """Jenkins' HTML publisher serves reports with a Content-Security-Policy that blocks every script: the
    page says what happened and what to do, rather than 'Loading the report…' for ever."""
    import functools
    import http.server
    import threading

    class Jenkins(http.server.SimpleHTTPRequestHandler):
        def end_headers(self) -> None:
            self.send_header("Content-Security-Policy",
                             "sandbox; default-src 'none'; img-src 'self'; style-src 'self';")  # fmt: skip
            super().end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    folder = _moved(failed_run / "report", tmp_path)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Jenkins, directory=str(folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
        _wait(browser, lambda d: _css(d, "#not-loading"), "the page")
        hint = _text(browser, "#not-loading")
        assert "Content-Security-Policy" in hint and "open its index.html" in hint, hint
    finally:
        server.shutdown()
        server.server_close()
    browser.get((folder / "index.html").as_uri())  # where the scripts run, the report replaces the hint
    _wait(browser, lambda d: _css(d, "#scenarios tr.row"), "the summary")
    assert not _css(browser, "#not-loading")


def test_a_prompt_the_agent_rewrote_is_shown_at_its_step_beside_the_scenarios_input(
    browser: Any, tmp_path: Path
) -> None:
    """An agent that sends another prompt than the scenario's user typed (it rewrote it) is not a failure,
    but the report shows both texts at the input's step, side by side, the words that differ marked, as
    golden and actual are for a screenshot; the page opens there, and the summary row says so."""
    rewriting = CHAT_AGENT.replace('"content": line}', '"content": "Please, " + line.lower() + " in Python"}')
    chat_scenario(tmp_path, rewriting, "Write a haiku")
    done = workbench("run", "chat.yaml", "--html", "report", "--report", "report.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    [entry] = json.loads((tmp_path / "report.json").read_text())["scenarios"]
    assert entry["mismatches"] == [{"step": 0, "line": 6, "what": "prompt", "expected": "Write a haiku",
                                    "actual": "Please, write a haiku in Python"}]  # fmt: skip
    browser.get(_moved(tmp_path / "report", tmp_path).joinpath("index.html").as_uri())
    _wait(browser, lambda d: _css(d, "#scenarios tr.row"), "the summary")
    assert 'prompt differs (line 6): expected "Write a haiku"' in _text(browser, "#scenarios tr.row td.msg")
    _css(browser, "#scenarios a.name")[0].click()
    _wait(browser, lambda d: _text(d, "#step-title") == "Step 0", "the page opens at the input's step")
    assert "prompt differs at line 6 · step 0" in _text(browser, "#failures .note")
    assert "warn" in _css(browser, '#steps li[data-pos="0"]')[0].get_attribute("class")
    [expected], [actual] = _css(browser, "#detail pre.expected"), _css(browser, "#detail pre.actual")
    assert (expected.text, actual.text) == ("Write a haiku", "Please, write a haiku in Python")
    assert [e.text for e in _css(browser, "#detail pre.expected .x")] == ["Write"]
    assert [e.text for e in _css(browser, "#detail pre.actual .x")] == ["Please, write", " in Python"]
    assert expected.location["y"] == actual.location["y"] and expected.location["x"] < actual.location["x"]
    _save(browser, tmp_path / "pages", "prompt-differs")
    from selenium.webdriver.common.keys import Keys

    _key(browser, Keys.ARROW_RIGHT)
    _wait(browser, lambda d: _text(d, "#step-title") != "Step 0", "the next step")
    assert not _css(browser, "#detail .mismatch"), "only the input's step shows it"


GLYPHS = """\
name: glyphs
terminal: {width: 24, height: 5}
command: [sh, -c, "printf 'ab|\\\\n⏺ Update|\\\\n  ⎿  漢字テスト|\\\\nend|\\\\n'; exec cat"]
timeline:
  - waitFor: end|
"""
DRAWN_AS_TOFU = """
// the characters of arguments[1] that the screen's font stack draws as the missing-glyph box: each drawn
// on a canvas in the screen's fonts, compared with a character no font has
const font = '40px ' + getComputedStyle(arguments[0]).fontFamily;
function pixels(text) {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 60;
  const ctx = canvas.getContext('2d');
  ctx.font = font;
  ctx.fillText(text, 5, 45);
  return ctx.getImageData(0, 0, 60, 60).data.join(',');
}
const tofu = pixels('\\u{10FFFD}');
return [...arguments[1]].filter((c) => pixels(c) === tofu);
"""


def test_claude_codes_bullets_and_cjk_are_drawn_on_the_terminals_rows(browser: Any, tmp_path: Path) -> None:
    """Claude Code's ⏺ and ⎿ and CJK text are drawn, not as boxes, where the machine has a font for them
    (the page's monospace stack falls back to the system's symbol and CJK fonts; .ci/run installs Debian's),
    and a row drawn partly in a fallback font is as tall as the others: the rows stay on the terminal's grid."""
    import subprocess

    wanted = "⏺⎿漢字テ"
    have = [c for c in wanted if shutil.which("fc-list") and subprocess.run(
        ["fc-list", f":charset={ord(c):x}"], capture_output=True, text=True).stdout.strip()]  # fmt: skip
    write(tmp_path, "glyphs.yaml", GLYPHS)
    done = workbench("run", "glyphs.yaml", "--html", "report", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    browser.get((tmp_path / "report" / "index.html").as_uri() + "#/s/0")
    _wait(browser, lambda d: "end|" in _text(d, "#detail pre.screen"), "the scenario's screen")
    screen = _css(browser, "#detail pre.screen")[0]
    geometry = browser.execute_script(MARKS, screen, 5)
    tops, pitch = [m["top"] for m in geometry["marks"]], geometry["pitch"]
    assert len(tops) == 4 and all(abs(top - tops[0] - n * pitch) < 0.5 for n, top in enumerate(tops)), (
        geometry
    )
    _save(browser, tmp_path / "pages", "glyphs")
    if len(have) < len(wanted):
        pytest.skip(
            f"no font here draws {''.join(set(wanted) - set(have))} (Debian: fonts-symbola fonts-droid-fallback)"
        )
    assert browser.execute_script(DRAWN_AS_TOFU, screen, wanted) == []


NO_SIDEWAYS = "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];"


def test_a_phone_reads_the_report_in_one_column_without_scrolling_sideways(
    failed_run: Path, browser: Any, tmp_path: Path
) -> None:
    """At 400 px wide: each summary row is a card with its failure in full width, the steps list is above
    the step, and the terminal screens (the step's, golden and actual) fit in the width; nothing is wider
    than the window."""
    browser.set_window_size(400, 900)
    browser.get((failed_run / "report" / "index.html").as_uri())
    _wait(browser, lambda d: len(_css(d, "#scenarios tr.row")) == 2, "the summary")
    scroll, client = browser.execute_script(NO_SIDEWAYS)
    assert scroll <= client, f"the summary is {scroll} px wide in a window of {client}"
    message = _css(browser, "#scenarios tr.row td.msg")[0]
    assert message.size["width"] > client * 0.8, "the failure message takes the card's width"
    browser.save_screenshot(str(tmp_path / "phone-summary.png"))
    _css(browser, "#scenarios a.name")[0].click()
    _wait(browser, lambda d: _text(d, "#step-title").startswith("Step"), "the scenario page")
    scroll, client = browser.execute_script(NO_SIDEWAYS)
    assert scroll <= client, f"the scenario's page is {scroll} px wide in a window of {client}"
    steps, detail = _css(browser, "#steps")[0].rect, _css(browser, "#detail")[0].rect
    assert steps["y"] + steps["height"] <= detail["y"], "the steps list is above the step"
    for screen in _css(browser, "#detail pre.screen, .shot-diff pre.golden, .shot-diff pre.actual"):
        rect = screen.rect
        assert rect["x"] >= 0 and rect["x"] + rect["width"] <= client, f"a screen is cut: {rect}"
    browser.save_screenshot(str(tmp_path / "phone-scenario.png"))


def test_an_assert_the_mock_model_checked_shows_in_its_steps_checks(browser: Any, tmp_path: Path) -> None:
    """In real-agent mode the mock LLM server checks a workspace assert: its failure is in the step's Checks,
    as the engine's checks are, not only above the steps."""
    scenario = chat_scenario(tmp_path, CHAT_AGENT, "hello")
    scenario.write_text(scenario.read_text() + "  - assert: {fs: {exists: [nowhere.txt]}}\n")
    done = workbench("run", "chat.yaml", "--html", "report", "--report", "report.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    [failure] = json.loads((tmp_path / "report.json").read_text())["scenarios"][0]["failures"]
    browser.get((tmp_path / "report" / "index.html").as_uri() + "#/s/0")
    _wait(browser, lambda d: _text(d, "#step-title") == f"Step {failure['step']}", "the failing step")
    assert "✗ fails" in _text(browser, "#checks") and failure["message"] in _text(
        browser, "#checks .check.bad"
    )


def test_a_scenario_opens_at_its_top_and_the_summary_comes_back_where_it_was(
    failed_run: Path, browser: Any, tmp_path: Path
) -> None:
    """In a long summary (here 80 scenarios) a row far down opens its scenario at the top of the page (it
    opened scrolled as far down as the summary was: at its film strip, its recording), and going back shows
    the summary where it was, not at its first row."""
    report = json.loads((failed_run / "report.json").read_text())
    [broken] = [e for e in report["scenarios"] if e["name"] == "broken-agent"]
    entries = [{**broken, "name": f"aa-{n}"} for n in range(78)] + report[
        "scenarios"
    ]  # (these have no trace)
    (tmp_path / "long.json").write_text(json.dumps({**report, "scenarios": entries}))
    done = workbench(
        "report", "html", str(tmp_path / "long.json"), "-o", str(tmp_path / "long"), cwd=failed_run
    )
    assert done.returncode == 0, done.stderr
    browser.get((tmp_path / "long" / "index.html").as_uri())
    _wait(browser, lambda d: len(_css(d, "#scenarios tr.row")) == 80, "the summary")
    [link] = [a for a in _css(browser, "#scenarios tr.row a.name") if a.text == "broken-agent"]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    where = browser.execute_script("return window.scrollY")
    assert where > 1000, where
    name = link.text
    link.click()
    _wait(browser, lambda d: _text(d, ".scn-head h2") == name, "the scenario's page")
    assert browser.execute_script("return window.scrollY") == 0, "the scenario opens at its top"
    browser.back()
    _wait(browser, lambda d: len(_css(d, "#scenarios tr.row")) == 80, "the summary again")
    assert abs(browser.execute_script("return window.scrollY") - where) < 2, "the summary is where it was"


def test_the_summarys_filters_are_in_its_address(failed_run: Path, browser: Any) -> None:
    """The filters are in the page's address: a reload keeps them, a link copied from the address bar shows
    what its sender saw, and a scenario's "All scenarios" link goes back to the filtered summary."""
    browser.get((failed_run / "report" / "index.html").as_uri())
    _wait(browser, lambda d: len(_css(d, "#scenarios tr.row")) == 2, "the summary")
    _css(browser, '#filters button[data-status="failed"]')[0].click()
    _css(browser, "#search")[0].send_keys("goodbye")

    def seen(driver: Any) -> tuple[list[str], str, str]:
        rows = [r.find_element("css selector", "a.name").text for r in _css(driver, "#scenarios tr.row")]
        on = _css(driver, "#filters button.on")
        return (
            rows,
            on[0].get_attribute("data-status") if on else "",
            _css(driver, "#search")[0].get_attribute("value"),
        )

    filtered = (["broken-agent"], "failed", "goodbye")
    _wait(browser, lambda d: seen(d) == filtered, "the filtered summary")
    assert browser.current_url.endswith("index.html#?status=failed&q=goodbye"), browser.current_url
    browser.refresh()
    _wait(
        browser,
        lambda d: _css(d, "#scenarios tr.row") and seen(d) == filtered,
        "the same summary after a reload",
    )
    _css(browser, "#scenarios a.name")[0].click()
    _wait(browser, lambda d: _css(d, "#back"), "the scenario's page")
    _css(browser, "#back")[0].click()
    _wait(
        browser, lambda d: _css(d, "#scenarios tr.row") and seen(d) == filtered, "the filtered summary again"
    )


def test_the_step_buttons_keep_the_keyboards_focus(failed_run: Path, browser: Any) -> None:
    """A keyboard user tabs to ▶ and presses Enter, again and again: each press is one step on, and the focus
    stays on ▶ (the step's pane is drawn anew each step, and the focus went to the page's start)."""
    from selenium.webdriver.common.keys import Keys

    browser.get((failed_run / "report" / "index.html").as_uri() + "#/s/0/0")
    _wait(browser, lambda d: _text(d, "#step-title") == "Step 0", "the first step")
    for _ in range(30):
        if browser.execute_script("return document.activeElement.id") == "next":
            break
        _key(browser, Keys.TAB)
    assert browser.execute_script("return document.activeElement.id") == "next", "Tab reaches ▶"
    for n in (1, 2, 3):
        _key(browser, Keys.ENTER)
        _wait(browser, lambda d, n=n: _text(d, "#step-title") == f"Step {n}", f"Enter: step {n}")
    assert browser.execute_script("return document.activeElement.id") == "next"
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()  # to ◀
    focus = browser.execute_script(
        "const a = document.activeElement; return a.id || a.outerHTML.slice(0, 80)"
    )
    assert focus == "prev", f"Shift+Tab reaches ◀, not {focus}"
    _key(browser, Keys.ENTER)
    _wait(browser, lambda d: _text(d, "#step-title") == "Step 2", "Enter on ◀: the step before")
    assert browser.execute_script("return document.activeElement.id") == "prev"


def test_a_report_whose_data_does_not_load_says_why(failed_run: Path, browser: Any, tmp_path: Path) -> None:
    """A folder without its data (half of an artifact), or a server that serves the data's .js files as
    text (with nosniff, as a CI server's artifact view may): the page says that its data did not load, from
    where, and what to do, rather than 'Loading the report…' for ever."""
    import functools
    import http.server
    import threading

    half = _moved(failed_run / "report", tmp_path)
    (half / "data" / "report.js").unlink()
    browser.get((half / "index.html").as_uri())
    _wait(browser, lambda d: _css(d, "#no-data"), "the page's word")
    said = _text(browser, "#no-data")
    assert f"did not load ({(half / 'data' / 'report.js').as_uri()})" in said and "not whole" in said, said
    assert not _css(browser, ".loading")

    class AsText(http.server.SimpleHTTPRequestHandler):
        def guess_type(self, path: Any) -> str:
            return "text/plain" if str(path).endswith(".js") else str(super().guess_type(path))

        def end_headers(self) -> None:
            self.send_header("X-Content-Type-Options", "nosniff")
            super().end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    whole = str(failed_run / "report")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(AsText, directory=whole))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
        _wait(browser, lambda d: _css(d, "#no-data"), "the page's word")
        assert "does not serve its .js files as JavaScript" in _text(browser, "#no-data")
    finally:
        server.shutdown()
        server.server_close()


def test_a_recording_opens_on_the_terminal_as_the_run_left_it(failed_run: Path, browser: Any) -> None:
    """The recording opens on its last frame (its first is the blank terminal before the program printed
    anything), its slider at the end; ▶ plays it again from the start."""
    browser.get((failed_run / "report" / "index.html").as_uri() + "#/s/0")
    _wait(browser, lambda d: _css(d, "pre.cast"), "the recording")
    assert "Done: hello.py prints Hello, World!" in _text(browser, "pre.cast")
    slider = _css(browser, "#cast-time")[0]
    end = slider.get_attribute("max")
    assert int(end) > 0 and slider.get_attribute("value") == end
    assert _text(browser, "#recording .player .muted").startswith(f"{int(end) / 1000:.2f} / ")


NO_TIMES = """\
name: untimed
mode: real-agent
command: [{python}, {agent}]
terminal: {{width: 60, height: 8}}
timeline:
  - userInputs: [[0, "hello<Enter>"]]
  - llmResponse:
      - assistant: "Hi there"
  - waitFor: "[asked 1] Hi there"
"""


def test_a_scenario_that_gives_no_times_shows_none_rather_than_0_ms(browser: Any, tmp_path: Path) -> None:
    """A real agent's scenario whose replies have no times puts every step at 0 ms virtual: the steps list
    shows a dash for each, and the step says its wall time only, not a column of false "0 ms"."""
    agent = write(tmp_path, "chat_agent.py", CHAT_AGENT)
    write(tmp_path, "untimed.yaml", NO_TIMES.format(python=sys.executable, agent=agent))
    done = workbench("run", "untimed.yaml", "--html", "report", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    browser.get((tmp_path / "report" / "index.html").as_uri() + "#/s/0/1")
    _wait(browser, lambda d: _text(d, "#step-title") == "Step 1", "the scenario's page")
    times = [e.text for e in _css(browser, "#steps li .t")]
    assert len(times) == 3 and set(times) == {"—"}, times
    said = _text(browser, "#step-time")
    assert said.endswith("ms wall (the scenario gives no times)") and "virtual" not in said, said
    _save(browser, tmp_path / "pages", "untimed")


def test_golden_and_actual_stay_readable_from_700_to_1000_px(failed_run: Path, browser: Any) -> None:
    """In a window 700 to 1000 px wide (and a laptop's), golden and actual are side by side only when each
    gets its 80 columns at 10 px or more, else one above the other; never at 8 px, never cut by the window."""
    url = (failed_run / "report" / "index.html").as_uri() + "#/s/0"
    seen = {}
    for width in (720, 860, 1000, 1280):
        browser.set_window_size(width, 1000)
        browser.get("about:blank")
        browser.get(url)
        _wait(browser, lambda d: len(_css(d, ".shot-diff")) == 2, "the step's and the Screenshots' diffs")
        client = browser.execute_script("return document.documentElement.clientWidth")
        for n, diff in enumerate(_css(browser, ".shot-diff")):
            golden, actual = (
                diff.find_element("css selector", f"pre.{side}") for side in ("golden", "actual")
            )
            sizes = [float(e.value_of_css_property("font-size").removesuffix("px")) for e in (golden, actual)]
            assert sizes[0] == sizes[1] and sizes[0] >= 10, f"{width} px, diff {n}: fonts {sizes}"
            beside = golden.rect["y"] == actual.rect["y"]
            assert beside or golden.rect["y"] + golden.rect["height"] <= actual.rect["y"], (width, n)
            assert all(e.rect["x"] + e.rect["width"] <= client for e in (golden, actual)), f"{width} px: cut"
            seen[(width, n)] = beside
    assert not seen[(720, 0)] and seen[(1280, 1)], seen  # a narrow pane stacks, a laptop's Screenshots do not
    browser.set_window_size(1400, 1000)


def test_a_skipped_scenarios_reason_reads_as_a_skip(failed_run: Path, browser: Any, tmp_path: Path) -> None:
    """In the summary a skipped scenario's reason says it is a skip (never as a failure would: alone in the
    column of failures), and its duration, never measured, is a dash rather than 0.00 s."""
    report = json.loads((failed_run / "report.json").read_text())
    skipped = {**report["scenarios"][0], "name": "later", "status": "skipped", "reason": "needs a real agent",
               "failures": [], "screenshots": [], "duration_ms": 3}  # fmt: skip  # deciding to skip took 3 ms
    (tmp_path / "skip.json").write_text(json.dumps({**report, "scenarios": [*report["scenarios"], skipped]}))
    done = workbench("report", "html", str(tmp_path / "skip.json"), "-o", str(tmp_path / "r"), cwd=failed_run)
    assert done.returncode == 0, done.stderr
    browser.get((tmp_path / "r" / "index.html").as_uri())
    _wait(browser, lambda d: len(_css(d, "#scenarios tr.row")) == 3, "the summary")
    header = [th.text for th in _css(browser, "#scenarios thead th")]
    assert "First failure" not in header, header
    (row,) = _css(browser, "#scenarios tr.row.skipped")
    cells = row.find_elements("css selector", "td")
    assert cells[-1].text == "skipped: needs a real agent" and cells[-2].text == "—", [c.text for c in cells]
    assert cells[-1].value_of_css_property("font-family") != _css(browser, "#scenarios tr.row.failed td.msg")[
        0
    ].value_of_css_property("font-family"), "a skip's reason is not set as a failure's message"
    _save(browser, tmp_path / "pages", "skipped-reason")


def test_text_selected_in_a_summary_row_can_be_copied(failed_run: Path, browser: Any) -> None:
    """A drag over a row's failure message selects it (to paste it into an issue) and stays on the summary;
    a click on the row still opens its scenario."""
    from selenium.webdriver.common.action_chains import ActionChains

    browser.get((failed_run / "report" / "index.html").as_uri())
    _wait(browser, lambda d: len(_css(d, "#scenarios tr.row")) == 2, "the summary")
    cell = _css(browser, "#scenarios tr.row td.msg")[0]
    left, top = -cell.size["width"] // 2 + 12, -cell.size["height"] // 2 + 14  # (on its first line of text)
    ActionChains(browser).move_to_element_with_offset(cell, left, top).click_and_hold().move_by_offset(
        160, 0
    ).release().perform()
    selected = browser.execute_script("return String(getSelection())")
    assert selected and selected in cell.text, selected
    assert _css(browser, "#scenarios"), "still on the summary"
    assert "#/s/" not in browser.current_url, browser.current_url
    ActionChains(browser).move_to_element(cell).click().perform()
    _wait(browser, lambda d: _text(d, "#step-title").startswith("Step"), "the row's scenario")


def test_a_status_chip_keeps_the_keyboards_focus(failed_run: Path, browser: Any) -> None:
    """A keyboard user tabs to the "failed" chip and presses Enter: the summary shows the failures and the
    focus stays on that chip, so that Tab goes on to the next chip (it went to the page's start)."""
    from selenium.webdriver.common.keys import Keys

    browser.get((failed_run / "report" / "index.html").as_uri())
    _wait(browser, lambda d: len(_css(d, "#scenarios tr.row")) == 2, "the summary")
    focused = "const a = document.activeElement; return a.dataset.status || a.id || a.tagName;"
    for _ in range(10):
        if browser.execute_script(focused) == "failed":
            break
        _key(browser, Keys.TAB)
    assert browser.execute_script(focused) == "failed", "Tab reaches the failed chip"
    _key(browser, Keys.ENTER)
    _wait(browser, lambda d: len(_css(d, "#scenarios tr.row")) == 1, "the failures only")
    assert browser.execute_script(focused) == "failed"
    _key(browser, Keys.TAB)
    assert browser.execute_script(focused) == "passed", "Tab goes on to the next chip"


def test_the_steps_screen_stays_in_its_column_from_700_to_1000_px(failed_run: Path, browser: Any) -> None:
    """Beside the steps list, a window of 700 to 1000 px leaves the step less than 80 columns at 12 px: the
    step's screen shrinks to fit (never below 10 px) and its box stays inside the step's column (it passed
    the column's edge by its padding, its right columns cut)."""
    url = (failed_run / "report" / "index.html").as_uri() + "#/s/0"
    for width in (760, 860, 960):
        browser.set_window_size(width, 1000)
        browser.get("about:blank")
        browser.get(url)
        _wait(browser, lambda d: _css(d, "#detail pre.screen"), "the step's screen")
        screen, detail = _css(browser, "#detail pre.screen")[0], _css(browser, "#detail")[0]
        size = float(screen.value_of_css_property("font-size").removesuffix("px"))
        right, edge = screen.rect["x"] + screen.rect["width"], detail.rect["x"] + detail.rect["width"]
        assert size >= 10 and right <= edge + 0.5, (
            f"{width} px: font {size}, screen to {right}, column to {edge}"
        )
    browser.set_window_size(1400, 1000)
