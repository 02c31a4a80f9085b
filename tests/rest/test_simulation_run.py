"""`workbench run --mode simulation` and `workbench serve rest` end to end: real processes, real HTTP, real ptys."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli_process import report_of, workbench
from tests.conftest import SCENARIOS, require_corpus, write
from tests.rest.helpers import serve_rest


def test_the_example_clients_screens_are_the_same_at_max_speed_and_at_real_time(tmp_path: Path) -> None:
    examples = str(SCENARIOS / "simulation")
    first = workbench("run", examples, "--report", "r1.json", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    goldens = sorted(p.relative_to(tmp_path) for p in (tmp_path / "screenshots").rglob("*.golden"))
    assert len(goldens) == 3
    done = (tmp_path / "screenshots" / "build-status" / "72x16" / "done.golden").read_text(encoding="utf-8")
    assert "[COMPLETED]" in done and "src/build.py  +4 -2" in done and "✔ runCmd       all tests pass" in done
    assert {e["mode"] for e in report_of(tmp_path / "r1.json")["scenarios"]} == {"simulation"}
    started = time.monotonic()
    paced = workbench("run", examples, "--ci", "--speed", "1", "--report", "r2.json", cwd=tmp_path)
    elapsed = time.monotonic() - started
    assert paced.returncode == 0, paced.stdout + paced.stderr  # the same screens at real time
    virtual = sum(e["virtual_ms"] for e in report_of(tmp_path / "r2.json")["scenarios"]) / 1000
    assert elapsed >= virtual  # paced: real time is at least the scenario's time


def test_the_corpus_simulation_smoke_passes(tmp_path: Path) -> None:
    scenario = require_corpus() / "agent-harbor" / "test_scenarios" / "simulation_smoke.yaml"
    done = workbench("run", "--mode", "simulation", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    assert entry["status"] == "passed" and entry["mode"] == "simulation"


def test_the_client_gets_the_url_and_session_as_placeholders_and_environment(tmp_path: Path) -> None:
    scenario = write(tmp_path, "env.yaml", """\
name: env-client
mode: simulation
command: [bash, --norc, --noprofile, -c, 'echo "arg=$0 id=$1"; echo "env=$WORKBENCH_REST_URL id=$WORKBENCH_SESSION_ID"; curl -s -X POST -H "Content-Type: application/json" -d "{}" "$0/sessions"; echo; cat', "{rest_base_url}", "{session_id}"]
timeline:
  - log: hello
  - waitFor: '"id": "env-client"'
  - assert:
      text:
        contains: ["id=env-client", "env=http://127.0.0.1:"]
""")  # fmt: skip
    done = workbench("run", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    trace = next((tmp_path / "target").rglob("trace.jsonl")).read_text().splitlines()
    screen = "\n".join(json.loads(trace[-2])["screen"])
    url = screen.split("arg=")[1].split()[0]
    assert url.startswith("http://127.0.0.1:") and url.endswith("/api/v1")
    assert f"env={url} id=env-client" in screen  # POST /sessions in run mode answers the run's own session


def test_an_unknown_mode_in_a_scenario_is_invalid_input_at_its_line(tmp_path: Path) -> None:
    scenario = write(tmp_path, "m.yaml", "name: m\nmode: simulaton\ntimeline:\n  - log: x\n")
    done = workbench("run", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    (failure,) = entry["failures"]
    assert failure["kind"] == "validation" and failure["line"] == 2 and "simulation" in failure["message"]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_follows_the_stream_of_serve_rest(tmp_path: Path) -> None:
    with serve_rest(SCENARIOS / "simulation" / "build-status.yaml", "4") as url:
        done = subprocess.run(["curl", "-sN", "--max-time", "60", f"{url}/sessions/build-status/events"],
                              capture_output=True, text=True, check=True, timeout=90)  # fmt: skip
    frames = [f for f in done.stdout.split("\n\n") if f.strip()]
    names = [f.split("\n")[1].removeprefix("event: ") for f in frames]
    assert names[0] == "status" and names[-1] == "status" and "tool_use" in names and "file_edit" in names
    assert [int(f.split("\n")[0].removeprefix("id: ")) for f in frames] == list(range(1, len(frames) + 1))
    assert json.loads(frames[-1].split("data: ", 1)[1])["status"] == "completed"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--speed", "fast"], "invalid speed"),
        (["--port", "70000"], "argument --port: must be 0..65535, got 70000"),
    ],
)
def test_serve_rest_rejects_bad_flags_with_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    done = workbench(
        "serve", "rest", str(SCENARIOS / "simulation" / "build-status.yaml"), *args, cwd=tmp_path
    )
    assert done.returncode == 2 and message in done.stderr


def test_serve_rest_names_a_bad_scenario_file_line_and_column(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.yaml", "name: bad\ntimeline:\n  - screnshot: x\n")
    done = workbench("serve", "rest", str(bad), cwd=tmp_path)
    assert done.returncode == 2 and "bad.yaml:3:5" in done.stderr and "screenshot" in done.stderr
    missing = workbench("serve", "rest", str(tmp_path / "nope.yaml"), cwd=tmp_path)
    assert missing.returncode == 2 and "nope.yaml:1:1: error: file not found" in missing.stderr


def test_user_actions_are_streamed_asserts_on_the_workspace_are_noted_and_a_completed_session_is_listed(
    tmp_path: Path,
) -> None:
    """Agent Harbor's simulation: what the user does is a session event (`user input (tui): q`, as the
    format's mock server logs it); an `assert` on the workspace is not evaluated (no tool runs in this
    mode) and says so as a skipped check, while its `text.contains` is checked on the client's screen; a
    session that is `complete` (no `merge`) is still listed by `GET /sessions`."""
    scenario = write(tmp_path, "sim.yaml", """\
name: sim-user
mode: simulation
command: [bash, --norc, --noprofile]
timeline:
  - assistant: [[0, hello]]
  - userInputs: [[700, "curl -s $WORKBENCH_REST_URL/sessions/sim-user/events?perPage=50 | grep -o 'user input (tui): [a-z]*'; curl -s $WORKBENCH_REST_URL/sessions | grep -o '\\"total\\": 1'<Enter>"]]
  - complete: true
  - waitFor: '"total": 1'
  - assert:
      fs: {exists: [never-written.txt]}
      text: {contains: ['user input (tui): curl']}
""")  # fmt: skip
    done = workbench("run", str(scenario), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    (skipped,) = entry["skipped_checks"]
    assert skipped["check"] == "assert" and skipped["line"] == 9
    assert "not evaluated in simulation mode" in skipped["reason"]
    broken = write(
        tmp_path, "sim.yaml", scenario.read_text().replace("['user input (tui): curl']", "[nowhere]")
    )
    done = workbench("run", str(broken), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, "the screen part is still checked"
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    assert [f["message"] for f in entry["failures"]] == ["the screen does not contain 'nowhere'"]


def test_a_client_that_exits_before_it_follows_the_session_fails_at_once_saying_so(tmp_path: Path) -> None:
    """A front-end that crashes at start (a wrong path, a missing module) never reads an event: the run
    says the client exited, with its code and screen, instead of waiting 10 s for a subscriber and then
    failing every `assert` as if the client had drawn the wrong thing."""
    scenario = write(tmp_path, "crash.yaml", """\
name: crash
mode: simulation
command: [python3, -c, "import sys; print('no such module: frontend'); sys.exit(3)"]
timeline:
  - assistant: [[0, hello]]
  - screenshot: first
  - assert:
      text: {contains: [hello]}
""")  # fmt: skip
    done = workbench("run", str(scenario), "--ci", "--report", "r.json", "--timeout", "60", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    (failure,) = entry["failures"]
    assert failure["kind"] == "process" and failure["line"] == 6, failure
    assert "the client exited (code 3) before it followed the session's events" in failure["message"]
    assert "no such module: frontend" in failure["message"]  # its screen


def test_the_built_in_viewer_shows_what_the_user_typed_once_as_its_event(tmp_path: Path) -> None:
    """Without a `command` the viewer is the client; what the user types reaches it and the session streams
    it as `user input (tui): ...`. The viewer's terminal echoed the keys too, so the next event's line
    was glued to them ('more pleasehi there')."""
    scenario = write(tmp_path, "viewer.yaml", """\
name: viewer
mode: simulation
terminal: {width: 40, height: 6}
timeline:
  - userInputs: [[100, "more please"]]
  - assistant: [[200, "hi there"]]
  - screenshot: end
""")  # fmt: skip
    done = workbench("run", str(scenario), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    golden = (tmp_path / "screenshots" / "viewer" / "40x6" / "end.golden").read_text(encoding="utf-8")
    assert [row.rstrip() for row in golden.splitlines()][:4] == [
        "session viewer",
        "● status: running",
        "user input (tui): more please",
        "hi there",
    ]


def test_the_built_in_viewer_exits_at_the_end_of_the_stream_when_an_exit_code_is_expected(
    tmp_path: Path,
) -> None:
    """`expect.exitCode` waits for the program under test to exit; the built-in viewer waited for Ctrl-D, so
    a scenario with one (hello-agent under `--mode simulation`) timed out."""
    scenario = write(tmp_path, "exits.yaml", """\
name: exits
mode: simulation
timeline:
  - assistant: [[0, hello]]
  - complete: true
expect:
  exitCode: 0
""")  # fmt: skip
    done = workbench("run", str(scenario), "--ci", "--timeout", "30", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    assert entry["status"] == "passed"


def test_ctrl_c_ends_the_built_in_viewer_without_a_traceback(tmp_path: Path) -> None:
    scenario = write(tmp_path, "interrupt.yaml", """\
name: interrupt
mode: simulation
terminal: {width: 60, height: 8}
timeline:
  - assistant: [[0, hello]]
  - userInputs: [[100, "<C-c>"]]
  - screenshot: interrupted
""")  # fmt: skip
    done = workbench("run", str(scenario), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    golden = (tmp_path / "screenshots" / "interrupt" / "60x8" / "interrupted.golden").read_text(
        encoding="utf-8"
    )
    assert "Traceback" not in golden and "KeyboardInterrupt" not in golden, golden
    assert "(interrupted)" in golden, golden


def test_rules_and_scp_folders_have_no_timeline_to_play_as_a_session(tmp_path: Path) -> None:
    """A Claudeless rules file under `--mode simulation` passed having played nothing, and `serve rest` served
    it (and an SCP folder) as a session 'running' forever with no event."""
    rules = SCENARIOS / "claudeless" / "v1-rules.toml"
    done = workbench("run", "--mode", "simulation", str(rules), "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    assert entry["status"] == "skipped" and "--mode real-agent" in entry["skip_reason"], entry
    scp = Path(__file__).parent.parent / "acp" / "scp_echo"
    for path in (rules, scp):
        served = workbench("serve", "rest", str(path), cwd=tmp_path, timeout=60)
        assert served.returncode == 2, served.stdout + served.stderr
        assert f"{path}: " in served.stderr and "no timeline to play as a session" in served.stderr


FRONT_END = """<!doctype html><title>front-end</title><pre id=log></pre><script>
const base = new URLSearchParams(location.search).get("api");
const log = (line) => { document.getElementById("log").textContent += line + "\\n"; };
fetch(base + "/sessions", {method: "POST", headers: {"Content-Type": "application/json"},
                           body: JSON.stringify({scenario: "build-status"})})
  .then((r) => r.json()).then((s) => {
    log("created " + s.id);
    const events = new EventSource(base + "/sessions/" + s.id + "/events");
    events.addEventListener("status", (e) => {
      const status = JSON.parse(e.data).status;
      log("status " + status);
      if (status === "completed") { events.close(); log("done"); }
    });
  }).catch((e) => log("error " + e));
</script>"""


def test_a_browser_front_end_on_another_origin_creates_a_session_and_follows_it(
    tmp_path: Path, browser: Any
) -> None:
    """A web UI's dev server is another origin than `serve rest`: without CORS the browser refused the POST's
    preflight and the event stream, and the front-end saw only 'TypeError: Failed to fetch'."""
    import http.server
    import threading

    from selenium.webdriver.support.ui import WebDriverWait

    (tmp_path / "index.html").write_text(FRONT_END, encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    pages = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=pages.serve_forever, daemon=True).start()
    try:
        with serve_rest(SCENARIOS / "simulation" / "build-status.yaml", "max") as url:
            browser.get(f"http://127.0.0.1:{pages.server_address[1]}/index.html?api={url}")
            WebDriverWait(browser, 60).until(
                lambda b: (
                    "done" in b.find_element("id", "log").text or "error" in b.find_element("id", "log").text
                )
            )
            log = browser.find_element("id", "log").text.splitlines()
    finally:
        pages.shutdown()
    assert log == ["created build-status-2", "status running", "status completed", "done"], log


def test_a_misspelt_placeholder_in_the_clients_command_names_the_nearest(tmp_path: Path) -> None:
    """`{rest_url}` reached the client as written; it failed to connect to '{rest_url}/sessions/...'."""
    scenario = write(tmp_path, "typo.yaml", """\
name: typo
mode: simulation
command: [python3, -c, "import sys; print(sys.argv, {})", "{rest_url}", "{session_id}"]
timeline:
  - log: x
""")  # fmt: skip
    done = workbench("run", str(scenario), "--ci", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    (entry,) = report_of(tmp_path / "r.json")["scenarios"]
    (failure,) = entry["failures"]
    assert failure["line"] == 3 and failure["message"] == (
        "`{rest_url}` is no placeholder of simulation mode: did you mean `{rest_base_url}`? "
        "(the placeholders are {rest_base_url}, {session_id}, {workspace}, {scenario_dir})"
    ), failure
