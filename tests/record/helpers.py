"""Upstreams for recording tests (real HTTP servers on 127.0.0.1) and the record CLI as a process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import write

AGENT = Path(__file__).with_name("sdk_agent.py")


def agent_command(style: str, variant: str = "") -> list[str]:
    return [sys.executable, str(AGENT), style, "{openai_base_url}" if style.startswith("openai") else "{base_url}",
            "{api_key}", *([variant] if variant else [])]  # fmt: skip


@contextmanager
def serve_llm(tmp_path: Path, scenario_text: str, *extra: str) -> Iterator[str]:
    """`workbench serve llm` playing ``scenario_text``: the upstream a recording talks to; yields its URL."""
    path = write(tmp_path, "upstream/upstream.yaml", scenario_text)
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "serve", "llm", str(path), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # an answer still paced (a test's minute-long delay) holds it
            proc.kill()
            proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def start_record(tmp_path: Path, upstream: str, out: str, prompt: str) -> subprocess.Popen[str]:
    """`workbench record --prompt PROMPT` of the anthropic SDK agent, started (for a test to interrupt or
    gate), with its temporary folders under ``tmp_path/.tmp``."""
    (tmp_path / ".tmp").mkdir(exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "workbench", "record", "--upstream", upstream, "-o", out,
         "--prompt", prompt, "--", *agent_command("anthropic")],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "TMPDIR": str(tmp_path / ".tmp")},
    )  # fmt: skip


def record(
    tmp_path: Path, upstream: str, out: str, command: list[str], *args: str, env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """`workbench record` as a user runs it (no terminal: stdin from /dev/null)."""
    tmp = tmp_path / ".tmp"
    tmp.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "workbench", "record", "--upstream", upstream, "-o", out, *args, "--", *command],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=timeout, stdin=subprocess.DEVNULL,
        env={**os.environ, "TMPDIR": str(tmp), **(env or {})},
    )  # fmt: skip


HELLO = """\
name: upstream
timeline:
  - userInputs:
      - [0, "write hello.txt"]
  - llmResponse:
      - think:
          - [20, "The user wants a file."]
      - assistant:
          - [30, "I'll write "]
          - [20, "the file."]
  - agentToolUse:
      toolName: writeFile
      args: {path: hello.txt, content: "hello\\n"}
  - llmResponse:
      - assistant:
          - [40, "Done: hello.txt is written."]
"""
