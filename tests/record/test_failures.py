"""Bad input to a recording: an upstream that refuses (401, 429, 500, a stream cut mid-way) is recorded as
that failure and replayed as it; an upstream nobody answers at is an error before the agent starts; an
interrupted recording still writes what it has, marked partial."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli_process import workbench
from tests.record.helpers import HELLO, agent_command, record, serve_llm, start_record
from workbench.scenario import model as m
from workbench.scenario.loader import load_scenario

ERROR = """\
name: upstream
timeline:
  - userInputs:
      - [0, "hi"]
  - llmResponse:
      - error: {{statusCode: {status}, errorType: {kind}, message: "{message}"{retry}}}
"""


@pytest.mark.parametrize(
    ("status", "kind", "retry"),
    [(401, "authentication_error", None), (429, "rate_limit_error", 7), (500, "api_error", None)],
)
def test_an_http_error_is_recorded_and_replayed(
    tmp_path: Path, status: int, kind: str, retry: int | None
) -> None:
    upstream = ERROR.format(status=status, kind=kind, message=f"refused {status}",
                            retry=f", retryAfterSeconds: {retry}" if retry else "")  # fmt: skip
    with serve_llm(tmp_path, upstream) as url:
        done = record(tmp_path, url, "scenarios/refused.yaml", agent_command("anthropic"), "--prompt", "hi")
    assert done.returncode == 0, done.stderr
    # it may be the session meant (a test of the agent's 401), or a wrong --upstream: the summary says which
    assert f"warning: the upstream answered no model request as the API does (HTTP {status})" in done.stderr
    scenario = load_scenario(tmp_path / "scenarios" / "refused.yaml", env={})
    reply = next(e for e in scenario.timeline if isinstance(e, m.LlmResponse))
    error = reply.pieces[0]
    assert isinstance(error, m.LlmError)
    assert (error.status_code, error.error_type, error.message, error.retry_after_seconds) == (
        status, kind, f"refused {status}", retry)  # fmt: skip
    golden = (tmp_path / "screenshots" / "refused" / "80x24" / "turn-1.golden").read_text()
    assert "error:" in golden  # what the agent showed
    replay = workbench("run", "scenarios", "--mode", "real-agent", "--ci", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr


CUT = """\
name: upstream
timeline:
  - userInputs:
      - [0, "hi"]
  - llmResponse:
      - fault: {type: partial_response, partial_text: "Hello, wor"}
"""


def test_a_stream_cut_mid_way_is_recorded_as_that_fault_and_replayed(tmp_path: Path) -> None:
    with serve_llm(tmp_path, CUT) as url:
        done = record(tmp_path, url, "scenarios/cut.yaml", agent_command("anthropic"), "--prompt", "hi")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "scenarios" / "cut.yaml").read_text()
    assert "type: partial_response" in text and 'partial_text: "Hello, wor"' in text, text
    golden = (tmp_path / "screenshots" / "cut" / "80x24" / "turn-1.golden").read_text()
    assert "Hello, wor" in golden and "error:" in golden
    replay = workbench("run", "scenarios", "--mode", "real-agent", "--ci", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr


def test_an_unreachable_upstream_is_an_error_before_the_agent_starts(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    command = [sys.executable, "-c", f"open({str(marker)!r}, 'w')"]
    done = record(tmp_path, "http://127.0.0.1:9", "scenarios/x.yaml", command, "--prompt", "hi")
    assert done.returncode == 2, done.stderr
    assert (
        "cannot reach the upstream http://127.0.0.1:9" in done.stderr and "nothing was started" in done.stderr
    )
    assert "Traceback" not in done.stderr
    assert not marker.exists() and not (tmp_path / "scenarios").exists()


def test_an_agent_that_exits_before_it_takes_the_prompt_is_an_error_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    """An agent that crashes at start (a bad install, a missing config) never gets `--prompt`: that is no
    session to replay. It was written as an empty scenario, exit 0, and that empty scenario replayed green."""
    command = [sys.executable, "-c", "import sys; print('forge: no model configured'); sys.exit(3)"]
    with serve_llm(tmp_path, ERROR.format(status=500, kind="api_error", message="unused", retry="")) as url:
        done = record(tmp_path, url, "scenarios/x.yaml", command, "--prompt", "hi")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the agent exited (code 3) before it took the prompt" in done.stderr, done.stderr
    assert "forge: no model configured" in done.stderr and "nothing was written" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "scenarios").exists()
    with serve_llm(tmp_path, ERROR.format(status=500, kind="api_error", message="unused", retry="")) as url:
        done = record(tmp_path, url, "scenarios/x.yaml", [*command, "{prompt}"], "--prompt", "hi")
    assert done.returncode == 2 and "the agent exited (code 3) without sending a request" in done.stderr
    assert not (tmp_path / "scenarios").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--upstream", "ftp://x", "-o", "a.yaml", "--", "true"],
            "--upstream must be an http:// or https:// URL",
        ),
        (
            ["--upstream", "http://127.0.0.1:9", "-o", "a.json", "--", "true"],
            "a recording is a YAML scenario",
        ),
        (["--upstream", "http://127.0.0.1:9", "-o", "a.yaml"], "record needs the agent"),
        (
            ["--upstream", "http://127.0.0.1:9", "-o", "a.yaml", "--agent", "nope"],
            "unknown agent preset `nope`",
        ),
        # each waited for the whole recording or ended it at once, then said it was interrupted
        *(
            (
                ["--upstream", "http://127.0.0.1:9", "-o", "a.yaml", "--timeout", t, "--", "true"],
                f"--timeout {t}: give the seconds the recording may last, more than 0",
            )
            for t in ("0", "-5", "nan")
        ),
        (
            ["--upstream", "http://127.0.0.1:9", "-o", "a.yaml", "--prompt", " ", "--", "true"],
            "--prompt needs the text to type",
        ),
    ],
)
def test_bad_arguments_are_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    done = workbench("record", *args, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


SLOW = """\
name: upstream
timeline:
  - userInputs:
      - [0, "write hello.txt"]
  - llmResponse:
      - assistant:
          - [10, "Writing it."]
  - agentToolUse:
      toolName: writeFile
      args: {path: hello.txt, content: "hello\\n"}
  - llmResponse:
      - assistant:
          - [60000, "Done."]
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGHUP], ids=["SIGINT", "SIGHUP"])
def test_an_interrupted_recording_writes_what_it_has_marked_partial(tmp_path: Path, sig: int) -> None:
    """Ctrl-C, or the terminal closed (SIGHUP: it ended the recorder at once, leaving its workspace and HOME
    in the temporary folder and nothing written)."""
    with serve_llm(tmp_path, SLOW, "--speed", "1") as url:
        proc = start_record(tmp_path, url, "scenarios/cut.yaml", "write hello.txt")
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob(".tmp/wb-ws-*/hello.txt")):
            assert time.monotonic() < deadline, "the agent never wrote hello.txt"
            time.sleep(0.1)
        time.sleep(0.5)  # the second request is on its way (its answer takes a minute)
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "partial recording (interrupted)" in err
    scenario = load_scenario(tmp_path / "scenarios" / "cut.yaml", env={})
    assert "partial" in scenario.tags
    text = (tmp_path / "scenarios" / "cut.yaml").read_text()
    assert text.count("# PARTIAL") == 1 and "- writeFile:" in text and "Writing it." in text
    assert not list(tmp_path.glob(".tmp/wb-*")), "the recording's workspace and HOME are removed"


GATED = """\
name: upstream
timeline:
  - userInputs:
      - [0, "hi"]
  - llmResponse:
      - assistant:
          - [10, "Checking."]
  - runCmd: {{cmd: "touch {asked}; while [ ! -e {go} ]; do sleep 0.05; done; echo checked"}}
  - llmResponse:
      - assistant:
          - [10, "Done."]
"""


def test_an_upstream_that_goes_down_mid_session_is_recorded_as_unreachable_and_replayed(
    tmp_path: Path,
) -> None:
    """The upstream stops between two requests: the agent meets what it would meet without the proxy (its
    connection fails), and the scenario says so (`network_unreachable`). The proxy answered a 502 of its own
    ('the recording proxy could not reach ...'), written as 'the upstream answered HTTP 502' with another
    message: neither was true, and the replay showed the agent a different error than the one recorded."""
    asked, go = tmp_path / "asked", tmp_path / "go"
    upstream = GATED.format(asked=asked, go=go)
    with serve_llm(tmp_path, upstream) as url:
        proc = start_record(tmp_path, url, "scenarios/down.yaml", "hi")
        deadline = time.monotonic() + 60
        while not asked.exists():
            assert time.monotonic() < deadline and proc.poll() is None, "the agent never ran the gate"
            time.sleep(0.05)
    go.touch()  # the upstream is down now; the agent asks again
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    text = (tmp_path / "scenarios" / "down.yaml").read_text()
    assert "type: network_unreachable" in text, text
    assert "502" not in text and "upstream answered" not in text, text
    assert "could not be reached" in text, text
    golden = (tmp_path / "screenshots" / "down" / "80x24" / "turn-1.golden").read_text()
    assert "error: APIConnectionError" in golden, golden
    replay = workbench("run", "scenarios", "--mode", "real-agent", "--ci", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr


def record_keys(tmp_path: Path, url: str, command: list[str], stdin: str) -> tuple[int, str]:
    """`workbench record` without --prompt, its exit code and stderr; its keys from /dev/null (``null``),
    a pipe closed at once (``closed``) or a pipe left open until it has exited (``open``)."""
    (tmp_path / ".tmp").mkdir(exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "record", "--upstream", url, "-o", "scenarios/x.yaml", "--", *command],
        cwd=tmp_path, stdin=subprocess.DEVNULL if stdin == "null" else subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp_path / ".tmp")},
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    if stdin == "closed" and proc.stdin is not None:
        proc.stdin.close()
    err = proc.stderr.read()  # until it exits
    proc.stdout.read()
    code = proc.wait(timeout=60)
    if proc.stdin is not None and not proc.stdin.closed:
        proc.stdin.close()
    proc.stdout.close()
    proc.stderr.close()
    return code, err


def test_keys_from_dev_null_are_a_usage_error_before_anything_starts(tmp_path: Path) -> None:
    """Without --prompt the user's stdin is relayed; /dev/null (a CI step, an IDE task) cannot be waited on,
    and the recording ended in 'internal error: PermissionError' from the event loop."""
    marker = tmp_path / "started"
    with serve_llm(tmp_path, HELLO) as url:
        code, err = record_keys(tmp_path, url, [sys.executable, "-c", f"open({str(marker)!r}, 'w')"], "null")
    assert code == 2, err
    assert "stdin here is a file or /dev/null" in err and "--prompt TEXT" in err, err
    assert "Traceback" not in err and "internal error" not in err
    assert not marker.exists() and not (tmp_path / "scenarios").exists()


@pytest.mark.parametrize(
    ("command", "stdin", "why"),
    [
        (["sh", "-c", "echo forge: no model configured; exit 3"], "open",
         "the agent exited (code 3) without sending a request to the model, so there is no session to record; "
         "its screen was:\nforge: no model configured"),
        (["sleep", "60"], "closed", "your input ended before the agent sent a request to the model"),
    ],
)  # fmt: skip
def test_a_session_without_a_model_request_is_an_error_and_nothing_is_written(
    tmp_path: Path, command: list[str], stdin: str, why: str
) -> None:
    """Without --prompt, an agent that exits at once (or keys that end at once) was written as an empty
    scenario, exit 0, which replays green whatever the agent does."""
    with serve_llm(tmp_path, HELLO) as url:
        code, err = record_keys(tmp_path, url, command, stdin)
    assert code == 2, err
    assert why in err and "nothing was written" in err, err
    assert "Traceback" not in err and not (tmp_path / "scenarios").exists()
    assert not list((tmp_path / ".tmp").glob("wb-*")), "the recording's workspace and HOME are removed"


def test_an_output_that_cannot_be_written_is_a_usage_error_before_the_agent_starts(tmp_path: Path) -> None:
    """`-o` naming a folder, or `--goldens` naming a file, failed with a traceback after the whole session
    (IsADirectoryError from the atomic write): the session was lost."""
    marker = tmp_path / "started"
    (tmp_path / "taken.yaml").mkdir()
    (tmp_path / "notes.txt").write_text("a file\n")
    command = ["--", sys.executable, "-c", f"open({str(marker)!r}, 'w')"]
    for args, message in (
        (
            ["-o", "taken.yaml"],
            "-o taken.yaml: is a folder; give a file name, such as taken.yaml/session.yaml",
        ),
        (["-o", "notes.txt/x.yaml"], "-o notes.txt/x.yaml: "),
        (["-o", "x.yaml", "--goldens", "notes.txt"], "--goldens notes.txt: is a file; give a folder"),
    ):
        done = workbench("record", "--upstream", "http://127.0.0.1:9", *args, "--prompt", "hi", *command,
                         cwd=tmp_path)  # fmt: skip
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and not marker.exists()


def test_a_path_relative_to_this_folder_on_the_agents_command_line_is_named(tmp_path: Path) -> None:
    """The agent runs in a fresh, empty workspace: `-- python3 agent/main.py` (or `-- agent/run.sh`) from
    the project's folder names nothing there, and the error showed only the agent's own complaint."""
    script = tmp_path / "agent" / "run.sh"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    with serve_llm(tmp_path, HELLO) as url:
        for command in (["sh", "agent/run.sh"], ["agent/run.sh"]):
            done = record(tmp_path, url, "scenarios/x.yaml", command, "--prompt", "hi")
            assert done.returncode == 2, done.stderr
            assert (
                "the agent runs in a fresh, empty workspace, not in this folder: agent/run.sh on its command line "
                "is a path relative to this folder; give it as an absolute path, or install the agent as a command on "
                "PATH" in done.stderr
            ), done.stderr
            assert "Traceback" not in done.stderr and not (tmp_path / "scenarios").exists()


NOT_THE_API = """\
import sys
from aiohttp import web

async def answer(request):
    await request.read()
    return web.Response(text="<html><body>Welcome to nginx!</body></html>", content_type="text/html")

app = web.Application()
app.router.add_route("*", "/{tail:.*}", answer)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=lambda *_: print("ready", flush=True))
"""


def test_an_upstream_that_is_not_the_api_is_said_to_be_so(tmp_path: Path) -> None:
    """A web server at --upstream answers 200 with a page: that was written as an empty model reply, with
    nothing said. The scenario says what came, and the summary warns."""
    import socket

    server = tmp_path / "not_the_api.py"
    server.write_text(NOT_THE_API)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(server), str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        done = record(tmp_path, f"http://127.0.0.1:{port}", "scenarios/page.yaml", agent_command("openai-chat"),
                      "--prompt", "hi")  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
    assert done.returncode == 0, done.stderr
    assert (
        "warning: the upstream answered no model request as the API does (HTTP 200 text/html" in done.stderr
    )
    text = (tmp_path / "scenarios" / "page.yaml").read_text()
    assert "with what is not the API's answer: \"<html><body>Welcome to nginx!" in text, text
    replay = workbench("run", "scenarios", "--mode", "real-agent", "--ci", cwd=tmp_path)
    assert replay.returncode == 0, replay.stdout + replay.stderr
