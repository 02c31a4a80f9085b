"""`workbench serve llm`: prints the URL, serves until Ctrl-C, exit codes 0 / 1 / 2."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import pytest

from tests.conftest import REPO, write
from tests.processes import signals_at_their_defaults
from workbench.clock import parse_speed
from workbench.llm.serve import serve_llm_main

GOOD = (
    "name: served\ntimeline:\n  - userInputs: [[0, hi]]\n  - llmResponse: [{assistant: [[0, served text]]}]\n"
)
BOOT = "import sys; from workbench.llm import serve_llm_main; sys.exit(serve_llm_main(sys.argv[1:]))"
MORE = "  - userInputs: [[0, more]]\n  - llmResponse: [{assistant: [[0, never asked]]}]\n"


def run(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BOOT, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout
    )


def test_invalid_scenarios_exit_2_with_positions(tmp_path: Path) -> None:
    bad = write(
        tmp_path,
        "bad.yaml",
        "name: bad\ntimeline:\n  - llmResponse:\n      - think: [[10, x]]\n        extra: 1\n",
    )
    done = run(str(bad))
    assert done.returncode == 2, done.stderr
    assert "bad.yaml:5:9: error: an `llmResponse` element has exactly one of" in done.stderr
    assert "Traceback" not in done.stderr
    missing = run(str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "nope.yaml:1:1: error: file not found" in missing.stderr


def test_bad_flags_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(write(tmp_path, "good.yaml", GOOD))  # a real file, so only the flag can be at fault
    assert serve_llm_main([scenario, "--speed", "fast"]) == 2
    assert "invalid speed 'fast'" in capsys.readouterr().err
    assert serve_llm_main([scenario, "--port", "70000"]) == 2
    assert "argument --port: must be 0..65535, got 70000" in capsys.readouterr().err
    assert serve_llm_main([]) == 2
    assert parse_speed("max") is None and parse_speed("4") == 4.0
    with pytest.raises(ValueError, match=r"a number from 0\.01 to 1000"):
        parse_speed("0")


@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"]
)
@pytest.mark.parametrize(("finish", "code"), [(True, 0), (False, 1)])
def test_serves_until_interrupted(tmp_path: Path, finish: bool, code: int, sig: signal.Signals) -> None:
    """Ctrl-C, SIGTERM, or SIGHUP (the terminal closed: it killed the server, unchecked, its log unsaid)."""
    path = write(tmp_path, "good.yaml", GOOD if finish else GOOD + MORE)
    proc = subprocess.Popen([sys.executable, "-c", BOOT, str(path), "--out", str(tmp_path / "out")], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=signals_at_their_defaults)  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        client = anthropic.Anthropic(base_url=url, api_key="k", max_retries=0)
        msg = client.messages.create(model="m", max_tokens=20, messages=[{"role": "user", "content": "hi"}])
        assert msg.content[0].type == "text" and msg.content[0].text == "served text"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert "Traceback" not in err
    if not finish:
        assert "good.yaml:6: expect: the agent never asked for this response" in err
    assert (tmp_path / "out" / "llm-requests.jsonl").exists()


def test_banner_and_verbose_request_lines(tmp_path: Path) -> None:
    """Endpoints of every style and the environment to paste on stdout; with -v, one line per
    request on stderr: its style, its session, the step it consumed or why it was a side request."""
    from workbench.llm.wire import WIRES

    path = write(tmp_path, "good.yaml", GOOD)
    proc = subprocess.Popen([sys.executable, "-c", BOOT, str(path), "-v"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        banner = [proc.stdout.readline().rstrip() for _ in range(len(WIRES) + 2)]
        while (line := proc.stdout.readline().rstrip()).startswith("  export"):
            banner.append(line)
            if "GEMINI_API_KEY" in line:
                break
        client = anthropic.Anthropic(base_url=url, api_key="k", max_retries=0)
        client.messages.create(model="m", max_tokens=20, messages=[{"role": "user", "content": "hi"}])
        schema = {
            "type": "json_schema",
            "schema": {"type": "object", "properties": {"title": {"type": "string"}}},
        }
        client.messages.create(model="m", max_tokens=20, messages=[{"role": "user", "content": "hi"}],
                               extra_body={"output_config": {"format": schema}})  # fmt: skip
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = "\n".join(banner)
    for wire in WIRES:
        assert f"  {wire.title}" in text
    assert f"{url}/v1beta/models/{{model:[^/:]+}}:generateContent" not in text  # patterns are shown readably
    for line in (f"export ANTHROPIC_BASE_URL={url}", f"export OPENAI_BASE_URL={url}/v1",
                 f"export GOOGLE_GEMINI_BASE_URL={url}", "clients that send no key share one"):  # fmt: skip
        assert line in text, text
    assert "POST /v1/messages [anthropic] session k: end_turn: 11 chars (line 4)" in err, err
    assert "POST /v1/messages [anthropic]: side request (schema)" in err, err


def test_a_real_api_key_never_reaches_the_log_or_the_files(tmp_path: Path) -> None:
    """An agent pointed at `serve llm` with only its base URL changed still sends the user's real key; the
    key named the session in `-v`, in llm-requests.jsonl and in saved requests' file names."""
    secret = "sk-ant-api03-realsecretvalue1234567890"
    path = write(tmp_path, "good.yaml", GOOD)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-c", BOOT, str(path), "-v", "--strict-tools", "--out", str(out)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        client = anthropic.Anthropic(base_url=url, api_key=secret, max_retries=0)
        tools: Any = [
            {"name": "odd", "description": "x", "input_schema": {"type": "object", "properties": {}}}
        ]
        with contextlib.suppress(anthropic.APIStatusError):  # refused: its tools are no known agent's
            client.messages.create(
                model="m", max_tokens=20, tools=tools, messages=[{"role": "user", "content": "hi"}]
            )
        client.messages.create(model="m", max_tokens=20, messages=[{"role": "user", "content": "hi"}])
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "POST /v1/messages [anthropic] session key-" in err, err
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files and "llm-requests.jsonl" in {p.name for p in files}
    for found in (err, *(str(p.relative_to(out)) for p in files), *(p.read_text() for p in files)):
        assert "realsecret" not in found, found
